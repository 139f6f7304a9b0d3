//! Keeping work: the save in this browser after each edit, export to a
//! file, import one, share a link (and open one pasted into this tab), and
//! bring back work kept aside (from before a share link opened, or another
//! tab's). Each import is one undoable edit.
//!
//! The save follows the edits by `SAVE_AFTER_MS`: a slider's drag or a run
//! of typing is saved once it pauses, not at every tick (a save writes the
//! whole scenario). A save still due when the page is hidden or left is
//! made then.

use sluice_engine::config::{Done, Imported, Job, Product};

use crate::browser::worker::{ConfigWorker, LogRead, LogWorker};
use sluice_engine::scenario::{BlockSpec, Kind, NodeSpec, Scenario, MAX_SCENARIO_BYTES};
use sluice_engine::editor::EditError;
use sluice_engine::playground::{Applied, Command, PlayError};
use yew::prelude::*;

use crate::browser::keep;

use super::dispatch::Dispatch;
use super::Page;

/// How long after the last edit the scenario is saved.
pub(crate) const SAVE_AFTER_MS: u32 = 300;

/// The save due, if any.
#[derive(Default)]
pub(crate) struct Saving {
    /// The timer of the save; replaced (so cancelled) by the next edit's.
    /// A timer that fired is left here until then: it is not dropped while
    /// it runs.
    timer: Option<gloo_timers::callback::Timeout>,
    /// Whether a save is due.
    due: bool,
}

impl Page {
    /// Saves the scenario `SAVE_AFTER_MS` after this edit, unless another
    /// edit comes first.
    pub(crate) fn save_soon(&self) {
        let page = self.clone();
        let timer = gloo_timers::callback::Timeout::new(SAVE_AFTER_MS, move || page.save_now());
        let mut saving = self.saving.borrow_mut();
        saving.timer = Some(timer);
        saving.due = true;
    }

    /// Makes the save due now, if one is; says when it could not be made,
    /// and when it set another tab's work aside.
    pub(crate) fn save_now(&self) {
        // In the middle of a command (or of a failure inside one), the
        // scenario is not to be read: the save stays due, and is tried
        // again shortly (with no further edit, nothing else would make
        // it). Its own timer is not replaced here: it is running.
        let Ok(session) = self.session.try_borrow() else {
            let page = self.clone();
            gloo_timers::callback::Timeout::new(SAVE_AFTER_MS, move || page.save_now()).forget();
            return;
        };
        if !std::mem::take(&mut self.saving.borrow_mut().due) {
            return;
        }
        let saved = keep::autosave(session.play.scenario(), super::lessons::open_lesson_link(&session).as_ref());
        drop(session);
        match saved {
            Err(why) => self.notice.set(Some(format!(
                "Your last change was not saved in this browser: {why}. It stays on the page; export the scenario to keep it."
            ))),
            Ok(true) => {
                // Another tab had saved its own work: kept aside.
                self.earlier.set(true);
                self.status.set(Some(
                    "Another tab had saved its scenario in this browser since this one last did: it is kept aside (Restore it), and this tab's is saved now.".into(),
                ));
            }
            Ok(false) => {}
        }
    }
}

/// Puts `text` in place of the scenario (one undoable edit): what the
/// edit did, and the words that say it closed the lesson open, if it did
/// (a lesson's steps are about its own scenario).
fn import(page: &Page, dispatch: &Dispatch, text: String) -> Result<(Applied, &'static str), PlayError> {
    let open = page.session.borrow().play.lesson().is_some();
    let applied = dispatch(Command::Import(text))?;
    let closed = open && page.session.borrow().play.lesson().is_none();
    Ok((applied, if closed { " The lesson is closed: ☰ Lessons opens it again." } else { "" }))
}

/// What the toolbar and the messages above the canvas are given.
pub(crate) struct Keeping {
    /// An access log to replay, dropped on the canvas or chosen.
    pub on_log: Callback<web_sys::File>,
    /// The share link just made, while its box is open.
    pub shared: Option<String>,
    pub on_export: Callback<()>,
    pub on_import: Callback<web_sys::File>,
    pub on_share: Callback<()>,
    pub on_close_share: Callback<()>,
    pub on_close_banner: Callback<()>,
    pub on_restore_earlier: Callback<()>,
    pub on_forget_earlier: Callback<()>,
    /// The configuration import's dialog, while open: why its last try was
    /// refused, if it was.
    pub config: Option<Option<String>>,
    /// A configuration is being read in the worker.
    pub importing: bool,
    pub on_open_config: Callback<()>,
    pub on_close_config: Callback<()>,
    pub on_import_config: Callback<(Product, String)>,
}

