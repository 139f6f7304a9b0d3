//! The page: the hooks that hold the session and the page's own state, one
//! dispatch of the engine's commands, the frame loop, and the layout. Every
//! component gets plain data as props and reports input as callbacks.
//!
//! The model is the engine's `Playground` (in `view::observed::Session`,
//! beside what the page noted of its runs): it decides whether an edit
//! applies live or starts the run again, and how a lesson's steps go. This
//! file only turns input into its commands and says what came of them.

use std::cell::RefCell;
use std::rc::Rc;

use sluice_engine::editor::EditError;
use sluice_engine::lesson::LessonText;
use sluice_engine::playground::{Applied, Command, PlayError, Speed, StepState};
use sluice_engine::scenario::{Kind, Position};
use sluice_engine::{BlockSpec, Scenario};
use yew::prelude::*;

use crate::browser::clock::now_ms;
use crate::browser::keep;
use crate::browser::live::Live;
use crate::browser::shortcuts::{use_shortcuts, Shortcuts};
use crate::components::canvases::{Canvases, VariantView};
use crate::components::chart::Charts;
use crate::components::controls::Controls;
use crate::components::counters::Counters;
use crate::components::event_log::EventLog;
use crate::components::glossary::{Glossary, OpenGlossary};
use crate::components::graph::{client_to_canvas, edge_under, over_canvas};
use crate::components::inspector::Inspector;
use crate::components::lesson_panel::LessonPanel;
use crate::components::lesson_picker::LessonPicker;
use crate::components::messages::Messages;
use crate::components::palette::Palette;
use crate::components::sweep_panel::SweepPanel;
use crate::components::theory_panel::TheoryPanel;
use crate::components::toolbar::Toolbar;
use crate::view::chart_data::{chart_for, ChartKind};
use crate::view::motion::Motion;
use crate::view::observed::Session;
use crate::view::panels::PanelCache;
use crate::view::player::{use_player, ClockReading, Player};
use crate::view::selection::Select;
use crate::view::sweep::{SweepForm, SweepOrder};
use crate::view::words::thousands;

/// Where a block dropped on the page lands: its point on the canvas, and
/// the edge (from, to) it goes on when dropped near one.
type Landing = (Option<Position>, Option<(String, String)>);

/// Real seconds a lesson step may take to watch before the page speeds it
/// up.
const WATCH_REAL_S: f64 = 30.0;

/// A speed of the speed menu at which a step watched for `within_s`
/// simulated seconds takes at most `WATCH_REAL_S` real ones, when `speed`
/// is too slow for that (the slowest such; none: the speed is fine).
fn fitting_speed(within_s: f64, speed: f64) -> Option<f64> {
    // A speed of 0 or NaN gives no ratio above the limit: nothing to fit.
    if (within_s / speed).partial_cmp(&WATCH_REAL_S) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    crate::components::controls::SPEEDS.iter().copied().filter(|s| s.is_finite()).find(|s| within_s / s <= WATCH_REAL_S)
}

/// Raises the speed when step `k`, watched for `within_s` simulated
/// seconds, would take too long at the speed now, and says so.
fn speed_to_watch(k: usize, within_s: f64, speed: &UseStateHandle<f64>, status: &UseStateHandle<Option<String>>) {
    let Some(faster) = fitting_speed(within_s, **speed) else { return };
    speed.set(faster);
    status.set(Some(format!(
        "Step {} watches {} simulated seconds: the speed is now {}× so that it takes about {} s.",
        k + 1,
        thousands(within_s),
        thousands(faster),
        (within_s / faster).ceil()
    )));
}

/// Scrolls the first element `selector` finds into view, after the page
/// has drawn what the last command changed, when none of it is in view: on
/// a short screen, scrolling to show all of it would push the step just
/// pressed, its verdict and the canvas out of view.
fn bring_into_view(selector: &'static str) {
    gloo_timers::callback::Timeout::new(50, move || {
        let height = gloo_utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
        let element = gloo_utils::document().query_selector(selector).ok().flatten();
        let hidden = |el: &web_sys::Element| {
            let r = el.get_bounding_client_rect();
            r.bottom() <= 0.0 || r.top() >= height
        };
        if let Some(el) = element.filter(hidden) {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&options);
        }
    })
    .forget();
}

