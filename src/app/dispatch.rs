//! The one dispatch: every command of the page goes through here, and what
//! came of it is said: a refusal as the notice, an edit saved in this
//! browser a moment later (`keeping.rs`), the blocks worth selecting, and
//! for a lesson step that began, the chart, panel, speed and sweep the
//! engine's answer names.

use std::rc::Rc;

use sluice_engine::lesson::Panel;
use sluice_engine::playground::{Applied, Command, PlayError, Speed, StepBegun};
use yew::prelude::*;

use crate::browser::scroll::{bring_into_view, show_in_side};
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
        let set_up = (!begun.set_up.is_empty()).then(|| {
            format!("Step {} builds on {}: played first, to their verdicts.", begun.step + 1, steps_in_words(&begun.set_up))
        });
        // Only ever faster than the page runs now (a step the learner's
        // edit began was asked at the speed of its press).
        let already = match *self.speed {
            Speed::Fastest => f64::INFINITY,
            Speed::Times(now) => now,
        };
        let faster = match begun.speed {
            Some(faster @ Speed::Times(times)) if times > already => {
                self.speed.set(faster);
                Some(format!(
                    "Step {} watches {} simulated seconds: the speed is now {} so that it takes about {} s.",
                    begun.step + 1,
                    thousands(begun.within_s),
                    speed_label(faster),
                    (begun.within_s / times).ceil()
                ))
            }
            _ => None,
        };
        // A step that asks for the learner's change waits for it.
        let asks = (begun.panel == Some(Panel::Inspector))
            .then(|| format!("Step {}: your turn. Make the change it asks for in the inspector; the step is watched once it is made.", begun.step + 1));
        if set_up.is_some() || faster.is_some() || asks.is_some() {
            self.status.set(Some(set_up.into_iter().chain(faster).chain(asks).collect::<Vec<String>>().join(" ")));
        }
        if begun.panel == Some(Panel::Inspector) {
            // The field asked for, in the column beside the canvas.
            show_in_side(".param.asked");
        }
        if let Some(panel) = begun.panel {
            bring_into_view(match panel {
                Panel::Theory => "#theory-panel",
                Panel::Canvas => "svg.graph",
                Panel::Sweep => "#sweep-panel",
                Panel::Chart => ".chart",
                Panel::Inspector => ".param.asked",
            }, 0.0);
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

/// Steps (counted from 0) as the page numbers them: "step 2", "steps 1
/// and 2", "steps 1 to 4", "steps 1, 2 and 4".
fn steps_in_words(steps: &[usize]) -> String {
    let shown: Vec<String> = steps.iter().map(|k| (k + 1).to_string()).collect();
    let running = steps.windows(2).all(|w| w[1] == w[0] + 1);
    match shown.as_slice() {
        [] => String::new(),
        [one] => format!("step {one}"),
        [first, .., last] if running && shown.len() > 2 => format!("steps {first} to {last}"),
        [init @ .., last] => format!("steps {} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::steps_in_words;

    #[test]
    fn steps_played_first_are_numbered_as_the_page_shows_them() {
        assert_eq!(steps_in_words(&[1]), "step 2");
        assert_eq!(steps_in_words(&[0, 1]), "steps 1 and 2");
        assert_eq!(steps_in_words(&[0, 1, 2, 3]), "steps 1 to 4");
        assert_eq!(steps_in_words(&[0, 1, 3]), "steps 1, 2 and 4");
        assert_eq!(steps_in_words(&[2, 5]), "steps 3 and 6");
    }
}
