//! Lessons on the page: picking one, trying its steps, closing it. What a
//! step shows (its block, chart, panel, speed and sweep) comes back from
//! the engine in the command's answer, and the dispatch shows it.

use std::collections::BTreeSet;
use std::rc::Rc;

use sluice_engine::lesson::{linked as linked_lesson, Lesson, LessonDraft, LessonText};
use sluice_engine::share::Link;
use sluice_engine::Scenario;
use sluice_engine::playground::Command;
use yew::prelude::*;

use crate::browser::keep::{self, LessonLink};
use crate::view::observed::Session;

use super::dispatch::Dispatch;
use super::Page;

pub(crate) struct Lessons {
    /// Every lesson's text, made once: the picker and the open lesson's
    /// panel share it.
    pub texts: Rc<Vec<LessonText>>,
    /// The lesson picker is open.
    pub picking: bool,
    /// The numbers of the lessons this browser completed.
    pub completed: Rc<BTreeSet<u32>>,
    pub on_pick: Callback<usize>,
    pub on_try: Callback<usize>,
    /// Runs the watched step on to its verdict at once.
    pub on_skip: Callback<()>,
    /// Makes the change a step asks of the learner for them.
    pub on_do_it: Callback<()>,
    pub on_close: Callback<()>,
    /// Opens the picker.
    pub on_all: Callback<()>,
    pub on_picker_close: Callback<()>,
    /// The lesson editor's draft and the scenario it is written on, while
    /// it is open.
    pub writing: Option<Rc<(LessonDraft, Scenario)>>,
    /// Opens the editor: a new lesson on the canvas's scenario, or the
    /// open lesson to change (`true`).
    pub on_write: Callback<bool>,
    /// The editor's lesson, tried: it opens as the lesson.
    pub on_written: Callback<Lesson>,
    /// Closes the editor, keeping its draft.
    pub on_editor_close: Callback<LessonDraft>,
}