fn default_scenario() -> Scenario {
    Scenario::from_json(sluice_engine::DEFAULT_SCENARIO).expect("the built-in scenario is valid")
}

/// Does a command and says what came of it, or why it was refused (the
/// notice says so too).
type Dispatch = Rc<dyn Fn(Command) -> Result<Applied, PlayError>>;

/// The speed menu's value as the engine's pacing reads it (the menu offers
/// infinity for "as fast as possible").
fn pace(speed: f64) -> Speed {
    if speed.is_finite() {
        Speed::Times(speed)
    } else {
        Speed::Fastest
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let opening = use_memo((), |_| {
        let (scenario, origin, problem) = keep::opening_scenario(default_scenario());
        let welcome = match origin {
            keep::Origin::Shared if scenario.name.trim().is_empty() => Some("Opened the scenario from the share link.".to_string()),
            keep::Origin::Shared => Some(format!("Opened \"{}\" from the share link.", scenario.name)),
            keep::Origin::Saved => Some("Your last scenario was restored from this browser.".to_string()),
            keep::Origin::BuiltIn => None,
        };
        let first_visit = matches!(origin, keep::Origin::BuiltIn);
        let earlier = matches!(origin, keep::Origin::Shared) && keep::earlier_work().is_some();
        (RefCell::new(Some(scenario)), problem, welcome, first_visit, earlier)
    });
    let session = use_mut_ref(|| Session::new(opening.0.borrow_mut().take().unwrap_or_else(default_scenario), default_scenario));
    let playing = use_state(|| true);
    let speed = use_state(|| 1.0f64);
    // The selected nodes, by index; the last is the one the inspector shows.
    let selected = use_state(|| {
        let s = session.borrow();
        s.play.scenario().nodes.iter().position(|n| n.block.kind() == Kind::Queue).into_iter().collect::<Vec<usize>>()
    });
    // Why the last edit was refused, until the next one.
    let notice = use_state(|| opening.1.clone());
    // A passing message (a link copied, a file imported), unlike `notice`.
    let status = use_state(|| opening.2.clone());
    let shared = use_state(|| None::<String>);
    // Whether the work saved before a share link opened is kept, to restore.
    let earlier = use_state(|| opening.4);
    // An import's file reader, kept alive until it has read the file.
    let reader = use_mut_ref(|| None::<gloo_file::callbacks::FileReader>);
    let behind = use_state(|| false);
    // The chart on show: only its lines are worked out.
    let chart_kind = use_state(|| ChartKind::Depth);
    let redraw = use_force_update();
    let panels = use_mut_ref(PanelCache::default);
    // What changes between panel refreshes while playing: the clock and the
    // dots of A and B. A frame with no panel due renders their components
    // alone.
    let clock = use_memo((), |_| Live::new(ClockReading::default()));
    let motion_live = use_memo((), |_| Live::new(Rc::<Motion>::default()));
    let b_motion_live = use_memo((), |_| Live::new(Rc::<Motion>::default()));
    // The lesson picker: the first thing a new visitor sees.
    let picking = use_state(|| opening.3);
    // The glossary, when open, and the word it was opened at.
    let glossary = use_state(|| None::<Option<String>>);
    // What the Sweep panel is open on, and how many orders it was given.
    let sweep_order = use_state(|| None::<SweepOrder>);
    let sweep_serial = use_mut_ref(|| 0u32);

    use_player(Player {
        session: session.clone(),
        playing: playing.clone(),
        speed: pace(*speed),
        behind: behind.clone(),
        panels: panels.clone(),
        clock: clock.clone(),
        motion: motion_live.clone(),
        b_motion: b_motion_live.clone(),
        redraw: redraw.clone(),
    });

    // Every command goes through here. Made once: callbacks built on it stay
    // equal from frame to frame, so the panels they are given are not drawn
    // again for their sake.
    let dispatch: Dispatch = (*use_memo((), {
        let (session, playing, notice, status, selected, redraw, earlier) =
            (session.clone(), playing.clone(), notice.clone(), status.clone(), selected.clone(), redraw.clone(), earlier.clone());
        move |_| -> Dispatch {
            Rc::new(move |command: Command| {
                let edits = command.edits();
                let mut s = session.borrow_mut();
                let result = s.apply(command);
                let mut displaced = false;
                match &result {
                    Ok(applied) => {
                        let saved = if applied.edited { keep::autosave(s.play.scenario()) } else { Ok(false) };
                        displaced = saved == Ok(true);
                        let unsaved = saved.err();
                        if let Some(ids) = &applied.select {
                            selected.set(ids.iter().filter_map(|id| s.play.index_of(id)).collect());
                        }
                        if let Some(why) = unsaved {
                            notice.set(Some(format!(
                                "Your last change was not saved in this browser: {why}. It stays on the page; export the scenario to keep it."
                            )));
                        } else if edits {
                            notice.set(None);
                        }
                    }
                    Err(why) => notice.set(Some(why.to_string())),
                }
                if s.resumes() {
                    playing.set(true);
                }
                drop(s);
                if displaced {
                    // Another tab had saved its own work: kept aside.
                    earlier.set(true);
                    status.set(Some(
                        "Another tab had saved its scenario in this browser since this one last did: it is kept aside (Restore it), and this tab's is saved now.".into(),
                    ));
                } else if edits {
                    status.set(None);
                }
                redraw.force_update();
                result
            })
        }
    }))
    .clone();
    let command = |make: fn() -> Command| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: ()| drop(dispatch(make())))
    };

    let on_play = {
        let (playing, session) = (playing.clone(), session.clone());
        Callback::from(move |_| {
            if *playing {
                // Paused, A and B are read at one instant.
                session.borrow_mut().play.catch_up();
            }
            playing.set(!*playing)
        })
    };
    let on_speed = use_callback(speed.clone(), |s: f64, speed| speed.set(s));
    let (on_reset, on_step) = (command(|| Command::Reset), command(|| Command::Step));
    let (undo, redo) = (command(|| Command::Undo), command(|| Command::Redo));
    let on_seed = {
        let (dispatch, notice) = (dispatch.clone(), notice.clone());
        Callback::from(move |text: String| match text.trim().parse::<u64>() {
            Ok(seed) => drop(dispatch(Command::SetSeed(seed))),
            Err(_) => notice.set(Some(format!("The seed must be a whole number from 0 to {}, not \"{}\".", u64::MAX, text.trim()))),
        })
    };
    let on_export = {
        let session = session.clone();
        Callback::from(move |_: ()| {
            let s = session.borrow();
            keep::download(&keep::file_name(s.play.scenario()), &s.play.scenario().to_json_pretty());
        })
    };
    let on_import = {
        let (dispatch, notice, status, selected, reader) = (dispatch.clone(), notice.clone(), status.clone(), selected.clone(), reader.clone());
        Callback::from(move |file: web_sys::File| {
            let name = file.name();
            let (dispatch, notice, status, selected) = (dispatch.clone(), notice.clone(), status.clone(), selected.clone());
            let done = move |text: Result<String, String>| match text.map_err(|why| PlayError::Refused(EditError::Unreadable(why))).and_then(|text| dispatch(Command::Import(text))) {
                // The same scenario as the one on the canvas changes nothing,
                // and leaves nothing to undo.
                Ok(applied) if !applied.edited => {
                    status.set(Some(format!("{name} is the scenario already here: nothing changed.")));
                }
                Ok(_) => {
                    selected.set(Vec::new());
                    status.set(Some(format!("Opened {name}. Undo (Ctrl+Z) brings back what was there before.")));
                }
                Err(why) => {
                    status.set(None);
                    // Said once: the reason ends without a full stop of its own.
                    let why = why.to_string();
                    notice.set(Some(format!("{name} was not imported: {}. Your work is unchanged.", why.trim_end_matches('.'))));
                }
            };
            *reader.borrow_mut() = keep::read_file(file, done);
        })
    };
    let on_share = {
        let (session, shared) = (session.clone(), shared.clone());
        Callback::from(move |_: ()| {
            let link = keep::share_link(session.borrow().play.scenario());
            keep::copy_to_clipboard(&link);
            shared.set(Some(link));
        })
    };
    let on_close_share = use_callback(shared.clone(), |_: (), shared| shared.set(None));
    // Work kept aside (from before a share link opened, or another tab's):
    // back as one undoable edit.
    let on_restore_earlier = {
        let (dispatch, earlier, status, selected) = (dispatch.clone(), earlier.clone(), status.clone(), selected.clone());
        Callback::from(move |_: ()| {
            let Some(text) = keep::earlier_work() else {
                earlier.set(false);
                return;
            };
            if dispatch(Command::Import(text.clone())).is_ok() {
                keep::forget_restored(&text);
                earlier.set(keep::earlier_work().is_some());
                selected.set(Vec::new());
                status.set(Some("Your earlier work is back. Undo (Ctrl+Z) brings back what was here before.".into()));
            }
        })
    };
    let on_forget_earlier = use_callback(earlier.clone(), |_: (), earlier| {
        keep::forget_earlier();
        earlier.set(keep::earlier_work().is_some());
    });
    // A share link pasted into this tab's address bar changes only the
    // fragment: the page opens it as it would on loading.
    {
        let (dispatch, earlier, status, notice, selected) = (dispatch.clone(), earlier.clone(), status.clone(), notice.clone(), selected.clone());
        use_effect_with((), move |_| {
            let listener = gloo_events::EventListener::new(&gloo_utils::window(), "hashchange", move |_| match keep::pasted_link() {
                None => {}
                Some(Ok(scenario)) => {
                    let text = sluice_engine::plumbing::json_read::to_value(&scenario).to_string();
                    if dispatch(Command::Import(text)).is_ok() {
                        selected.set(Vec::new());
                        earlier.set(keep::earlier_work().is_some());
                        let name = if scenario.name.trim().is_empty() { "the scenario".to_string() } else { format!("\"{}\"", scenario.name) };
                        status.set(Some(format!("Opened {name} from the share link. Undo (Ctrl+Z) brings back what was there before.")));
                    }
                }
                Some(Err(why)) => notice.set(Some(format!("The share link could not be opened: {why}"))),
            });
            move || drop(listener)
        });
    }
    let on_select = use_callback(selected.clone(), |change: Select, selected| selected.set(change.applied_to(selected)));
    let on_close = use_callback(on_select.clone(), |_: (), on_select| on_select.emit(Select::Clear));
    let on_kind = use_callback(chart_kind.clone(), |k: ChartKind, chart_kind| chart_kind.set(k));
    // Stable from frame to frame (`dispatch` is made once), as the canvas
    // and the inspector are drawn again only when their props change.
    let on_reconfigure = use_callback((), {
        let dispatch = dispatch.clone();
        move |(id, block, continues): (String, BlockSpec, bool), _| {
            let command = if continues { Command::Adjust { id, block } } else { Command::SetBlock { id, block } };
            dispatch(command).map(drop).map_err(|why| why.to_string())
        }
    });
    let on_move = use_callback((), {
        let (dispatch, session) = (dispatch.clone(), session.clone());
        move |(indices, dx, dy): (Vec<usize>, f64, f64), _| {
            let ids = session.borrow().ids_of(&indices);
            let _ = dispatch(Command::Move { ids, dx, dy });
        }
    });
    let on_connect = use_callback((), {
        let (dispatch, session) = (dispatch.clone(), session.clone());
        move |(from, to): (usize, usize), _| {
            // (The session is borrowed for the ids alone: the command borrows it again.)
            let ids = session.borrow().ids_of(&[from, to]);
            if let Ok([from, to]) = <[String; 2]>::try_from(ids) {
                let _ = dispatch(Command::Connect { from, to });
            }
        }
    });
    // "Connect to…" and "Disconnect" in the inspector, for the selected block.
    let on_wire = |connect: bool| {
        let (dispatch, session, selected) = (dispatch.clone(), session.clone(), selected.clone());
        Callback::from(move |to: String| {
            let Some(from) = selected.last().and_then(|&i| session.borrow().ids_of(&[i]).pop()) else { return };
            let _ = dispatch(if connect { Command::Connect { from, to } } else { Command::Disconnect { from, to } });
        })
    };
    let (on_connect_to, on_disconnect) = (on_wire(true), on_wire(false));
    // Where a block dropped at a point of the screen lands: on the canvas
    // (its point there), and on an edge when near one (a block that takes
    // a message in goes between the edge's ends).
    let drop_target = {
        let session = session.clone();
        move |kind: Kind, x: f64, y: f64| -> Option<Landing> {
            let svg = gloo_utils::document().query_selector("svg.graph").ok().flatten();
            let svg = svg.filter(|svg| over_canvas(svg, x, y))?;
            let at = client_to_canvas(&svg, x, y).map(|(x, y)| Position { x: x.round(), y: y.round() });
            let on_edge = at.filter(|_| kind != Kind::Producer).and_then(|p| edge_under(session.borrow().play.scenario(), (p.x, p.y)));
            Some((at, on_edge))
        }
    };
    // The edge a block being dragged would go on, drawn marked.
    let drop_edge = use_state_eq(|| None::<(String, String)>);
    let on_drop = {
        let (dispatch, drop_target, drop_edge) = (dispatch.clone(), drop_target.clone(), drop_edge.clone());
        Callback::from(move |(kind, x, y): (Kind, f64, f64)| {
            drop_edge.set(None);
            let command = match drop_target(kind, x, y) {
                None => return,
                Some((Some(at), Some((from, to)))) => Command::Insert { kind, at, from, to },
                Some((at, _)) => Command::Add { kind, at },
            };
            let _ = dispatch(command);
        })
    };
    let lands = {
        let drop_edge = drop_edge.clone();
        Callback::from(move |(kind, x, y): (Kind, f64, f64)| {
            let edge = drop_target(kind, x, y).and_then(|(_, edge)| edge);
            drop_edge.set(edge.clone());
            edge.map(|(from, to)| format!("between {from} and {to}"))
        })
    };
    let on_add = {
        let dispatch = dispatch.clone();
        Callback::from(move |kind: Kind| drop(dispatch(Command::Add { kind, at: None })))
    };
    let on_selected = |make: fn(Vec<String>) -> Command, clears: bool| {
        let (dispatch, session, selected) = (dispatch.clone(), session.clone(), selected.clone());
        Callback::from(move |_: ()| {
            let ids = session.borrow().ids_of(&selected);
            if !ids.is_empty() && dispatch(make(ids)).is_ok() && clears {
                selected.set(Vec::new());
            }
        })
    };
    let (delete, duplicate) = (on_selected(Command::Remove, true), on_selected(Command::Duplicate, false));
    let select_all = {
        let (session, selected) = (session.clone(), selected.clone());
        Callback::from(move |_: ()| selected.set((0..session.borrow().play.scenario().nodes.len()).collect()))
    };
    use_shortcuts(
        ((*selected).clone(), *playing),
        Shortcuts { undo: undo.clone(), redo: redo.clone(), duplicate: duplicate.clone(), delete: delete.clone(), play: on_play.clone(), select_all, select_none: on_close.clone() },
    );
    let on_new = {
        let (dispatch, selected, status) = (dispatch.clone(), selected.clone(), status.clone());
        Callback::from(move |_: ()| {
            if dispatch(Command::New).is_ok() {
                selected.set(Vec::new());
                status.set(Some("A new, empty canvas: drag a producer onto it to begin. Undo (Ctrl+Z) brings back what was there.".into()));
            }
        })
    };
    let on_describe = use_callback((), {
        let dispatch = dispatch.clone();
        move |(name, description): (String, String), _| drop(dispatch(Command::Describe { name, description }))
    });

    let on_pick = {
        let (dispatch, picking, playing, session) = (dispatch.clone(), picking.clone(), playing.clone(), session.clone());
        let (speed, status) = (speed.clone(), status.clone());
        Callback::from(move |index: usize| {
            if dispatch(Command::PickLesson(index)).is_ok() {
                picking.set(false);
                playing.set(true);
                // A first step that only watches began with the lesson: a
                // long one sets its speed as a step tried does.
                let watching = {
                    let s = session.borrow();
                    let run = s.play.lesson();
                    let first = run.and_then(|run| s.play.lessons().get(run.index)?.text.steps.first().map(|step| step.within_s));
                    first.filter(|_| run.is_some_and(|run| matches!(run.states.first(), Some(StepState::Watching { .. }))))
                };
                if let Some(within_s) = watching {
                    speed_to_watch(0, within_s, &speed, &status);
                }
            }
        })
    };
    let on_try = {
        let (dispatch, session, playing, chart_kind) = (dispatch.clone(), session.clone(), playing.clone(), chart_kind.clone());
        let (sweep_order, sweep_serial) = (sweep_order.clone(), sweep_serial.clone());
        let (speed, status, selected) = (speed.clone(), status.clone(), selected.clone());
        Callback::from(move |k: usize| {
            // The chart shows what the step checks first, of the block it
            // checks; a step watched for long sets a speed that shows it
            // in a fitting time.
            let (first, within_s, sweeps, panel) = {
                let s = session.borrow();
                let lesson = s.play.lesson().and_then(|run| s.play.lessons().get(run.index));
                let step = lesson.and_then(|l| l.text.steps.get(k));
                let first = step.and_then(|step| step.check.first()).map(|c| (c.figure.clone(), s.play.index_of(&c.node)));
                (first, step.map_or(0.0, |step| step.within_s), step.is_some_and(|step| step.sweep.is_some()), step.and_then(|step| step.panel.clone()))
            };
            if let Some(kind) = first.as_ref().and_then(|(figure, _)| chart_for(figure)) {
                chart_kind.set(kind);
            }
            if let Some(node) = first.as_ref().and_then(|(_, node)| *node) {
                selected.set(vec![node]);
            }
            if dispatch(Command::TryStep(k)).is_ok() {
                playing.set(true);
                if !sweeps {
                    speed_to_watch(k, within_s, &speed, &status);
                }
                // What the step talks about comes into view.
                let wanted = match panel.as_deref() {
                    Some("theory") => "[data-testid=\"theory-panel\"]",
                    Some("canvas") => "svg.graph",
                    _ if sweeps => "[data-testid=\"sweep-panel\"]",
                    _ => ".chart",
                };
                bring_into_view(wanted);
            }
            // A sweep step hands out its sweep: the panel runs it.
            let s = session.borrow();
            if let Some((step, request)) = s.play.lesson_sweep().filter(|(step, _)| *step == k) {
                let lesson = s.play.lesson().and_then(|run| s.play.lessons().get(run.index));
                let metric = lesson.and_then(|l| l.text.steps.get(k)?.sweep.as_ref()).map(|w| w.metric.clone()).unwrap_or_default();
                *sweep_serial.borrow_mut() += 1;
                sweep_order.set(Some(SweepOrder {
                    serial: *sweep_serial.borrow(),
                    name: request.vary.first().map(|v| v.name.clone()).unwrap_or_default(),
                    form: SweepForm::of_request(request, &metric),
                    lesson: Some((step, request.clone())),
                }));
            }
        })
    };
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
    let on_lesson_close = command(|| Command::CloseLesson);
    // "Sweep this" in the inspector opens the panel on that field.
    let on_sweep = use_callback((), {
        let (session, sweep_order, sweep_serial) = (session.clone(), sweep_order.clone(), sweep_serial.clone());
        move |name: String, _| {
            *sweep_serial.borrow_mut() += 1;
            let form = SweepForm::around(&name, session.borrow().play.scenario());
            sweep_order.set(Some(SweepOrder { serial: *sweep_serial.borrow(), name, form, lesson: None }));
        }
    });
    let on_sweep_close = use_callback(sweep_order.clone(), |_: (), order| order.set(None));
    // A point of the sweep loaded into the scenario: one undoable edit.
    let on_use_value = use_callback((), {
        let (dispatch, session, notice) = (dispatch.clone(), session.clone(), notice.clone());
        move |(name, value): (String, f64), _| {
            let block = {
                let s = session.borrow();
                sluice_engine::sweep::with_value(s.play.scenario(), &name, value)
            };
            match block {
                Ok((id, block)) => drop(dispatch(Command::SetBlock { id, block })),
                Err(why) => notice.set(Some(why)),
            }
        }
    });
    let on_sweep_finished = use_callback((), {
        let dispatch = dispatch.clone();
        move |(step, result): (usize, sluice_engine::sweep::SweepResult), _| drop(dispatch(Command::JudgeSweep { step, result }))
    });
    let on_all_lessons = use_callback(picking.clone(), |_: (), picking| picking.set(true));
    let open_glossary = OpenGlossary(use_callback(glossary.clone(), |word: Option<String>, glossary| glossary.set(Some(word))));
    let on_glossary_close = use_callback(glossary.clone(), |_: (), glossary| glossary.set(None));
    let on_picker_close = use_callback(picking.clone(), |_: (), picking| picking.set(false));
    // A block picked on B's canvas selects the same block of A.
    let on_select_b = use_callback(on_select.clone(), {
        let session = session.clone();
        move |pick: Select, on_select| {
            let s = session.borrow();
            let to_a = |i: usize| s.play.index_of(&s.play.variant_b()?.sim.scenario().nodes.get(i)?.id);
            if let Some(pick) = pick.map(to_a) {
                on_select.emit(pick);
            }
        }
    });
    // Made once: the picker and the open lesson's panel share it.
    let lesson_texts = (*use_memo((), {
        let session = session.clone();
        move |_| Rc::new(session.borrow().play.lessons().iter().map(|l| l.text.clone()).collect::<Vec<LessonText>>())
    }))
    .clone();

    // The scenario the Sweep panel sweeps: copied once per accepted edit,
    // not on every render.
    let sweep_scenario = (*use_memo(session.borrow().play.revision(), {
        let session = session.clone();
        move |_| Rc::new(session.borrow().play.scenario().clone())
    }))
    .clone();
    // The blocks the selected one could feed: worked out once per edit
    // and selection, not on every frame.
    let candidates = (*use_memo((session.borrow().play.revision(), selected.last().copied()), {
        let session = session.clone();
        move |(_, selected): &(u64, Option<usize>)| {
            let s = session.borrow();
            let scenario = s.play.scenario();
            let Some(from) = selected.and_then(|i| scenario.nodes.get(i)) else { return Rc::new(Vec::new()) };
            let feeds = |to: &str| scenario.edges.iter().any(|e| e.from == from.id && e.to == to);
            Rc::new(scenario.nodes.iter().filter(|n| n.id != from.id && n.block.takes_input() && !feeds(&n.id)).map(|n| n.id.clone()).collect::<Vec<String>>())
        }
    }))
    .clone();
    let s = session.borrow();
    let scenario = s.play.scenario();
    let selection: Vec<usize> = selected.iter().copied().filter(|&i| i < scenario.nodes.len()).collect();
    let selected_index = selection.last().copied();
    let shown = panels.borrow_mut().refresh(&s, &selection, *chart_kind, *playing, now_ms());
    let b_view = s.play.variant_b().zip(shown.b_snapshot.clone()).zip(s.b.as_ref()).map(|((b, snapshot), notes)| {
        let compared = s.ids_of(&selection);
        let selected = compared.iter().filter_map(|id| b.sim.scenario().node_index(id)).collect();
        VariantView { labels: b.labels.clone(), snapshot, motion: b_motion_live.clone(), dropping: notes.motion.dropping.clone(), selected, compared }
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
        let time_s = s.play.run().map_or(0.0, |sim| sim.now().as_secs_f64());
        clock.set(ClockReading { time_s, events: s.events() });
        motion_live.set(s.a.motion.clone());
        if let Some(b) = &s.b {
            b_motion_live.set(b.motion.clone());
        }
    }
    let open_lesson = s.play.lesson().map(|run| (run.index, run.states.clone(), run.tries.clone()));
    let sweep = (*sweep_order).clone().map(|order| (order, sweep_scenario.clone()));
    let editor = s.play.editor();
    let (can_undo, can_redo, seed) = (editor.can_undo(), editor.can_redo(), scenario.seed.unwrap_or(1));
    let (name, description) = (AttrValue::from(scenario.name.clone()), AttrValue::from(scenario.description.clone()));
    let (comparing, stall, missing, dropping) = (s.play.variant_b().is_some(), s.play.stall(), s.play.missing(), s.a.motion.dropping.clone());
    let running = s.play.run().is_some();
    drop(s);

    // Behind an open dialog (the lesson picker, the glossary) the page is inert.
    let modal = *picking || glossary.is_some();
    let on_glossary = open_glossary.0.reform(|_: MouseEvent| None);
    html! {
        <ContextProvider<OpenGlossary> context={open_glossary}>
        <div class="app">
            <header class="topbar" inert={modal}>
                <div class="brand">
                    <span class="logo" aria-hidden="true">{"≋"}</span>
                    <span class="title">{"Sluice"}</span>
                    <span class="subtitle" data-testid="scenario-title">{ if name.is_empty() { AttrValue::from("Untitled") } else { name.clone() } }</span>
                </div>
                <button class="lessons-button" data-testid="lessons" onclick={on_all_lessons.reform(|_: MouseEvent| ())}>{"☰ Lessons"}</button>
                <button class="lessons-button glossary-button" data-testid="glossary-open" onclick={on_glossary}>{"Glossary"}</button>
                <Controls playing={*playing} runs={running} speed={*speed} clock={clock.clone()} behind={*behind} {seed} {on_play} {on_step} {on_speed} {on_reset} {on_seed} />
            </header>
            <main class="workspace" inert={modal}>
                <aside class="toolbox">
                    <Palette {on_drop} {on_add} {lands} />
                </aside>
                // Beside the canvas on a wide screen; above it on a narrow one.
                if let Some((index, states, tries)) = open_lesson {
                    <div class="lesson-area">
                        <LessonPanel lessons={lesson_texts.clone()} {index} {states} {tries} now_s={shown.snapshot.time_s} {on_try} on_all={on_all_lessons} on_close={on_lesson_close} />
                    </div>
                }
                <section class="stage">
                    <Toolbar {on_new} {can_undo} {can_redo} selected={!selection.is_empty()} {comparing} on_undo={undo} on_redo={redo} on_duplicate={duplicate}
                        on_delete={delete} {on_export} {on_import} {on_share} on_compare={on_compare.clone()} />
                    <Messages shared={(*shared).clone()} {on_close_share} status={(*status).clone()} notice={(*notice).clone()} {stall} {missing} {running}
                        earlier={*earlier} {on_restore_earlier} {on_forget_earlier} />
                    <Canvases snapshot={shown.snapshot.clone()} motion={motion_live.clone()} {dropping} selected={selection.clone()} on_select={on_select.clone()}
                        drop_edge={(*drop_edge).clone()}
                        {on_move} {on_connect} b={b_view} {on_select_b} on_close_compare={on_compare} />
                    if let Some((lines, nodes, strips)) = shown.charts {
                        <Charts kind={*chart_kind} {on_kind} {lines} {nodes} {strips} now_s={shown.chart_now_s} />
                    }
                    if let Some((order, scenario)) = sweep {
                        <SweepPanel {order} {scenario} {on_use_value} on_finished={on_sweep_finished} on_close={on_sweep_close} />
                    }
                </section>
                <aside class="sidebar">
                    if let Some((queue, theory)) = selected_theory {
                        <TheoryPanel {queue} {theory} />
                    }
                    <Inspector spec={selected_spec} outputs={selected_outputs} {on_reconfigure} {on_sweep} {on_close} {name} {description} {on_describe}
                        {candidates} {on_connect_to} {on_disconnect} />
                    <Counters snapshot={shown.snapshot.clone()} />
                    <EventLog log={shown.log} drops={shown.drops} selected={selection} {on_select} playing={*playing} />
                </aside>
            </main>
            if *picking {
                <LessonPicker lessons={lesson_texts} {on_pick} on_close={on_picker_close} />
            }
            if let Some(word) = (*glossary).clone() {
                <Glossary {word} on_close={on_glossary_close} />
            }
        </div>
        </ContextProvider<OpenGlossary>>
    }
}
