//! The page: the hooks that hold the session and the page's own state,
//! the frame loop, and the layout. Every component gets plain data as
//! props and reports input as callbacks; beside this file, `dispatch` is
//! the one way a command reaches the engine, and `editing`, `keeping`,
//! `lessons`, `scrubbing`, `explaining` and `sweeps` turn each kind of input into commands.
//!
//! The model is the engine's `Playground` (in `view::observed::Session`,
//! beside what the page noted of its runs): it decides whether an edit
//! applies live or starts the run again, and how a lesson's steps go. This
//! file only holds what the page shows.

mod dispatch;
mod editing;
mod explaining;
mod keeping;
mod lessons;
mod scrubbing;
mod sweeps;

use std::cell::RefCell;
use std::rc::Rc;

use sluice_engine::playground::{Command, Speed, StepBegun};
use sluice_engine::scenario::Kind;
use sluice_engine::sweep::{field_words, NodeField};
use sluice_engine::Scenario;
use yew::prelude::*;

use crate::browser::clock::now_ms;
use crate::browser::keep;
use crate::browser::live::Live;
use crate::browser::shortcuts::{use_shortcuts, Shortcuts};
use crate::components::canvases::{Canvases, VariantView};
use crate::components::chart::Charts;
use crate::components::controls::Controls;
use crate::components::counters::Counters;
use crate::components::shadow_panel::ShadowPanel;
use crate::components::event_log::EventLog;
use crate::components::config_import::ConfigImport;
use crate::components::glossary::{Glossary, OpenGlossary};
use crate::components::inspector::Inspector;
use crate::components::lesson_panel::LessonPanel;
use crate::components::lesson_editor::LessonEditor;
use crate::components::lesson_picker::LessonPicker;
use crate::components::messages::Messages;
use crate::components::palette::Palette;
use crate::components::sweep_panel::SweepPanel;
use crate::components::theory_panel::TheoryPanel;
use crate::components::time_line::TimeLine;
use crate::components::toolbar::Toolbar;
use crate::view::chart_data::ChartKind;
use crate::view::motion::Motion;
use crate::view::observed::Session;
use crate::view::panels::PanelCache;
use crate::view::player::{show_paused, use_player, ClockReading, Player};
use crate::view::selection::Select;
use crate::view::sweep::SweepOrder;

use dispatch::use_dispatch;
use editing::use_editing;
use explaining::use_explaining;
use keeping::use_keeping;
use lessons::use_lessons;
use scrubbing::use_scrubbing;
use sweeps::use_sweeps;

fn default_scenario() -> Scenario {
    Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).expect("the built-in scenario is valid")
}

/// The page's own state beside the session, as every part of the page
/// shares it (cheap to clone; setting one draws the page again).
#[derive(Clone)]
pub(crate) struct Page {
    pub session: Rc<RefCell<Session>>,
    pub playing: UseStateHandle<bool>,
    pub speed: UseStateHandle<Speed>,
    /// The selected blocks, by id as the engine's commands name them (so
    /// that an undo never moves the selection onto another block); the
    /// last is the one the inspector shows.
    pub selected: UseStateHandle<Vec<String>>,
    /// Why the last edit was refused, until the next one.
    pub notice: UseStateHandle<Option<String>>,
    /// The name and description of the scenario a link opened, shown
    /// while that scenario is open, until closed.
    pub banner: UseStateHandle<Option<(String, String)>>,
    /// A passing message (a link copied, a file imported), unlike `notice`.
    pub status: UseStateHandle<Option<String>>,
    /// Whether work kept aside (from before a share link opened, or
    /// another tab's) can be restored.
    pub earlier: UseStateHandle<bool>,
    /// The chart on show: only its lines are worked out.
    pub chart_kind: UseStateHandle<ChartKind>,
    /// What the Sweep panel is open on, and how many orders it was given.
    pub sweep_order: UseStateHandle<Option<SweepOrder>>,
    pub sweep_serial: Rc<RefCell<u32>>,
    /// The save of the scenario in this browser, due a moment after the
    /// last edit (`keeping.rs`).
    pub saving: Rc<RefCell<keeping::Saving>>,
    pub redraw: UseForceUpdateHandle,
}

