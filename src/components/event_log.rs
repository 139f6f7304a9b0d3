//! The event log: state transitions, limits and disconnects, links and
//! hosts going down and up, consumer lifecycles, and drops, newest first,
//! with filters. Clicking an entry selects its node; its Why? button asks
//! for its cause chain (shown under the time line), as does the Why? of
//! the selected block.

use std::collections::BTreeSet;
use std::rc::Rc;

use yew::prelude::*;

use crate::view::selection::Select;
use sluice_engine::explain::Asked;
use sluice_engine::{Cause, DropReason, SimTime, State};


use crate::view::colours::state_colour;
use crate::view::observed::DropEntry;
use crate::view::snapshot::{LogView, TransitionView};

/// What kind of happening an entry is, for the filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// A queue's send state moved (Ready, Overloaded, SoftLimit).
    States,
    /// A hard limit reached, a client disconnected or reconnected.
    Limits,
    /// A link or a host went down or came up, a consumer's outage.
    UpDown,
    /// A consumer's lifecycle moved on.
    Lifecycle,
    /// Messages dropped.
    Drops,
}

const CATEGORIES: [(Category, &str); 5] = [
    (Category::States, "state changes"),
    (Category::Limits, "hard limits & disconnects"),
    (Category::UpDown, "up & down"),
    (Category::Lifecycle, "lifecycle"),
    (Category::Drops, "drops"),
];

fn category_of(t: &TransitionView) -> Category {
    use State::*;
    match (t.from, t.to) {
        (Up | Down | Outage, _) | (_, Up | Down | Outage) => Category::UpDown,
        (HardLimit, _) | (_, HardLimit) => Category::Limits,
        _ if t.cause == Cause::NewClientConnected => Category::Limits,
        (New | Initializing | Operational | ShuttingDown, _) => Category::Lifecycle,
        _ => Category::States,
    }
}

/// One line of the log.
enum Entry<'a> {
    Transition(&'a TransitionView),
    Drop(&'a DropEntry),
}

impl Entry<'_> {
    fn time_s(&self) -> f64 {
        match self {
            Entry::Transition(t) => t.time_s,
            Entry::Drop(d) => d.time_s,
        }
    }
    fn index(&self) -> usize {
        match self {
            Entry::Transition(t) => t.index,
            Entry::Drop(d) => d.index,
        }
    }
    fn category(&self) -> Category {
        match self {
            Entry::Transition(t) => category_of(t),
            Entry::Drop(_) => Category::Drops,
        }
    }
}

/// Entries shown at most.
const SHOWN: usize = 60;
/// Entries shown at most while playing: a busy log replaces all of them on
/// every update, faster than anyone reads, and laying out 60 new rows was
/// the longest part of a frame. The box shows about ten; pausing brings
/// back the longer list to scroll through.
const SHOWN_PLAYING: usize = 12;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub log: Rc<LogView>,
    /// Drops noted frame by frame, newest first.
    pub drops: Rc<Vec<DropEntry>>,
    pub selected: Vec<usize>,
    pub on_select: Callback<Select>,
    /// Whether the simulation is playing (fewer entries are shown).
    #[prop_or_default]
    pub playing: bool,
    /// Why? pressed: at a block, about what.
    #[prop_or_default]
    pub on_why: Callback<(usize, Asked)>,
}