#[hook]
pub(crate) fn use_keeping(page: &Page, dispatch: &Dispatch) -> Keeping {
    let shared = use_state(|| None::<String>);
    // An import's file reader, kept alive until it has read the file.
    let reader = use_mut_ref(|| None::<gloo_file::callbacks::FileReader>);
    let on_export = {
        let (session, page) = (page.session.clone(), page.clone());
        Callback::from(move |_: ()| {
            let s = session.borrow();
            let text = s.play.scenario().to_json_pretty();
            keep::download(&keep::file_name(s.play.scenario()), &text);
            // A replayed log can make a file larger than a scenario file
            // Sluice opens: said, so the file is not mistaken for one.
            if text.len() > MAX_SCENARIO_BYTES {
                page.notice.set(Some(format!(
                    "Exported {:.1} MB: more than the {} MB a scenario file may be to open again here or with sluice run, because of the log it replays. To replay the log again, drop it on the canvas or give it to sluice run --arrivals.",
                    text.len() as f64 / 1e6,
                    MAX_SCENARIO_BYTES / 1_048_576
                )));
            }
        })
    };
    let on_import = {
        let (dispatch, page) = (dispatch.clone(), page.clone());
        Callback::from(move |file: web_sys::File| {
            let name = file.name();
            let (dispatch, page) = (dispatch.clone(), page.clone());
            let done = move |text: Result<String, String>| match text.map_err(|why| PlayError::Refused(EditError::Unreadable(why))).and_then(|text| import(&page, &dispatch, text)) {
                // The same scenario as the one on the canvas changes nothing,
                // and leaves nothing to undo.
                Ok((applied, _)) if !applied.edited => {
                    page.status.set(Some(format!("{name} is the scenario already here: nothing changed.")));
                }
                Ok((_, closed)) => {
                    page.selected.set(Vec::new());
                    page.status.set(Some(format!("Opened {name}. Undo (Ctrl+Z) brings back what was there before.{closed}")));
                }
                Err(why) => {
                    page.status.set(None);
                    // Said once: the reason ends without a full stop of its own.
                    let why = why.to_string();
                    page.notice.set(Some(format!("{name} was not imported: {}. Your work is unchanged.", why.trim_end_matches('.'))));
                }
            };
            *reader.borrow_mut() = keep::read_file(file, done);
        })
    };
    let on_share = {
        let (session, shared, playing) = (page.session.clone(), shared.clone(), page.playing.clone());
        let notice = page.notice.clone();
        Callback::from(move |_: ()| {
            let instants = keep::replayed_instants(session.borrow().play.scenario());
            if instants > keep::KEPT_INSTANTS {
                let n = |v: usize| sluice_engine::thousands(v as f64);
                return notice.set(Some(format!("No link made: the scenario replays {} instants, more than a link carries ({}). Export it instead.", n(instants), n(keep::KEPT_INSTANTS))));
            }
            // Paused, the instant shown goes with the link (it opens there,
            // paused), unless the run took live changes, which the file
            // does not replay; playing, the scenario alone.
            let s = session.borrow();
            let at = s.play.shown().map(|sim| sim.now()).filter(|t| !*playing && *t > sluice_engine::SimTime::ZERO && !s.play.changed_live());
            let link = keep::share_link(s.play.scenario(), at);
            drop(s);
            keep::copy_to_clipboard(&link);
            shared.set(Some(link));
        })
    };
    let on_close_share = use_callback(shared.clone(), |_: (), shared| shared.set(None));
    let on_close_banner = use_callback(page.banner.clone(), |_: (), banner| banner.set(None));
    // Work kept aside: back as one undoable edit.
    let on_restore_earlier = {
        let (dispatch, page) = (dispatch.clone(), page.clone());
        Callback::from(move |_: ()| {
            page.save_now();
            let Some(text) = keep::earlier_work() else {
                page.earlier.set(false);
                return;
            };
            if let Ok((_, closed)) = import(&page, &dispatch, text.clone()) {
                keep::forget_restored(&text);
                page.earlier.set(keep::earlier_work().is_some());
                page.selected.set(Vec::new());
                page.status.set(Some(format!("Your earlier work is back. Undo (Ctrl+Z) brings back what was here before.{closed}")));
            }
        })
    };
    let on_forget_earlier = use_callback(page.earlier.clone(), |_: (), earlier| {
        keep::forget_earlier();
        earlier.set(keep::earlier_work().is_some());
    });
    // A save still due is made when the page is hidden or left.
    {
        let page = page.clone();
        use_effect_with((), move |_| {
            // (Shown again, nothing is due: the save was made on hiding.)
            let hidden = {
                let page = page.clone();
                gloo_events::EventListener::new(&gloo_utils::document(), "visibilitychange", move |_| page.save_now())
            };
            let leaving = gloo_events::EventListener::new(&gloo_utils::window(), "pagehide", move |_| page.save_now());
            move || drop((hidden, leaving))
        });
    }
    // A share link pasted into this tab's address bar changes only the
    // fragment: the page opens it as it would on loading.
    {
        let (dispatch, page) = (dispatch.clone(), page.clone());
        use_effect_with((), move |_| {
            let listener = gloo_events::EventListener::new(&gloo_utils::window(), "hashchange", move |_| {
                // The work on the page is what a link sets aside: saved first.
                page.save_now();
                match keep::pasted_link() {
                    // (A lesson's link is the lessons' to open: `lessons.rs`.)
                    None => {}
                    Some(Ok((scenario, at))) => {
                        let text = sluice_engine::to_value(&scenario).to_string();
                        if let Ok((_, closed)) = import(&page, &dispatch, text) {
                            if let Some(at) = at {
                                page.open_at(&dispatch, at);
                            }
                            page.selected.set(Vec::new());
                            page.earlier.set(keep::earlier_work().is_some());
                            page.banner.set(keep::banner(&scenario));
                            let name = if scenario.name.trim().is_empty() { "the scenario".to_string() } else { format!("\"{}\"", scenario.name) };
                            page.status.set(Some(format!("Opened {name} from the share link. Undo (Ctrl+Z) brings back what was there before.{closed}")));
                        }
                    }
                    Some(Err(why)) => page.notice.set(Some(format!("The link could not be opened: {why}"))),
                }
            });
            move || drop(listener)
        });
    }
    let config = use_state(|| None::<Option<String>>);
    // The configuration is read in the engine's worker; its answer is
    // applied when it comes (or shown in the dialog). Closing the dialog
    // abandons it.
    let reading = use_mut_ref(|| None::<ConfigWorker>);
    let importing = use_state(|| false);
    let on_open_config = use_callback(config.clone(), |_: (), config| config.set(Some(None)));
    let on_close_config = {
        let (config, reading, importing) = (config.clone(), reading.clone(), importing.clone());
        Callback::from(move |_: ()| {
            reading.borrow_mut().take();
            importing.set(false);
            config.set(None);
        })
    };
    let on_imported = {
        let (dispatch, page, config, reading, importing) = (dispatch.clone(), page.clone(), config.clone(), reading.clone(), importing.clone());
        move |done: Done| {
            reading.borrow_mut().take();
            importing.set(false);
            let imported = match done {
                Done::Imported { scenario, notes } => Imported { scenario, notes },
                Done::Refused { why } => return config.set(Some(Some(format!("The configuration was not imported: {why}.")))),
                Done::Exported { .. } => return,
            };
            match dispatch(Command::ImportConfig { imported }) {
            Ok(applied) => {
                config.set(None);
                // Every block imported selected, the first limiter last: the
                // inspector shows it.
                let mut ids = applied.select.unwrap_or_default();
                {
                    let s = page.session.borrow();
                    let limiter = |id: &String| s.play.index_of(id).is_some_and(|i| s.play.scenario().nodes[i].block.kind() == Kind::ProductLimiter);
                    if let Some(k) = ids.iter().position(limiter) {
                        let first = ids.remove(k);
                        ids.push(first);
                    }
                }
                page.selected.set(ids);
                // The first few of what it left out, and how many more.
                let notes: Vec<String> = applied.notes.iter().take(3).map(|n| format!("line {}: {}", n.line, n.text)).collect();
                let more = match applied.notes.len().saturating_sub(3) {
                    0 => String::new(),
                    n => format!("; and {n} more (sluice import lists them all)"),
                };
                let left_out = if notes.is_empty() { String::new() } else { format!(" Not modelled: {}{more}.", notes.join("; ")) };
                page.status.set(Some(format!("Imported the configuration's limits below the canvas; Undo (Ctrl+Z) takes them back.{left_out}")));
            }
            Err(why) => config.set(Some(Some(why.to_string()))),
            }
        }
    };
    let on_import_config = {
        let (config, reading, importing) = (config.clone(), reading.clone(), importing.clone());
        let on_imported = std::rc::Rc::new(on_imported);
        Callback::from(move |(product, text): (Product, String)| {
            let on_imported = on_imported.clone();
            match ConfigWorker::start(&Job::Import { product, text }, move |done| on_imported(done)) {
                Ok(worker) => {
                    *reading.borrow_mut() = Some(worker);
                    importing.set(true);
                    config.set(Some(None));
                }
                Err(why) => config.set(Some(Some(why))),
            }
        })
    };
    let on_log = use_log(page, dispatch);
    Keeping {
        on_log,
        shared: (*shared).clone(),
        on_export,
        on_import,
        on_share,
        on_close_share,
        on_close_banner,
        on_restore_earlier,
        on_forget_earlier,
        config: (*config).clone(),
        importing: *importing,
        on_open_config,
        on_close_config,
        on_import_config,
    }
}

