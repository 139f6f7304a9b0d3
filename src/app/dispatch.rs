//! The one dispatch: every command of the page goes through here, and what
//! came of it is said: a refusal as the notice, an edit saved in this
//! browser a moment later (`keeping.rs`), the blocks worth selecting, and
//! for a lesson step that began, the chart, panel, speed and sweep the
//! engine's answer names.

use std::rc::Rc;

use sluice_engine::lesson::Panel;
use sluice_engine::playground::{Applied, Command, PlayError, Speed, StepBegun};
use yew::prelude::*;

use crate::browser::scroll::bring_into_view;
use crate::components::controls::speed_label;
use crate::view::chart_data::chart_for;
use crate::view::sweep::{SweepForm, SweepOrder};
use crate::view::words::thousands;

use super::Page;

/// Does a command and says what came of it, or why it was refused (the
/// notice says so too).
pub(crate) type Dispatch = Rc<dyn Fn(Command) -> Result<Applied, PlayError>>;

/// The page's dispatch. Made once: callbacks built on it stay equal from
/// frame to frame, so the panels they are given are not drawn again for
/// their sake.
#[hook]
pub(crate) fn use_dispatch(page: &Page) -> Dispatch {
    let page = page.clone();
    (*use_memo((), move |_| -> Dispatch { Rc::new(move |command| page.dispatch(command)) })).clone()
}

impl Page {
    fn dispatch(&self, command: Command) -> Result<Applied, PlayError> {
        let edits = command.edits();
        let mut s = self.session.borrow_mut();
        let result = s.apply(command);
        match &result {
            Ok(applied) => {
                if let Some(ids) = &applied.select {
                    self.selected.set(s.ids_of(&s.indices_of(ids)));
                }
                if edits {
                    self.notice.set(None);
                }
            }
            Err(why) => self.notice.set(Some(why.to_string())),
        }
        if s.resumes() {
            self.playing.set(true);
        }
        drop(s);
        if edits {
            self.status.set(None);
        }
        if result.as_ref().is_ok_and(|applied| applied.edited) {
            self.save_soon();
        }
        if let Some(begun) = result.as_ref().ok().and_then(|applied| applied.step.as_ref()) {
            self.begin_step(begun);
        }
        self.redraw.force_update();
        result
    }

    /// Shows what a lesson step that began asks for: the chart of the
    /// figure it checks first, a faster speed when watching it would take
    /// too long (and says so), its panel in view, and its sweep started.
    pub(crate) fn begin_step(&self, begun: &StepBegun) {
        if let Some(kind) = begun.figure.and_then(chart_for) {
            self.chart_kind.set(kind);
        }
        if let Some(faster @ Speed::Times(times)) = begun.speed {
            self.speed.set(faster);
            self.status.set(Some(format!(
                "Step {} watches {} simulated seconds: the speed is now {} so that it takes about {} s.",
                begun.step + 1,
                thousands(begun.within_s),
                speed_label(faster),
                (begun.within_s / times).ceil()
            )));
        }
        if let Some(panel) = begun.panel {
            bring_into_view(match panel {
                Panel::Theory => "#theory-panel",
                Panel::Canvas => "svg.graph",
                Panel::Sweep => "#sweep-panel",
                Panel::Chart => ".chart",
            });
        }
        if let Some((sweep, varied)) = begun.sweep.as_ref().and_then(|s| Some((s, s.request.vary.first()?))) {
            *self.sweep_serial.borrow_mut() += 1;
            self.sweep_order.set(Some(SweepOrder {
                serial: *self.sweep_serial.borrow(),
                name: varied.name.clone(),
                form: SweepForm::of_request(&sweep.request, &sweep.metric),
                lesson: Some((sweep.ticket, sweep.request.clone())),
            }));
        }
    }
}