#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    let shown_categories = use_state(|| CATEGORIES.iter().map(|(c, _)| *c).collect::<BTreeSet<Category>>());
    let only_selected = use_state(|| false);
    let log = &props.log;

    let mut entries: Vec<Entry> = log.transitions.iter().map(Entry::Transition).chain(props.drops.iter().map(Entry::Drop)).collect();
    // Newest first; at equal times a drop after the transition that caused it.
    entries.sort_by(|a, b| b.time_s().total_cmp(&a.time_s()));
    let visible: Vec<&Entry> = entries
        .iter()
        .filter(|e| shown_categories.contains(&e.category()))
        .filter(|e| !*only_selected || props.selected.contains(&e.index()))
        .take(if props.playing { SHOWN_PLAYING } else { SHOWN })
        .collect();

    let filters = CATEGORIES.iter().map(|&(category, label)| {
        let on = shown_categories.contains(&category);
        let toggle = {
            let shown_categories = shown_categories.clone();
            Callback::from(move |_: Event| {
                let mut next = (*shown_categories).clone();
                if !next.remove(&category) {
                    next.insert(category);
                }
                shown_categories.set(next);
            })
        };
        html! {
            <label class="filter">
                <input type="checkbox" checked={on} onchange={toggle} data-testid={format!("log-filter-{category:?}")} />
                { label }
            </label>
        }
    });
    let toggle_selected = {
        let only_selected = only_selected.clone();
        Callback::from(move |_: Event| only_selected.set(!*only_selected))
    };

    let line = |entry: &Entry| {
        let index = entry.index();
        let onclick = props.on_select.reform(move |_: MouseEvent| Select::Only(index));
        let body = match entry {
            Entry::Transition(t) => html! {
                <>
                    <span class="who">{ &t.node }</span>
                    <span class="state" style={format!("color: {}", state_colour(t.from))}>{ t.from.as_str() }</span>
                    {" → "}
                    <span class="state to" style={format!("color: {}", state_colour(t.to))}>{ t.to.as_str() }</span>
                    <span class="cause">{ t.cause.as_str() }</span>
                </>
            },
            Entry::Drop(d) => html! {
                <>
                    <span class="who">{ &d.node }</span>
                    {" dropped "}
                    <strong>{ d.count }</strong>
                    <span class="cause"><span class={classes!("reason", d.reason)}>{ d.reason }</span></span>
                </>
            },
        };
        let (kind, key) = match entry {
            Entry::Transition(t) => ("transition", format!("t{}", t.seq)),
            Entry::Drop(d) => ("drop", format!("d{}", d.seq)),
        };
        let asked = match entry {
            Entry::Transition(t) => Some(Asked::Change { to: t.to, at: SimTime::from_secs_f64(t.time_s) }),
            Entry::Drop(d) => DropReason::ALL.into_iter().find(|r| r.as_str() == d.reason).map(|reason| Asked::Drop { reason, at: SimTime::from_secs_f64(d.time_s) }),
        };
        let why = asked.map(|asked| {
            let onclick = props.on_why.reform(move |_: MouseEvent| (index, asked));
            html! { <button class="why-ask" title="Why did this happen?" aria-label="Why did this happen?" {onclick} data-testid="why-ask">{"Why?"}</button> }
        });
        // Keyed, so that a new entry at the top adds one row rather than
        // rewriting every row below it.
        html! {
            <li {key} class={classes!("entry", kind)}>
                <button class="entry-button" title="Select this node" {onclick}>
                    <span class="time">{ format!("{:.3} s", entry.time_s()) }</span>
                    { body }
                </button>
                { for why }
            </li>
        }
    };

    html! {
        <section class="panel log" aria-label="Event log">
            <h2>
                {"Events "}
                <span class="muted" title="State changes since the start" data-testid="transitions-total">{ log.total }</span>
            </h2>
            if let [node] = props.selected[..] {
                <button class="why-selected" data-testid="why-selected" onclick={props.on_why.reform(move |_: MouseEvent| (node, Asked::Last))}
                    title="What happened last at the selected block, and why">{"Why? (the selected block)"}</button>
            }
            <div class="filters" role="group" aria-label="Show in the log">
                { for filters }
                <label class="filter">
                    <input type="checkbox" checked={*only_selected} onchange={toggle_selected} data-testid="log-only-selected" />
                    {"selected nodes only"}
                </label>
            </div>
            if visible.is_empty() {
                <p class="hint">{ if entries.is_empty() { "Nothing has happened yet." } else { "Nothing matches the filters." } }</p>
            } else {
                <ol class="entries" data-testid="transitions">
                    { for visible.iter().map(|e| line(e)) }
                </ol>
                if log.total > log.transitions.len() as u64 {
                    <p class="hint">{ format!("state changes: the latest {} of {}", log.transitions.len(), log.total) }</p>
                }
            }
        </section>
    }
}
