//! The Sweep panel's orders and what comes back from it: "Sweep this" in
//! the inspector, a value loaded into the scenario, and a lesson's sweep
//! judged or abandoned with why (closing the panel while it runs too), so
//! that no step is left sweeping.

use std::cell::RefCell;
use std::rc::Rc;

use sluice_engine::playground::{Command, Speed, SweepTicket};
use sluice_engine::sweep::{NodeField, SweepResult};
use yew::prelude::*;

use crate::view::observed::Session;
use crate::view::sweep::{SweepForm, SweepOrder};

use super::dispatch::Dispatch;
use super::Page;

pub(crate) struct Sweeps {
    /// "Sweep this": the panel opens on that field.
    pub on_sweep: Callback<NodeField>,
    pub on_close: Callback<()>,
    /// A point of the sweep loaded into the scenario: one undoable edit.
    pub on_use_value: Callback<(NodeField, f64)>,
    pub on_finished: Callback<(SweepTicket, SweepResult)>,
    pub on_abandoned: Callback<(SweepTicket, String)>,
}

#[hook]
pub(crate) fn use_sweeps(page: &Page, dispatch: &Dispatch) -> Sweeps {
    let on_sweep = use_callback((), {
        let (session, sweep_order, sweep_serial) = (page.session.clone(), page.sweep_order.clone(), page.sweep_serial.clone());
        move |name: NodeField, _| {
            *sweep_serial.borrow_mut() += 1;
            let form = SweepForm::around(&name, session.borrow().play.scenario());
            sweep_order.set(Some(SweepOrder { serial: *sweep_serial.borrow(), name, form, lesson: None }));
        }
    });
    let on_close = use_callback((), {
        let (dispatch, session, order) = (dispatch.clone(), page.session.clone(), page.sweep_order.clone());
        move |_: (), _| {
            let out = session.borrow().play.lesson_sweep().map(|(ticket, _)| ticket);
            if let Some(ticket) = out {
                let _ = dispatch(Command::AbandonSweep { ticket, why: "the Sweep panel was closed before it finished".into() });
            }
            order.set(None)
        }
    });
    let on_use_value = use_callback((), {
        let (dispatch, session, notice) = (dispatch.clone(), page.session.clone(), page.notice.clone());
        move |(name, value): (NodeField, f64), _| {
            let block = {
                let s = session.borrow();
                sluice_engine::sweep::with_value(s.play.scenario(), &name, value)
            };
            match block {
                Ok((id, block)) => drop(dispatch(Command::SetBlock { id, block })),
                Err(why) => notice.set(Some(why.to_string())),
            }
        }
    });
    // A report of a sweep no longer out (the lesson closed or picked
    // again, the step tried anew) settles nothing and says nothing.
    let out = |session: &Rc<RefCell<Session>>, ticket: SweepTicket| session.borrow().play.lesson_sweep().is_some_and(|(t, _)| t == ticket);
    let on_finished = use_callback(*page.speed, {
        let (dispatch, session) = (dispatch.clone(), page.session.clone());
        move |(ticket, result): (SweepTicket, SweepResult), speed: &Speed| {
            if out(&session, ticket) {
                drop(dispatch(Command::JudgeSweep { ticket, result, speed: *speed }))
            }
        }
    });
    let on_abandoned = use_callback((), {
        let (dispatch, session) = (dispatch.clone(), page.session.clone());
        move |(ticket, why): (SweepTicket, String), _| {
            if out(&session, ticket) {
                drop(dispatch(Command::AbandonSweep { ticket, why }))
            }
        }
    });
    Sweeps { on_sweep, on_close, on_use_value, on_finished, on_abandoned }
}