/// An access log dropped on the canvas or chosen with "Log…": read in the
/// engine's worker (its progress in the status line), it becomes a trace
/// producer in one undoable edit: the selected producer's arrivals, or a
/// new producer `log` below the canvas, to be connected.
#[hook]
fn use_log(page: &Page, dispatch: &Dispatch) -> Callback<web_sys::File> {
    // The reading under way; the next file replaces (so abandons) it.
    let reading = use_mut_ref(|| None::<LogWorker>);
    let (dispatch, page) = (dispatch.clone(), page.clone());
    Callback::from(move |file: web_sys::File| {
        let name = file.name();
        page.notice.set(None);
        page.status.set(Some(format!("Reading {name}…")));
        let (dispatch, reader) = (dispatch.clone(), page.clone());
        // Its last answer in, the worker (and its memory) goes: after this
        // answer's handler returns, not inside it.
        let done = {
            let reading = reading.clone();
            move || {
                let reading = reading.clone();
                gloo_timers::callback::Timeout::new(0, move || drop(reading.borrow_mut().take())).forget()
            }
        };
        let on_read = move |read: LogRead| match read {
            LogRead::Reading { bytes, of } => reader.status.set(Some(format!("Reading {name}: {}%", bytes * 100 / of.max(1)))),
            LogRead::Failed(why) => {
                done();
                reader.status.set(None);
                reader.notice.set(Some(format!("{name} was not read: {}. Your work is unchanged.", why.trim_end_matches('.'))));
            }
            LogRead::Read { format, reordered, lists } => {
                done();
                let (lines, keys, service) = (lists.times_s.len(), lists.key_names.len(), !lists.service_s.is_empty());
                let outcome = lists.producer().map_err(|why| format!("{name} was not read: {why}. Your work is unchanged.")).and_then(|block| {
                    replay_in(&reader, &dispatch, block).map_err(|why| format!("{name} was not replayed: {}. Your work is unchanged.", why.trim_end_matches('.')))
                });
                match outcome {
                    Ok(id) => {
                        let keys = match keys {
                            0 => "no keys".to_string(),
                            1 => "1 key".to_string(),
                            n => format!("{} keys", sluice_engine::thousands(n as f64)),
                        };
                        let served = if service { "each served for the time it took" } else { "served as the consumers' service times say" };
                        let sorted = reordered.map(|r| format!(" Note: {r}.")).unwrap_or_default();
                        reader.status.set(Some(format!(
                            "{name} ({format}): {} requests, {keys}, {served}, now replayed by \"{id}\". Undo (Ctrl+Z) takes it back.{sorted}",
                            sluice_engine::thousands(lines as f64)
                        )));
                    }
                    Err(why) => {
                        reader.status.set(None);
                        reader.notice.set(Some(why));
                    }
                }
            }
        };
        match LogWorker::start(&file, on_read) {
            Ok(worker) => *reading.borrow_mut() = Some(worker),
            Err(why) => page.notice.set(Some(why)),
        }
    })
}

