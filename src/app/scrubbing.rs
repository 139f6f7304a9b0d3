//! The time line's input as commands: dragged back, the page pauses and
//! the engine shows the runs at that instant; played from there, the
//! engine forks and the page plays on, saying that what came after is
//! gone and that Undo brings it back.

use sluice_engine::playground::Command;
use sluice_engine::SimTime;
use yew::prelude::*;

use super::dispatch::Dispatch;
use super::Page;

pub(super) struct Scrubbing {
    pub on_scrub: Callback<Option<f64>>,
    pub on_live: Callback<()>,
    pub on_play_from: Callback<()>,
}

impl Page {
    /// Pauses a playing run to read it at one instant, A and B caught up
    /// with each other.
    pub(super) fn pause_to_read(&self) {
        if *self.playing {
            self.playing.set(false);
            self.session.borrow_mut().play.catch_up();
        }
    }

    /// Opens the run at `at`, paused, as a link to an instant asks: once
    /// the page has drawn itself paused, so that no frame plays on past it.
    pub(super) fn open_at(&self, dispatch: &Dispatch, at: SimTime) {
        self.playing.set(false);
        let dispatch = dispatch.clone();
        gloo_timers::callback::Timeout::new(0, move || drop(dispatch(Command::RunTo { at_s: at.as_secs_f64() }))).forget();
    }
}

#[hook]
pub(super) fn use_scrubbing(page: &Page, dispatch: &Dispatch, opened_at: Option<SimTime>) -> Scrubbing {
    // A link to an instant: the run opens there, paused.
    {
        let (page, dispatch) = (page.clone(), dispatch.clone());
        use_effect_with((), move |_| {
            if let Some(at) = opened_at {
                page.open_at(&dispatch, at);
            }
        });
    }
    let on_scrub = {
        let (page, dispatch) = (page.clone(), dispatch.clone());
        Callback::from(move |at_s: Option<f64>| {
            if at_s.is_some() {
                // The live runs wait while the past is shown.
                page.pause_to_read();
            }
            drop(dispatch(Command::Scrub { at_s }));
        })
    };
    let on_play_from = {
        let (page, dispatch) = (page.clone(), dispatch.clone());
        Callback::from(move |_: ()| {
            let at = page.session.borrow().play.scrubbed();
            if let (Some(at), Ok(_)) = (at, dispatch(Command::PlayFrom)) {
                page.status.set(Some(format!("Playing on from {:.2} s: what came after it is gone (Undo brings it back).", at.as_secs_f64())));
                page.playing.set(true);
            }
        })
    };
    let on_live = on_scrub.reform(|_: ()| None);
    Scrubbing { on_scrub, on_live, on_play_from }
}
