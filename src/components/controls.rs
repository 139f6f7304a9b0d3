//! Play, pause, step, reset, speed, the seed and the simulation clock.

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use sluice_engine::playground::{Speed, SPEEDS};

use crate::browser::live::{use_live, Live};
use crate::view::player::ClockReading;

pub(crate) fn speed_label(speed: Speed) -> String {
    match speed {
        Speed::Times(times) => format!("{times}×"),
        Speed::Fastest => "fastest".into(),
    }
}

/// The menu's value for `speed`, and back.
fn speed_value(speed: Speed) -> String {
    match speed {
        Speed::Times(times) => times.to_string(),
        Speed::Fastest => "max".into(),
    }
}

fn speed_of(value: &str) -> Speed {
    SPEEDS.into_iter().find(|s| speed_value(*s) == value).unwrap_or(Speed::Times(1.0))
}

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub playing: bool,
    /// Whether any part of the scenario can run: if not, the page looks
    /// stopped (Play and Step unavailable, the clock says so).
    pub runs: bool,
    pub speed: Speed,
    /// Changes every third frame while playing: the clock follows it alone.
    pub clock: Rc<Live<ClockReading>>,
    pub seed: u64,
    /// The simulation could not keep up with the chosen speed.
    pub behind: bool,
    pub on_play: Callback<()>,
    pub on_step: Callback<()>,
    pub on_speed: Callback<Speed>,
    pub on_reset: Callback<()>,
    /// The seed field's text, when changed (the page checks it).
    pub on_seed: Callback<String>,
}

#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let on_play = props.on_play.reform(|_: MouseEvent| ());
    let on_step = props.on_step.reform(|_: MouseEvent| ());
    let on_reset = props.on_reset.reform(|_: MouseEvent| ());
    let on_speed = props.on_speed.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        speed_of(&select.value())
    });
    let on_seed = props.on_seed.reform(|e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        input.value()
    });
    // The seed as typed, not yet taken.
    let (seed_text, typed) = crate::browser::draft::use_draft(props.seed.to_string());
    let on_seed_input = typed.reform(|e: InputEvent| e.target_unchecked_into::<HtmlInputElement>().value());
    html! {
        <div class="controls">
            <button class="primary" data-testid="play" onclick={on_play} aria-pressed={(props.playing && props.runs).to_string()}
                disabled={!props.runs}
                title={if props.runs { "Play or pause (Space)" } else { "Nothing can run yet: connect the blocks (see above the canvas)" }}>
                { if props.playing && props.runs { "❚❚ Pause" } else { "▶ Play" } }
            </button>
            <button data-testid="step" onclick={on_step} disabled={props.playing || !props.runs}
                title="Process the next event only (while paused)">{"⇥ Step"}</button>
            <button data-testid="reset" onclick={on_reset} title="Start the scenario again from time zero">{"↺ Reset"}</button>
            <label class="speed">
                <span class="speed-name">{"Speed "}</span>
                <select data-testid="speed" onchange={on_speed} aria-label="Simulation speed">
                    { for SPEEDS.into_iter().map(|s| html! {
                        <option value={speed_value(s)} title={if s == Speed::Fastest { "As fast as the browser can simulate" } else { "" }} selected={s == props.speed}>{ speed_label(s) }</option>
                    }) }
                </select>
            </label>
            <label class="seed" title="The random seed: the same seed gives the same run">
                {"Seed "}
                <input data-testid="seed" type="number" min="0" step="1" inputmode="numeric" aria-label="Random seed"
                    value={seed_text} oninput={on_seed_input} onchange={on_seed} />
            </label>
            <Clock clock={props.clock.clone()} runs={props.runs} />
            if props.behind {
                <span class="behind" title="The browser cannot simulate this fast; the clock runs slower than the chosen speed">{"falling behind"}</span>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ClockProps {
    clock: Rc<Live<ClockReading>>,
    runs: bool,
}

/// The simulation clock, rendered on its own whenever its reading changes.
#[function_component(Clock)]
fn clock(props: &ClockProps) -> Html {
    let reading = use_live(props.clock.clone());
    if !props.runs {
        return html! { <span class="clock stopped" data-testid="clock" title="Nothing can run yet">{"not running"}</span> };
    }
    html! {
        <span class="clock" data-testid="clock" data-time-s={reading.time_s.to_string()} title="Simulation time and events processed">
            { format!("t = {:.3} s", reading.time_s) }
            <span class="events"><span class="sep">{" · "}</span>{ format!("{} events", reading.events) }</span>
        </span>
    }
}