/// Puts the log's trace on the selected producer (its other parameters
/// kept) or, with none selected, on a new producer; returns its id.
fn replay_in(page: &Page, dispatch: &Dispatch, block: BlockSpec) -> Result<String, String> {
    let BlockSpec::Producer(log) = block else { return Err("it is not a producer".into()) };
    let selected = {
        let s = page.session.borrow();
        page.selected.iter().find_map(|id| match &s.play.scenario().nodes[s.play.index_of(id)?].block {
            BlockSpec::Producer(p) => Some((id.clone(), p.clone())),
            _ => None,
        })
    };
    if let Some((id, mut producer)) = selected {
        producer.arrivals = log.arrivals;
        dispatch(Command::SetBlock { id: id.clone(), block: BlockSpec::Producer(producer) }).map_err(|e| e.to_string())?;
        return Ok(id);
    }
    let node = NodeSpec { id: "log".into(), position: None, block: BlockSpec::Producer(log) };
    let applied = dispatch(Command::ImportConfig { imported: Imported { scenario: Scenario::alone(node), notes: Vec::new() } }).map_err(|e| e.to_string())?;
    let ids = applied.select.unwrap_or_default();
    page.selected.set(ids.clone());
    Ok(ids.first().cloned().unwrap_or_else(|| "log".into()))
}