/// `first_visit`: the picker is the first thing a new visitor sees (one
/// who follows a lesson's link sees the lesson instead).
/// `linked`: the lesson the page's link opens.
#[hook]
pub(crate) fn use_lessons(page: &Page, dispatch: &Dispatch, first_visit: bool, linked: Option<LessonLink>) -> Lessons {
    let picking = use_state(|| first_visit && linked.is_none());
    let on_pick = {
        let (dispatch, picking, playing, speed) = (dispatch.clone(), picking.clone(), page.playing.clone(), page.speed.clone());
        Callback::from(move |index: usize| {
            if dispatch(Command::PickLesson { index, speed: *speed }).is_ok() {
                picking.set(false);
                playing.set(true);
            }
        })
    };
    let on_try = {
        let (dispatch, playing, speed) = (dispatch.clone(), page.playing.clone(), page.speed.clone());
        Callback::from(move |step: usize| {
            if dispatch(Command::TryStep { step, speed: *speed }).is_ok() {
                playing.set(true);
            }
        })
    };
    let on_skip = {
        let (dispatch, speed) = (dispatch.clone(), page.speed.clone());
        Callback::from(move |_: ()| drop(dispatch(Command::SkipToVerdict { speed: *speed })))
    };
    let on_do_it = {
        let (dispatch, playing, speed) = (dispatch.clone(), page.playing.clone(), page.speed.clone());
        Callback::from(move |_: ()| {
            if dispatch(Command::DoItForMe { speed: *speed }).is_ok() {
                playing.set(true);
            }
        })
    };
    let on_close = {
        let dispatch = dispatch.clone();
        Callback::from(move |_: ()| drop(dispatch(Command::CloseLesson)))
    };
    let on_all = use_callback(picking.clone(), |_: (), picking| picking.set(true));
    let on_picker_close = use_callback(picking.clone(), |_: (), picking| picking.set(false));
    // Read again when a lesson of one's own is opened.
    let texts = (*use_memo(page.session.borrow().play.written().1, {
        let session = page.session.clone();
        move |_| Rc::new(session.borrow().play.lessons().iter().map(|l| l.text.clone()).collect::<Vec<LessonText>>())
    }))
    .clone();
    let writing = use_state(|| None::<Rc<(LessonDraft, Scenario)>>);
    // A draft closed before it was tried, kept for the next "Write a lesson".
    let kept = use_state(|| None::<Rc<(LessonDraft, Scenario)>>);
    let on_write = {
        let (writing, session, picking, kept) = (writing.clone(), page.session.clone(), picking.clone(), kept.clone());
        Callback::from(move |edit_open: bool| {
            let s = session.borrow();
            let open = s.play.lesson().map(|run| run.index).filter(|_| edit_open);
            // One's own lesson is numbered after the catalogue's last: a
            // built-in lesson changed is another lesson, completed apart.
            let (written, _) = s.play.written();
            let next = s.play.lessons().iter().enumerate().filter(|(i, _)| Some(*i) != written).map(|(_, l)| l.text.number).max().unwrap_or(0) + 1;
            let started = match open.and_then(|i| s.play.lessons().get(i)) {
                Some(lesson) => {
                    let mut draft = LessonDraft::of(lesson);
                    draft.number = next;
                    (draft, lesson.scenario.clone())
                }
                // A new lesson goes on from the one closed unfinished, if
                // it was written on this scenario.
                None => match (*kept).clone().filter(|k| k.1 == *s.play.scenario()) {
                    Some(k) => (k.0.clone(), k.1.clone()),
                    None => (LessonDraft::new(next), s.play.scenario().clone()),
                },
            };
            picking.set(false);
            writing.set(Some(Rc::new(started)));
        })
    };
    let on_written = {
        let (dispatch, writing, playing, speed) = (dispatch.clone(), writing.clone(), page.playing.clone(), page.speed.clone());
        Callback::from(move |lesson: Lesson| {
            if dispatch(Command::OpenLesson { lesson: Box::new(lesson), speed: *speed }).is_ok() {
                writing.set(None);
                playing.set(true);
            }
        })
    };
    let on_editor_close = {
        let (writing, kept) = (writing.clone(), kept.clone());
        Callback::from(move |draft: LessonDraft| {
            if let Some(start) = &*writing {
                kept.set(Some(Rc::new((draft, start.1.clone()))));
            }
            writing.set(None);
        })
    };
    // The page's speed as it is now, for the link listener made once.
    let speed_now = use_mut_ref(|| *page.speed);
    *speed_now.borrow_mut() = *page.speed;
    // A lesson's link opens it, at its step if it names one: at opening,
    // and when pasted into the address bar of the open page. A link that
    // leads nowhere leaves the page as it would be without it (a first
    // visit on the picker).
    let open_link = {
        let (dispatch, session, notice, picking, playing) =
            (dispatch.clone(), page.session.clone(), page.notice.clone(), picking.clone(), page.playing.clone());
        Callback::from(move |link: LessonLink| {
            let (number, step) = match link {
                LessonLink::Numbered(number, step) => (number, step),
                LessonLink::Written(code) => {
                    let speed = *speed_now.borrow();
                    match Lesson::from_code(&code) {
                        Ok(lesson) => {
                            if dispatch(Command::OpenLesson { lesson: Box::new(lesson), speed }).is_ok() {
                                picking.set(false);
                                playing.set(true);
                            }
                        }
                        Err(why) => {
                            notice.set(Some(format!("The lesson link could not be opened: {why}")));
                            picking.set(first_visit);
                        }
                    }
                    return;
                }
            };
            let found = linked_lesson(session.borrow().play.lessons(), number, step);
            let speed = *speed_now.borrow();
            match found {
                Ok((index, k)) => {
                    if dispatch(Command::PickLesson { index, speed }).is_ok() {
                        picking.set(false);
                        playing.set(true);
                        if let Some(k) = k {
                            let _ = dispatch(Command::TryStep { step: k, speed });
                        }
                    }
                }
                Err(why) => {
                    notice.set(Some(format!("The lesson link could not be opened: {why}")));
                    picking.set(first_visit);
                }
            }
        })
    };
    // The open lesson is in the address bar (`#lesson=N`, or `#l=CODE`
    // for a lesson of one's own), and nothing else of a lesson: a reload
    // opens it again, at its start.
    let open = open_number(&page.session.borrow(), &texts);
    let shown = open_link_of(&page.session.borrow());
    use_effect_with(shown, {
        let session = page.session.clone();
        move |_| keep::show_lesson(open_lesson_link(&session.borrow()))
    });
    // A lesson whose every step turned out as it says is completed, in
    // this browser, for the picker to mark.
    let completed = use_state(|| Rc::new(keep::completed()));
    // (One's own lesson is not the catalogue's: its number marks nothing.)
    let done = open.filter(|_| page.session.borrow().play.lesson().is_some_and(|run| run.completed() && page.session.borrow().play.written().0 != Some(run.index)));
    use_effect_with(done, {
        let completed = completed.clone();
        move |done| {
            if let Some(number) = *done {
                keep::complete(number);
                completed.set(Rc::new(keep::completed()));
            }
        }
    });
    use_effect_with((), {
        let (open_link, session, earlier) = (open_link.clone(), page.session.clone(), page.earlier.clone());
        move |_| {
            if let Some(link) = linked {
                open_link.emit(link);
            }
            // (After the scenario links' listener, `keeping.rs`, which
            // saves the work on the page, and takes a link it opened or
            // refused out of the address bar.)
            let listener = gloo_events::EventListener::new(&gloo_utils::window(), "hashchange", move |_| {
                if let Some(link) = keep::lesson_link() {
                    earlier.set(keep::earlier_work().is_some());
                    open_link.emit(link);
                }
                keep::show_lesson(open_lesson_link(&session.borrow()));
            });
            move || drop(listener)
        }
    });
    Lessons { texts, picking: *picking, completed: (*completed).clone(), on_pick, on_try, on_skip, on_do_it, on_close, on_all, on_picker_close,
        writing: (*writing).clone(), on_write, on_written, on_editor_close }
}

/// The lesson open, if one is: its place, whether it is one's own, and
/// how many of one's own were opened (the link changes with each).
fn open_link_of(session: &Session) -> Option<(usize, bool, u64)> {
    let (written, writings) = session.play.written();
    session.play.lesson().map(|run| (run.index, written == Some(run.index), writings))
}

/// The link to the lesson open, if one is (what the address bar shows).
pub(crate) fn open_lesson_link(session: &Session) -> Option<Link> {
    open_link_of(session).map(|(index, written, _)| link_of(session, index, written))
}

/// The link to the lesson at `index`: its number, or for one's own its
/// code.
fn link_of(session: &Session, index: usize, written: bool) -> Link {
    match session.play.lessons().get(index) {
        Some(lesson) if written => Link::WrittenLesson(lesson.to_code()),
        lesson => Link::Lesson { number: lesson.map_or(0, |l| l.text.number), step: None },
    }
}

/// The number of the lesson open, if one is.
fn open_number(session: &Session, texts: &[LessonText]) -> Option<u32> {
    session.play.lesson().and_then(|run| texts.get(run.index)).map(|text| text.number)
}
