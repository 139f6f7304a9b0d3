//! Lessons on the page: picking one, trying its steps, closing it. What a
//! step shows (its block, chart, panel, speed and sweep) comes back from
//! the engine in the command's answer, and the dispatch shows it.

use std::collections::BTreeSet;
use std::rc::Rc;

use sluice_engine::lesson::{linked as linked_lesson, LessonText};
use sluice_engine::playground::Command;
use yew::prelude::*;

use crate::browser::keep;
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
}

/// `first_visit`: the picker is the first thing a new visitor sees (one
/// who follows a lesson's link sees the lesson instead).
/// `linked`: the lesson (and step, counted from 1) the page's link opens.
#[hook]
pub(crate) fn use_lessons(page: &Page, dispatch: &Dispatch, first_visit: bool, linked: Option<(u32, Option<u32>)>) -> Lessons {
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
    let texts = (*use_memo((), {
        let session = page.session.clone();
        move |_| Rc::new(session.borrow().play.lessons().iter().map(|l| l.text.clone()).collect::<Vec<LessonText>>())
    }))
    .clone();
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
        Callback::from(move |(number, step): (u32, Option<u32>)| {
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
    // The open lesson is in the address bar (`#lesson=N`), and nothing
    // else of a lesson: a reload opens it again, at its start.
    let open = open_number(&page.session.borrow(), &texts);
    use_effect_with(open, |open| keep::show_lesson(*open));
    // A lesson whose every step turned out as it says is completed, in
    // this browser, for the picker to mark.
    let completed = use_state(|| Rc::new(keep::completed()));
    let done = open.filter(|_| page.session.borrow().play.lesson().is_some_and(|run| run.completed()));
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
        let (open_link, session, texts, earlier) = (open_link.clone(), page.session.clone(), texts.clone(), page.earlier.clone());
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
                keep::show_lesson(open_number(&session.borrow(), &texts));
            });
            move || drop(listener)
        }
    });
    Lessons { texts, picking: *picking, completed: (*completed).clone(), on_pick, on_try, on_skip, on_do_it, on_close, on_all, on_picker_close }
}

/// The number of the lesson open, if one is.
fn open_number(session: &Session, texts: &[LessonText]) -> Option<u32> {
    session.play.lesson().and_then(|run| texts.get(run.index)).map(|text| text.number)
}
