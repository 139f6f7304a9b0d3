//! The Sweep panel's orders and what comes back from it: "Sweep this" in
//! the inspector, a value loaded into the scenario, and a lesson's sweep
//! judged or abandoned with why (closing the panel while it runs too), so
//! that no step is left sweeping.

use sluice_engine::playground::Command;
use sluice_engine::sweep::SweepResult;
use yew::prelude::*;

use crate::view::sweep::{SweepForm, SweepOrder};

use super::dispatch::Dispatch;
use super::Page;

pub(crate) struct Sweeps {
    /// "Sweep this": the panel opens on that field (`NODE.FIELD`).
    pub on_sweep: Callback<String>,
    pub on_close: Callback<()>,
    /// A point of the sweep loaded into the scenario: one undoable edit.
    pub on_use_value: Callback<(String, f64)>,
    pub on_finished: Callback<(usize, SweepResult)>,
    pub on_abandoned: Callback<(usize, String)>,
}

#[hook]
pub(crate) fn use_sweeps(page: &Page, dispatch: &Dispatch) -> Sweeps {
    let on_sweep = use_callback((), {
        let (session, sweep_order, sweep_serial) = (page.session.clone(), page.sweep_order.clone(), page.sweep_serial.clone());
        move |name: String, _| {
            *sweep_serial.borrow_mut() += 1;
            let form = SweepForm::around(&name, session.borrow().play.scenario());
            sweep_order.set(Some(SweepOrder { serial: *sweep_serial.borrow(), name, form, lesson: None }));
        }
    });
    let on_close = use_callback((), {
        let (dispatch, session, order) = (dispatch.clone(), page.session.clone(), page.sweep_order.clone());
        move |_: (), _| {
            let out = session.borrow().play.lesson_sweep().map(|(step, _)| step);
            if let Some(step) = out {
                let _ = dispatch(Command::AbandonSweep { step, why: "the Sweep panel was closed before it finished".into() });
            }
            order.set(None)
        }
    });
    let on_use_value = use_callback((), {
        let (dispatch, session, notice) = (dispatch.clone(), page.session.clone(), page.notice.clone());
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
    let on_finished = use_callback((), {
        let dispatch = dispatch.clone();
        move |(step, result): (usize, SweepResult), _| drop(dispatch(Command::JudgeSweep { step, result }))
    });
    let on_abandoned = use_callback((), {
        let dispatch = dispatch.clone();
        move |(step, why): (usize, String), _| drop(dispatch(Command::AbandonSweep { step, why }))
    });
    Sweeps { on_sweep, on_close, on_use_value, on_finished, on_abandoned }
}
