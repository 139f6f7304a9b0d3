//! Play, pause, reset, speed and the simulation clock.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Simulated seconds per real second the speed menu offers.
pub const SPEEDS: &[f64] = &[0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0];

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub playing: bool,
    pub speed: f64,
    pub time_s: f64,
    /// The simulation could not keep up with the chosen speed.
    pub behind: bool,
    pub on_play: Callback<()>,
    pub on_speed: Callback<f64>,
    pub on_reset: Callback<()>,
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let on_play = props.on_play.reform(|_: MouseEvent| ());
    let on_reset = props.on_reset.reform(|_: MouseEvent| ());
    let on_speed = props.on_speed.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        select.value().parse().unwrap_or(1.0)
    });
    html! {
        <div class="controls">
            <button class="primary" data-testid="play" onclick={on_play} aria-pressed={props.playing.to_string()}>
                { if props.playing { "❚❚ Pause" } else { "▶ Play" } }
            </button>
            <button data-testid="reset" onclick={on_reset} title="Start the scenario again from time zero">{"↺ Reset"}</button>
            <label class="speed">
                {"Speed "}
                <select data-testid="speed" onchange={on_speed} aria-label="Simulation speed">
                    { for SPEEDS.iter().map(|s| html! {
                        <option value={s.to_string()} selected={(*s - props.speed).abs() < 1e-9}>{ format!("{s}×") }</option>
                    }) }
                </select>
            </label>
            <span class="clock" data-testid="clock" title="Simulation time">
                { format!("t = {:.2} s", props.time_s) }
            </span>
            if props.behind {
                <span class="behind" title="The browser cannot simulate this fast; the clock runs slower than the chosen speed">{"falling behind"}</span>
            }
        </div>
    }
}