#[function_component(App)]
pub fn app() -> Html {
    let opening = use_memo((), |_| {
        let keep::Opening { scenario, origin, problem, lesson, at } = keep::opening(default_scenario());
        let welcome = match origin {
            keep::Origin::Shared if scenario.name.trim().is_empty() => Some("Opened the scenario from the share link.".to_string()),
            keep::Origin::Shared => Some(format!("Opened \"{}\" from the share link.", scenario.name)),
            keep::Origin::Saved if lesson.is_none() => Some("Your last scenario was restored from this browser.".to_string()),
            keep::Origin::Saved | keep::Origin::BuiltIn => None,
        };
        let first_visit = matches!(origin, keep::Origin::BuiltIn);
        let earlier = (matches!(origin, keep::Origin::Shared) || lesson.is_some()) && keep::earlier_work().is_some();
        let banner = matches!(origin, keep::Origin::Shared).then(|| keep::banner(&scenario)).flatten();
        (RefCell::new(Some(scenario)), problem, welcome, first_visit, earlier, lesson, banner, at)
    });
    let session = use_mut_ref(|| Session::new(opening.0.borrow_mut().take().unwrap_or_else(default_scenario), default_scenario));
    let page = Page {
        session: session.clone(),
        playing: use_state(|| opening.7.is_none()),
        speed: use_state(|| Speed::Times(1.0)),
        selected: use_state(|| {
            let s = session.borrow();
            s.play.scenario().nodes.iter().find(|n| n.block.kind() == Kind::Queue).map(|n| n.id.clone()).into_iter().collect::<Vec<String>>()
        }),
        notice: use_state(|| opening.1.clone()),
        banner: use_state(|| opening.6.clone()),
        status: use_state(|| opening.2.clone()),
        earlier: use_state(|| opening.4),
        chart_kind: use_state(|| ChartKind::Depth),
        sweep_order: use_state(|| None::<SweepOrder>),
        sweep_serial: use_mut_ref(|| 0u32),
        saving: use_mut_ref(keeping::Saving::default),
        redraw: use_force_update(),
    };
    let Page { playing, speed, selected, chart_kind, .. } = page.clone();
    let behind = use_state(|| false);
    let panels = use_mut_ref(PanelCache::default);
    // What changes between panel refreshes while playing: the clock and the
    // dots of A and B. A frame with no panel due renders their components
    // alone.
    let clock = use_memo((), |_| Live::new(ClockReading::default()));
    let motion_live = use_memo((), |_| Live::new(Rc::<Motion>::default()));
    let b_motion_live = use_memo((), |_| Live::new(Rc::<Motion>::default()));
    // The glossary, when open, and the word it was opened at.
    let glossary = use_state(|| None::<Option<String>>);
    // Presentation mode: for a room, large words, no editing chrome.
    let present = use_state(keep::presenting_asked);
    let on_present = use_callback(present.clone(), |_: MouseEvent, present| present.set(!**present));

    use_player(Player {
        session: session.clone(),
        playing: playing.clone(),
        speed: *speed,
        behind: behind.clone(),
        panels: panels.clone(),
        clock: clock.clone(),
        motion: motion_live.clone(),
        b_motion: b_motion_live.clone(),
        redraw: page.redraw.clone(),
        begin: {
            let page = page.clone();
            Callback::from(move |begun: StepBegun| page.begin_step(&begun))
        },
    });
    let dispatch = use_dispatch(&page);
    let edit = use_editing(&page, &dispatch);
    let keeping = use_keeping(&page, &dispatch);
    let lessons = use_lessons(&page, &dispatch, opening.3, opening.5.clone());
    let sweeps = use_sweeps(&page, &dispatch);
    let scrubbing = use_scrubbing(&page, &dispatch, opening.7);
    let explaining = use_explaining(&page, &scrubbing.on_scrub, &edit.on_select);

    let on_play = {
        let (playing, session, play_from) = (playing.clone(), session.clone(), scrubbing.on_play_from.clone());
        Callback::from(move |_| {
            if session.borrow().play.scrubbed().is_some() {
                // Shown at an earlier instant: Play plays on from there.
                return play_from.emit(());
            }
            if *playing {
                // Paused, A and B are read at one instant.
                session.borrow_mut().play.catch_up();
            }
            playing.set(!*playing)
        })
    };
    let on_speed = use_callback(speed.clone(), |s: Speed, speed| speed.set(s));
    let command = |make: fn() -> Command| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: ()| drop(dispatch(make())))
    };
    let on_reset = command(|| Command::Reset);
    let on_step = {
        let (dispatch, speed) = (dispatch.clone(), *speed);
        Callback::from(move |_: ()| drop(dispatch(Command::Step { speed })))
    };
    let on_seed = {
        let (dispatch, notice) = (dispatch.clone(), page.notice.clone());
        Callback::from(move |text: String| match text.trim().parse::<u64>() {
            Ok(seed) => drop(dispatch(Command::SetSeed(seed))),
            Err(_) => notice.set(Some(format!("The seed must be a whole number from 0 to {}, not \"{}\".", u64::MAX, text.trim()))),
        })
    };
    use_shortcuts(
        ((*selected).clone(), *playing),
        Shortcuts {
            undo: edit.undo.clone(),
            redo: edit.redo.clone(),
            duplicate: edit.duplicate.clone(),
            delete: edit.delete.clone(),
            play: on_play.clone(),
            select_all: edit.select_all.clone(),
            select_none: edit.on_close.clone(),
        },
    );
    let on_kind = use_callback(chart_kind.clone(), |k: ChartKind, chart_kind| chart_kind.set(k));
    // A/B on the playground: B is the scenario as it is now, A stays
    // editable; change A and watch how it differs from where it started.
    let on_compare = {
        let (dispatch, session, playing) = (dispatch.clone(), session.clone(), playing.clone());
        Callback::from(move |_: ()| {
            let open = session.borrow().play.variant_b().is_some();
            let opened = dispatch(if open { Command::CloseComparison } else { Command::OpenComparison }).is_ok();
            if opened && !open {
                playing.set(true);
            }
        })
    };
    let open_glossary = OpenGlossary(use_callback(glossary.clone(), |word: Option<String>, glossary| glossary.set(Some(word))));
    let on_glossary_close = use_callback(glossary.clone(), |_: (), glossary| glossary.set(None));
    // A block picked on B's canvas selects the same block of A.
    let on_select_b = use_callback(edit.on_select.clone(), {
        let session = session.clone();
        move |pick: Select, on_select| {
            let s = session.borrow();
            let to_a = |i: usize| s.play.index_of(&s.play.variant_b()?.sim.scenario().nodes.get(i)?.id);
            if let Some(pick) = pick.map(to_a) {
                on_select.emit(pick);
            }
        }
    });

    // The scenario the Sweep panel sweeps: copied once per accepted edit,
    // not on every render.
    let sweep_scenario = (*use_memo(session.borrow().play.revision(), {
        let session = session.clone();
        move |_| Rc::new(session.borrow().play.scenario().clone())
    }))
    .clone();
    // The blocks the selected one could feed: worked out once per edit
    // and selection, not on every frame.
    let candidates = (*use_memo((session.borrow().play.revision(), selected.last().cloned()), {
        let session = session.clone();
        move |(_, selected): &(u64, Option<String>)| {
            let s = session.borrow();
            let scenario = s.play.scenario();
            let Some(from) = selected.as_deref().and_then(|id| scenario.nodes.get(scenario.node_index(id)?)) else { return Rc::new(Vec::new()) };
            let editor = s.play.editor();
            Rc::new(scenario.nodes.iter().filter(|n| editor.check_connection(&from.id, &n.id).is_ok()).map(|n| n.id.clone()).collect::<Vec<String>>())
        }
    }))
    .clone();
    let s = session.borrow();
    let scenario = s.play.scenario();
    // The selection as the components draw it: positions in the scenario now.
    let selection: Vec<usize> = s.indices_of(&selected);
    let selected_index = selection.last().copied();
    let shown = panels.borrow_mut().refresh(&s, &selection, *chart_kind, *playing, now_ms());
    let b_view = s.play.variant_b().zip(shown.b_snapshot.clone()).zip(s.b.as_ref()).map(|((b, snapshot), notes)| {
        let compared = s.ids_of(&selection);
        let selected = compared.iter().filter_map(|id| b.sim.scenario().node_index(id)).collect();
        let judged = s.play.compared_figures();
        VariantView { labels: b.labels.clone(), snapshot, motion: b_motion_live.clone(), dropping: s.dropping_shown(notes), selected, compared, judged }
    });
    let selected_theory = selected_index.and_then(|i| shown.snapshot.nodes.get(i)).and_then(|n| Some((n.id.clone(), n.theory.clone()?)));
    let selected_spec = selected_index.and_then(|i| scenario.nodes.get(i).cloned());
    let selected_outputs: Vec<String> = selected_spec
        .as_ref()
        .map(|n| scenario.edges.iter().filter(|e| e.from == n.id).map(|e| e.to.clone()).collect())
        .unwrap_or_default();
    // After a step, a reset or an edit as after a frame. While playing,
    // the frame loop keeps them, at its own pace.
    if !*playing {
        show_paused(&s, &clock, &motion_live, &b_motion_live);
    }
    let scrubbed = s.play.scrubbed().map(|t| t.as_secs_f64());
    let (earliest_s, live_s) = (s.play.earliest().as_secs_f64(), s.play.run().map_or(0.0, |sim| sim.now().as_secs_f64()));
    let open_lesson = s.play.lesson().map(|run| (run.index, run.states.clone(), run.tries.clone()));
    // A step waiting for the learner's change: the field asked for, in
    // words and as it stands, and the field the inspector points out.
    let asked = s.play.lesson().and_then(|run| lessons.texts.get(run.index)?.steps.get(run.asking()?)?.ask.clone());
    let asked_words = asked.as_ref().map(|ask| AttrValue::from(field_words(scenario, &NodeField { node: ask.node.clone(), field: ask.field.clone() })));
    let asked_now = asked.as_ref().and_then(|ask| ask.now_in_words(scenario)).map(AttrValue::from);
    let asked_here = asked.filter(|ask| selected_spec.as_ref().is_some_and(|n| n.id == ask.node));
    let in_inspector = asked_here.as_ref().zip(asked_words.as_ref()).map(|(ask, words)| {
        let field = words.split_once(": ").map_or(words.as_str(), |(_, field)| field);
        AttrValue::from(format!("Your turn: the lesson asks for {field} {}. ", ask.wanted()))
    });
    let asked_field = asked_here.map(|ask| ask.field);
    let sweep = (*page.sweep_order).clone().map(|order| (order, sweep_scenario.clone()));
    let editor = s.play.editor();
    let (can_undo, can_redo, seed) = (editor.can_undo() || s.play.can_undo_fork(), editor.can_redo(), scenario.seed_or_default());
    let (name, description) = (AttrValue::from(scenario.name.clone()), AttrValue::from(scenario.description.clone()));
    let (comparing, stall, missing, dropping) = (s.play.variant_b().is_some(), s.play.stall(), s.play.missing(), s.dropping_shown(&s.a));
    // The link's banner describes its scenario while that is the one open
    // (a lesson or another scenario opened since puts it away).
    let banner = (*page.banner).clone().filter(|b| Some(b) == keep::banner(s.play.scenario()).as_ref()).map(|(n, d)| (AttrValue::from(n), AttrValue::from(d)));
    let running = s.play.run().is_some();
    drop(s);

    // Behind an open dialog (the lesson picker, the glossary) the page is inert.
    let modal = lessons.picking || glossary.is_some() || lessons.writing.is_some();
    let on_glossary = open_glossary.0.reform(|_: MouseEvent| None);
    html! {
        <ContextProvider<OpenGlossary> context={open_glossary}>
        <div class={classes!("app", present.then_some("present"), asked_words.is_some().then_some("asking"))}>
            <header class="topbar" inert={modal}>
                <div class="brand">
                    <span class="logo" aria-hidden="true">{"≋"}</span>
                    <span class="title">{"Sluice"}</span>
                    <span class="subtitle" data-testid="scenario-title">{ if name.is_empty() { AttrValue::from("Untitled") } else { name.clone() } }</span>
                </div>
                <button class="lessons-button" data-testid="lessons" onclick={lessons.on_all.reform(|_: MouseEvent| ())}>{"☰ Lessons"}</button>
                <button class="lessons-button glossary-button" data-testid="glossary-open" onclick={on_glossary}>{"Glossary"}</button>
                <button class="lessons-button present-button" data-testid="present" aria-pressed={present.to_string()} onclick={on_present}
                    title="Presentation mode: large words for a projector, no editing tools">{"Present"}</button>
                <Controls playing={*playing} runs={running} speed={*speed} clock={clock.clone()} behind={*behind} {seed} {on_play} {on_step} {on_speed} {on_reset} {on_seed} />
            </header>
            <main class="workspace" inert={modal}>
                <aside class="toolbox">
                    <Palette on_drop={edit.on_drop} on_add={edit.on_add} lands={edit.lands} />
                </aside>
                // The lesson over the panels, beside the canvas: on a wide
                // screen one column that scrolls on its own, the canvas
                // staying in view; on a narrow one the lesson above the
                // canvas and the panels below it.
                <div class="side">
                    if let Some((index, states, tries)) = open_lesson {
                        <div class="lesson-area">
                            <LessonPanel lessons={lessons.texts.clone()} {index} {states} {tries} now_s={shown.snapshot.time_s} on_try={lessons.on_try}
                                on_skip={lessons.on_skip} on_all={lessons.on_all} on_close={lessons.on_close} {asked_words} {asked_now} on_do_it={lessons.on_do_it.clone()}
                                on_edit={lessons.on_write.reform(|_: ()| true)} on_why={explaining.on_explained} />
                        </div>
                    }
                    <aside class="sidebar">
                        if let Some((queue, theory)) = selected_theory {
                            <TheoryPanel {queue} {theory} />
                        }
                        <Inspector spec={selected_spec} outputs={selected_outputs} on_reconfigure={edit.on_reconfigure} on_number={edit.on_number} on_sweep={sweeps.on_sweep}
                            on_close={edit.on_close} {name} {description} on_describe={edit.on_describe} {candidates} on_connect_to={edit.on_connect_to}
                            on_disconnect={edit.on_disconnect} asked={asked_field} asked_words={in_inspector.unwrap_or_default()} on_do_it={lessons.on_do_it.clone()} />
                        <Counters snapshot={shown.snapshot.clone()} />
                        if let Some(view) = shown.shadow.clone() {
                            <ShadowPanel {view} />
                        }
                        <EventLog log={shown.log} drops={shown.drops} selected={selection.clone()} on_select={edit.on_select.clone()} playing={*playing} on_why={explaining.on_why} />
                    </aside>
                </div>
                <section class="stage">
                    <Toolbar on_new={edit.on_new} {can_undo} {can_redo} selected={!selection.is_empty()} {comparing} on_undo={edit.undo} on_redo={edit.redo}
                        on_duplicate={edit.duplicate} on_delete={edit.delete} on_export={keeping.on_export} on_import={keeping.on_import} on_log={keeping.on_log.clone()}
                        on_import_config={keeping.on_open_config} on_share={keeping.on_share} on_compare={on_compare.clone()} />
                    <Messages {banner} on_close_banner={keeping.on_close_banner.clone()} shared={keeping.shared} on_close_share={keeping.on_close_share} status={(*page.status).clone()} notice={(*page.notice).clone()}
                        {stall} {missing} {running} earlier={*page.earlier} on_restore_earlier={keeping.on_restore_earlier}
                        on_forget_earlier={keeping.on_forget_earlier} />
                    <Canvases snapshot={shown.snapshot.clone()} motion={motion_live.clone()} {dropping} selected={selection.clone()} on_select={edit.on_select.clone()}
                        present={*present} drop_edge={edit.drop_edge} on_move={edit.on_move} on_connect={edit.on_connect} b={b_view} {on_select_b} on_close_compare={on_compare} on_log={keeping.on_log.clone()} on_diverge={explaining.on_diverge} />
                    if running {
                        <TimeLine {earliest_s} {live_s} shown_s={scrubbed} on_scrub={scrubbing.on_scrub} on_live={scrubbing.on_live} on_play_from={scrubbing.on_play_from}
                            why={explaining.why} on_why_link={explaining.on_link} on_why_close={explaining.on_close} />
                    }
                    if let Some((lines, nodes, strips)) = shown.charts {
                        <Charts kind={*chart_kind} {on_kind} {lines} {nodes} {strips} now_s={shown.chart_now_s} cursor_s={shown.cursor_s} on_band={explaining.on_band} />
                    }
                    if let Some((order, scenario)) = sweep {
                        <SweepPanel {order} {scenario} on_use_value={sweeps.on_use_value} on_finished={sweeps.on_finished} on_abandoned={sweeps.on_abandoned}
                            on_close={sweeps.on_close} />
                    }
                </section>
            </main>
            if lessons.picking {
                <LessonPicker lessons={lessons.texts.clone()} completed={lessons.completed} on_pick={lessons.on_pick} on_close={lessons.on_picker_close}
                    on_write={lessons.on_write.reform(|_: ()| false)} />
            }
            if let Some(start) = lessons.writing.clone() {
                <LessonEditor {start} on_try={lessons.on_written.clone()} on_close={lessons.on_editor_close.clone()} />
            }
            if let Some(word) = (*glossary).clone() {
                <Glossary {word} on_close={on_glossary_close} />
            }
            if let Some(error) = keeping.config {
                <ConfigImport {error} busy={keeping.importing} on_import={keeping.on_import_config} on_close={keeping.on_close_config} />
            }
        </div>
        </ContextProvider<OpenGlossary>>
    }
}
