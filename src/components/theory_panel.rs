//! The theory overlay of the selected queue: what queueing theory predicts
//! (mean number waiting, mean wait, the wait 99% do not exceed, drop
//! probability) beside what the run
//! measured, or, for a queue the formulas do not describe, why not.
//! The engine's `theory` module decides and computes; this only shows.
//! After a live change to what the prediction depends on, the figures are
//! measured from that change on (the time before ran under other settings),
//! and a button shows the whole run instead.

use yew::prelude::*;

use crate::components::glossary::Term;
use crate::view::snapshot::TheoryView;
use crate::view::words::{percent, three_figures, thousands};

/// A row of the table: its name, its test id, the measured figure (if any
/// yet), the predicted one, and how both are written.
type Row = (Html, &'static str, Option<f64>, Option<f64>, fn(f64) -> String);

#[derive(Properties, PartialEq)]
pub struct TheoryPanelProps {
    pub queue: String,
    pub theory: Result<TheoryView, sluice_engine::theory::NoClosedForm>,
}

#[function_component(TheoryPanel)]
pub fn theory_panel(props: &TheoryPanelProps) -> Html {
    let whole_run = use_state(|| false);
    let body = match &props.theory {
        Err(why) => html! {
            <p class="hint" data-testid="theory-none">{ format!("No closed form for {}: {why}.", props.queue) }</p>
        },
        Ok(TheoryView { prediction, measured, since_s, whole_run: over_all }) => {
            let changed = *since_s > 0.0;
            let (measured, note) = match (changed, *whole_run) {
                (false, _) => (measured, "Measured since time zero: the figures approach the theory's as the run grows long.".to_string()),
                (true, false) => (
                    measured,
                    format!("Measured since t = {} s, when this queue's model last changed: the run before it had other settings.", three_figures(*since_s)),
                ),
                (true, true) => (over_all, "Measured since time zero, mixing the settings before the last change with the present ones.".to_string()),
            };
            // How much the average is of, and whether that is enough yet.
            let span = format!(
                " Over {} s, {} left the queue{}",
                three_figures(measured.span_s),
                thousands(measured.left as f64),
                if measured.is_short() {
                    ": too few for an average to settle. A queue's mean length has a long memory: it takes thousands of \
                     departures to come near the theory's (at ρ = 0.8 some ten thousand to come within 10%); let it run."
                } else {
                    "."
                }
            );
            let note = note + &span;
            let toggle = changed.then(|| {
                let whole = whole_run.clone();
                html! {
                    <button class="link" data-testid="theory-span" aria-pressed={whole_run.to_string()}
                        onclick={Callback::from(move |_| whole.set(!*whole))}>{"Show the whole run"}</button>
                }
            });
            let head = html! {
                <>
                    <Term word="M/M/1" shown={AttrValue::from(prediction.name.clone())} />
                    {" · offered load "}<Term word="ρ" />{ format!(" = {:.2}", prediction.offered_load) }
                </>
            };
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
                    let seconds = |v: f64| format!("{} s", three_figures(v));
                    let rows: [Row; 4] = [
                        (html! { <>{"Mean waiting ("}<Term word="Lq" />{")"}</> }, "waiting", Some(measured.mean_waiting), Some(steady.mean_waiting), three_figures),
                        (html! { <>{"Mean wait ("}<Term word="Wq" />{")"}</> }, "wait", measured.mean_wait_s, Some(steady.mean_wait_s), seconds),
                        // The tail beside the mean: M/M/c's wait is 0 with
                        // probability 1 − C, exponential beyond.
                        (html! { {"99% wait at most"} }, "p99-wait", measured.p99_wait_s, prediction.p99_wait_s, seconds),
                        (html! { {"Drop probability"} }, "drop", measured.drop_probability, Some(steady.drop_probability), percent),
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
                                            <td data-testid={format!("theory-predicted-{key}")} data-value={predicted.map(|v| v.to_string())}
                                                title={predicted.is_none().then_some("No closed form gives this model's tail")}>
                                                { predicted.map_or_else(|| "–".to_string(), show) }
                                            </td>
                                        </tr>
                                    }) }
                                </tbody>
                            </table>
                            <p class="hint" data-testid="theory-since">{ note }{" "}{ toggle }</p>
                        </>
                    }
                }
            }
        }
    };
    html! {
        <section id="theory-panel" class="panel theory" aria-label="Queueing theory" data-testid="theory-panel">
            <h2>{ format!("Theory · {}", props.queue) }</h2>
            { body }
        </section>
    }
}
