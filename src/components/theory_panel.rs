//! The theory overlay of the selected queue: what queueing theory predicts
//! (mean number waiting, mean wait, drop probability) beside what the run
//! measured, or, for a queue the formulas do not describe, why not.
//! The engine's `theory` module decides and computes; this only shows.

use sluice_engine::theory::{Measured, Prediction, Steady};
use yew::prelude::*;

/// Three significant figures at most, so measured and predicted line up.
pub fn short_figure(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1e}")
    }
}

fn percent(p: f64) -> String {
    if p == 0.0 {
        "0 %".to_string()
    } else if p >= 0.001 {
        format!("{:.1} %", p * 100.0)
    } else {
        format!("{:.1e} %", p * 100.0)
    }
}

/// A row of the table: its name, its test id, the measured figure (if any
/// yet), the predicted one, and how both are written.
type Row = (&'static str, &'static str, Option<f64>, f64, fn(f64) -> String);

/// All three figures in one line, measured then predicted.
pub fn theory_summary(prediction: &Prediction, measured: &Measured, steady: &Steady) -> String {
    let or_dash = |v: Option<f64>, show: fn(f64) -> String| v.map_or_else(|| "–".to_string(), show);
    format!(
        "{}: measured {} waiting, wait {} s, {} dropped; theory {} waiting, wait {} s, {} dropped",
        prediction.name,
        short_figure(measured.mean_waiting),
        or_dash(measured.mean_wait_s, short_figure),
        or_dash(measured.drop_probability, percent),
        short_figure(steady.mean_waiting),
        short_figure(steady.mean_wait_s),
        percent(steady.drop_probability)
    )
}

#[derive(Properties, PartialEq)]
pub struct TheoryPanelProps {
    pub queue: String,
    pub theory: Result<(Prediction, Measured), String>,
}

#[function_component(TheoryPanel)]
pub fn theory_panel(props: &TheoryPanelProps) -> Html {
    let body = match &props.theory {
        Err(why) => html! {
            <p class="hint" data-testid="theory-none">{ format!("No closed form for {}: {why}.", props.queue) }</p>
        },
        Ok((prediction, measured)) => {
            let head = format!("{} · offered load ρ = {:.2}", prediction.name, prediction.offered_load);
            match &prediction.steady {
                None => html! {
                    <>
                        <p class="theory-model">{ head }</p>
                        <p class="hint" data-testid="theory-unstable">
                            {"With ρ ≥ 1 and no bound the queue grows without end: there is no steady state to predict. Add workers, slow the producer or bound the queue."}
                        </p>
                    </>
                },
                Some(steady) => {
                    let seconds = |v: f64| format!("{} s", short_figure(v));
                    let rows: [Row; 3] = [
                        ("Mean waiting (Lq)", "waiting", Some(measured.mean_waiting), steady.mean_waiting, short_figure),
                        ("Mean wait (Wq)", "wait", measured.mean_wait_s, steady.mean_wait_s, seconds),
                        ("Drop probability", "drop", measured.drop_probability, steady.drop_probability, percent),
                    ];
                    html! {
                        <>
                            <p class="theory-model" data-testid="theory-model">{ head }</p>
                            <table class="theory-table" data-testid="theory-table">
                                <thead><tr><th scope="col">{"Figure"}</th><th scope="col">{"Measured"}</th><th scope="col">{"Theory"}</th></tr></thead>
                                <tbody>
                                    { for rows.into_iter().map(|(name, key, measured, predicted, show)| html! {
                                        <tr>
                                            <th scope="row">{ name }</th>
                                            <td data-testid={format!("theory-measured-{key}")} data-value={measured.map(|v| v.to_string())}>
                                                { measured.map_or_else(|| "–".to_string(), show) }
                                            </td>
                                            <td data-testid={format!("theory-predicted-{key}")} data-value={predicted.to_string()}>{ show(predicted) }</td>
                                        </tr>
                                    }) }
                                </tbody>
                            </table>
                            <p class="hint">{"Measured since time zero: the figures approach the theory's as the run grows long."}</p>
                        </>
                    }
                }
            }
        }
    };
    html! {
        <section class="panel theory" aria-label="Queueing theory" data-testid="theory-panel">
            <h2>{ format!("Theory · {}", props.queue) }</h2>
            { body }
        </section>
    }
}
