//! The open lesson: its story, what to watch, and its "try this" steps,
//! each with a button that does it and, once the step's time has run, the
//! verdict on what the lesson said would happen, with the figures behind it.
//!
//! Guarantees: a verdict, when it comes, is announced to a screen reader
//! (a polite live region, always in the page, says the step, the outcome
//! and its figures); the countdown while a step is watched is not.

use std::rc::Rc;

use sluice_engine::lesson::{Explained, LessonText};
use sluice_engine::playground::StepState;
use yew::prelude::*;

use crate::browser::scroll::show_within;

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    /// Every lesson's text, and which one is open.
    pub lessons: Rc<Vec<LessonText>>,
    pub index: usize,
    pub states: Vec<StepState>,
    /// How many times each step was begun.
    pub tries: Vec<u32>,
    /// The simulated time, for "n s to go".
    pub now_s: f64,
    /// Does step k.
    pub on_try: Callback<usize>,
    /// Runs the step being watched on to its verdict at once.
    pub on_skip: Callback<()>,
    /// The field a step waiting for the learner's change asks for, in
    /// words ("socket: Bandwidth (bytes/s)"), and its value now.
    #[prop_or_default]
    pub asked_words: Option<AttrValue>,
    #[prop_or_default]
    pub asked_now: Option<AttrValue>,
    /// "Do it for me": the change the waiting step asks for, made.
    pub on_do_it: Callback<()>,
    /// Opens the lesson editor on this lesson.
    #[prop_or_default]
    pub on_edit: Callback<()>,
    pub on_all: Callback<()>,
    pub on_close: Callback<()>,
    /// Shows a step's explanation (the Why panel): at the verdict of a
    /// step that explains, and from its Why? button.
    #[prop_or_default]
    pub on_why: Callback<Explained>,
}

/// Whether the page is as narrow as a phone (the layout's breakpoint).
fn narrow() -> bool {
    gloo_utils::window().inner_width().ok().and_then(|w| w.as_f64()).is_some_and(|w| w <= 800.0)
}

/// Scrolls the panel `section` (itself, not the page) to step `k`, its
/// verdict first.
fn show_step(section: &web_sys::Element, k: usize) {
    if let Ok(Some(step)) = section.query_selector(&format!("[data-testid=\"step-{}\"]", k + 1)) {
        show_within(section, &step);
    }
}

/// A step's button pressed takes itself away (put out while the step is
/// watched, gone once it is judged), and the focus with it: it goes to
/// what comes next, the step's Skip ahead or Do it for me, else the next
/// step's button (or its Skip ahead, begun), else the step's own again,
/// so that a keyboard goes on from where it was. A focus found elsewhere (the field a step asks for)
/// stays there; the page does not scroll for it.
fn refocus(n: usize) {
    gloo_timers::callback::Timeout::new(60, move || {
        let document = gloo_utils::document();
        let lost = document.active_element().is_none_or(|e| document.body().is_some_and(|b| *b == e) || e.has_attribute("disabled"));
        if !lost {
            return;
        }
        // (The next step may have begun of itself: one that only watches
        // starts at the verdict before it.)
        let after = [
            format!("[data-testid=\"step-{n}-skip\"]"),
            format!("[data-testid=\"step-{n}-do-it\"]"),
            format!("[data-testid=\"step-{}-try\"]:not([disabled])", n + 1),
            format!("[data-testid=\"step-{}-skip\"]", n + 1),
            format!("[data-testid=\"step-{n}-try\"]:not([disabled])"),
        ];
        let next = after.iter().find_map(|s| document.query_selector(s).ok().flatten());
        if let Some(el) = next.and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok()) {
            let options = web_sys::FocusOptions::new();
            options.set_prevent_scroll(true);
            let _ = el.focus_with_options(&options);
        }
    })
    .forget();
}

