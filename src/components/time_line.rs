//! The time line under the canvas: dragged back, the canvas, the counters
//! and the charts' mark show the run at that instant (the live run waits);
//! from there, play on (what came after is gone; Undo brings it back) or
//! go back to the live instant. Its slider is a range input: arrow keys
//! move it by one step of a two-hundredth of the run, Home and End to its
//! ends. Under it, the cause chain asked for (`WhyPanel`): its lines move
//! the time line to their instants.

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::why_panel::WhyPanel;
use crate::view::why::WhyView;

#[derive(Properties, PartialEq)]
pub struct TimeLineProps {
    /// The earliest instant the run can be seen at, and the live one.
    pub earliest_s: f64,
    pub live_s: f64,
    /// The instant shown, when earlier than the live one.
    pub shown_s: Option<f64>,
    /// An instant asked for, or the live one (`None`: the slider at its
    /// end).
    pub on_scrub: Callback<Option<f64>>,
    pub on_live: Callback<()>,
    pub on_play_from: Callback<()>,
    /// The cause chain asked for, if any, and its lines' and close's
    /// callbacks.
    #[prop_or_default]
    pub why: Option<Rc<WhyView>>,
    #[prop_or_default]
    pub on_why_link: Callback<(f64, usize)>,
    #[prop_or_default]
    pub on_why_close: Callback<()>,
}

/// A step of the slider: about a two-hundredth of `span_s`, rounded to 1,
/// 2 or 5 times a power of ten.
fn step_of(span_s: f64) -> f64 {
    let rough = (span_s / 200.0).max(1e-3);
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|&s| s >= rough).unwrap_or(rough)
}

/// An instant as the time line says it: to the hundredth of a second.
fn instant(s: f64) -> String {
    format!("{s:.2} s")
}

#[function_component(TimeLine)]
pub fn time_line(props: &TimeLineProps) -> Html {
    let span = (props.live_s - props.earliest_s).max(0.0);
    let step = step_of(span);
    // The slider stops on whole steps from its start: its last stop is the
    // live instant.
    let last = props.earliest_s + (span / step).floor() * step;
    let on_input = props.on_scrub.reform(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Some(input.value_as_number()).filter(|&v| v < last - step / 2.0)
    });
    let at = props.shown_s.unwrap_or(props.live_s);
    let said = match props.shown_s {
        Some(t) => format!("{} of {}", instant(t), instant(props.live_s)),
        None => format!("live, {}", instant(props.live_s)),
    };
    html! {
        <>
        <div class={classes!("time-line", props.shown_s.is_some().then_some("back"))} data-testid="time-line" role="group" aria-label="Time line">
            <label for="time-line-range" class="time-line-label">{"Time"}</label>
            <input id="time-line-range" type="range" data-testid="time-line-range" min={props.earliest_s.to_string()} max={props.live_s.to_string()}
                step={step.to_string()} value={at.to_string()} aria-valuetext={said.clone()} disabled={span <= 0.0} oninput={on_input}
                title="Drag back to see the run at an earlier instant" />
            <span class="time-line-at" data-testid="time-line-at" aria-live="polite">{ said }</span>
            if props.shown_s.is_some() {
                <button class="small" data-testid="time-line-play-from" onclick={props.on_play_from.reform(|_: MouseEvent| ())}
                    title="Play on from this instant: what came after it is gone (Undo brings it back)">{"▶ Play from here"}</button>
                <button class="small secondary-small" data-testid="time-line-live" onclick={props.on_live.reform(|_: MouseEvent| ())}>{"Back to live"}</button>
            }
        </div>
        if let Some(why) = props.why.clone() {
            <WhyPanel {why} on_link={props.on_why_link.clone()} on_close={props.on_why_close.clone()} />
        }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::step_of;

    #[test]
    fn a_step_is_a_round_two_hundredth_of_the_run() {
        assert_eq!(step_of(40.0), 0.2);
        assert_eq!(step_of(10_000.0), 50.0);
        assert_eq!(step_of(3.0), 0.02);
        assert_eq!(step_of(0.0), 0.001);
    }
}
