//! Lessons on the page: picking one, trying its steps, closing it. What a
//! step shows (its block, chart, panel, speed and sweep) comes back from
//! the engine in the command's answer, and the dispatch shows it.

use std::rc::Rc;

use sluice_engine::lesson::LessonText;
use sluice_engine::playground::Command;
use yew::prelude::*;

use super::dispatch::Dispatch;
use super::Page;

pub(crate) struct Lessons {
    /// Every lesson's text, made once: the picker and the open lesson's
    /// panel share it.
    pub texts: Rc<Vec<LessonText>>,
    /// The lesson picker is open.
    pub picking: bool,
    pub on_pick: Callback<usize>,
    pub on_try: Callback<usize>,
    pub on_close: Callback<()>,
    /// Opens the picker.
    pub on_all: Callback<()>,
    pub on_picker_close: Callback<()>,
}

/// `first_visit`: the picker is the first thing a new visitor sees.
#[hook]
pub(crate) fn use_lessons(page: &Page, dispatch: &Dispatch, first_visit: bool) -> Lessons {
    let picking = use_state(|| first_visit);
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
    Lessons { texts, picking: *picking, on_pick, on_try, on_close, on_all, on_picker_close }
}