#[function_component(LessonPanel)]
pub fn lesson_panel(props: &LessonPanelProps) -> Html {
    // The last verdict to come, in words, for the live region.
    let announced = use_state(String::new);
    // The lesson and its steps' states at the last render.
    let last_states = use_mut_ref(|| (props.index, props.states.clone()));
    let panel = use_node_ref();
    // Opened at a step (a link's), the step being watched is in view.
    {
        let (panel, watched) = (panel.clone(), props.states.iter().position(|s| matches!(s, StepState::Watching { .. })));
        use_effect_with(props.index, move |_| {
            if let (Some(k), Some(section)) = (watched.filter(|&k| k > 0), panel.cast::<web_sys::Element>()) {
                show_step(&section, k);
            }
        });
    }
    {
        let (announced, last_states, panel, on_why) = (announced.clone(), last_states.clone(), panel.clone(), props.on_why.clone());
        use_effect_with((props.index, props.states.clone()), move |(index, states)| {
            let (was, before) = std::mem::replace(&mut *last_states.borrow_mut(), (*index, states.clone()));
            if was != *index {
                // Another lesson opened: none of its steps changed.
                return;
            }
            let fresh = || states.iter().enumerate().filter(|(k, state)| before.get(*k) != Some(*state));
            // The step that changed last (begun or judged, not forgotten),
            // and its verdict, are brought into view in the panel: the page
            // stays put.
            let shown = fresh().rfind(|(_, state)| !matches!(state, StepState::NotTried));
            if let (Some((k, _)), Some(section)) = (shown, panel.cast::<web_sys::Element>()) {
                show_step(&section, k);
                // And the panel in the column beside the canvas, scrolled
                // down to an inspector since (a wide screen's: a narrow
                // one's column is no box of its own).
                match section.closest(".side").ok().flatten().filter(|side| side.client_height() > 0) {
                    Some(side) => show_within(&side, &section),
                    // A narrower screen's one column: a step that asked
                    // begins once the change is made in the inspector, far
                    // below; the page goes back up to the step.
                    None if matches!(before.get(k), Some(StepState::Asking { .. })) => {
                        let options = web_sys::ScrollIntoViewOptions::new();
                        options.set_block(web_sys::ScrollLogicalPosition::Start);
                        section.scroll_into_view_with_scroll_into_view_options(&options);
                    }
                    None => {}
                }
            }
            if let Some((k, StepState::Judged(v))) = fresh().rfind(|(_, state)| matches!(state, StepState::Judged(_))) {
                let figures: Vec<&str> = v.results.iter().map(|r| r.text.as_str()).collect();
                let outcome = if v.passed { "as the lesson says" } else { "not as the lesson says" };
                announced.set(format!("Step {}: {outcome}. {}", k + 1, figures.join("; ")));
                // A step that explains opens its explanation at its
                // verdict, unless a later step was pressed meanwhile (this
                // one was played first for it); one that began of itself
                // at this verdict does not count.
                let later = fresh().filter(|(j, state)| *j > k && !matches!(state, StepState::Watching { alone: true, .. })).count();
                if let Some(explained) = v.explained.as_ref().filter(|_| later == 0) {
                    on_why.emit((**explained).clone());
                }
            }
        });
    }
    let Some(l) = props.lessons.get(props.index) else { return html! {} };
    let steps = l.steps.iter().enumerate().map(|(k, step)| {
        let n = k + 1;
        let state = props.states.get(k).cloned().unwrap_or(StepState::NotTried);
        let on_try = props.on_try.clone();
        let label = if step.sweep.is_some() {
            "Sweep"
        } else if step.compare {
            "Compare A/B"
        } else if step.ask.is_some() {
            "Your turn"
        } else if step.changes.is_empty() && k == 0 {
            "Watch from the start"
        } else if step.changes.is_empty() {
            "Watch"
        } else {
            "Try it"
        };
        let verdict = match &state {
            StepState::NotTried => html! {},
            StepState::Watching { until_s, .. } => {
                let on_skip = props.on_skip.reform(move |_: MouseEvent| refocus(n));
                html! {
                    <p class="verdict watching" data-testid={format!("step-{n}-verdict")} data-state="watching">
                        { format!("Watching… {:.0} simulated s to go", (until_s - props.now_s).max(0.0)) }
                        <button class="small skip" data-testid={format!("step-{n}-skip")} onclick={on_skip}
                            title="Run on to the verdict at once; the speed stays as it is">{"Skip ahead »"}</button>
                    </p>
                }
            }
            StepState::Asking { .. } => {
                let on_do_it = props.on_do_it.reform(move |_: MouseEvent| refocus(n));
                let field = props.asked_words.clone().unwrap_or_default();
                let wanted = step.ask.as_ref().map(|ask| ask.wanted()).unwrap_or_default();
                let now = props.asked_now.as_ref().map(|now| format!(" It is {now} now.")).unwrap_or_default();
                html! {
                    <div class="verdict asking" data-testid={format!("step-{n}-verdict")} data-state="asking">
                        <p>{ format!("Your turn: in the inspector, make {field} {wanted}.{now} The step is watched from the moment it is.") }</p>
                        <button class="small" data-testid={format!("step-{n}-do-it")} onclick={on_do_it}
                            title="Make the lesson's own change instead, and watch the step">{"Do it for me"}</button>
                    </div>
                }
            }
            StepState::Sweeping => html! {
                <p class="verdict watching" data-testid={format!("step-{n}-verdict")} data-state="sweeping">
                    { "Sweeping… the Sweep panel shows the points as they come" }
                </p>
            },
            StepState::Abandoned { why } => html! {
                <p class="verdict watching" data-testid={format!("step-{n}-verdict")} data-state="abandoned">
                    { format!("Not judged: {why}. Press Sweep to run it again.") }
                </p>
            },
            StepState::Judged(v) => html! {
                <div class={classes!("verdict", if v.passed { "passed" } else { "failed" })} data-testid={format!("step-{n}-verdict")}
                    data-state={if v.passed { "passed" } else { "failed" }}>
                    <p class="verdict-head">{ match (v.passed, step.sweep.is_some()) {
                        (true, _) => "✓ As the lesson says",
                        (false, true) => "✗ Not as the lesson says: the sweep came out otherwise",
                        (false, false) => "✗ Not as the lesson says: something on the canvas differs from the lesson's",
                    } }</p>
                    <ul class="verdict-figures">
                        { for v.results.iter().map(|r| html! { <li class={if r.passed { "ok" } else { "off" }}>{ &r.text }</li> }) }
                    </ul>
                    if let Some(explained) = v.explained.clone() {
                        <button class="small why-step" data-testid={format!("step-{n}-why")} title="Show its cause chain again, under the time line"
                            onclick={props.on_why.reform(move |_: MouseEvent| (*explained).clone())}>{"Why? The explanation"}</button>
                    }
                </div>
            },
        };
        html! {
            <li class="step" data-testid={format!("step-{n}")} data-tries={props.tries.get(k).copied().unwrap_or(0).to_string()}>
                <p class="step-try">{ &step.try_this }</p>
                <p class="step-expect"><strong>{"Expect: "}</strong>{ &step.expect }</p>
                <button class="primary small" data-testid={format!("step-{n}-try")} disabled={matches!(state, StepState::Watching { .. } | StepState::Asking { .. })}
                    onclick={Callback::from(move |_: MouseEvent| {
                        on_try.emit(k);
                        refocus(n);
                    })}>{ label }</button>
                { verdict }
            </li>
        }
    });
    let (on_all, on_close) = (props.on_all.clone(), props.on_close.clone());
    html! {
        <section class="panel lesson" aria-label="Lesson" data-testid="lesson-panel" ref={panel}>
            <div class="panel-head">
                <h2 tabindex="-1">{ format!("Lesson {} · {}", l.number, l.title) }</h2>
                <button class="icon" aria-label="Close the lesson" onclick={Callback::from(move |_: MouseEvent| on_close.emit(()))}>{"×"}</button>
            </div>
            <p class="lesson-source">{ &l.source }</p>
            // On a phone the story starts folded, so that the steps and the
            // canvas come sooner.
            <details open={!narrow()}>
                <summary>{"The story"}</summary>
                <p>{ &l.story }</p>
            </details>
            <p><strong>{"Watch: "}</strong>{ &l.watch }</p>
            <h3>{"Try this"}</h3>
            <p class="visually-hidden" role="status" data-testid="lesson-announce">{ (*announced).clone() }</p>
            <ol class="steps">{ for steps }</ol>
            <button class="link" data-testid="all-lessons" onclick={Callback::from(move |_: MouseEvent| on_all.emit(()))}>{"All lessons…"}</button>
            <button class="link" data-testid="edit-lesson" onclick={props.on_edit.reform(|_: MouseEvent| ())}>{"Change this lesson…"}</button>
        </section>
    }
}
