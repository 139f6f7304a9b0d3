//! The log of state transitions, newest first, with simulation times.

use std::rc::Rc;

use yew::prelude::*;

use crate::snapshot::{state_colour, Snapshot};

#[derive(Properties, PartialEq)]
pub struct TransitionsLogProps {
    pub snapshot: Rc<Snapshot>,
}

#[function_component(TransitionsLog)]
pub fn transitions_log(props: &TransitionsLogProps) -> Html {
    let snap = &props.snapshot;
    let shown = snap.transitions.len() as u64;
    html! {
        <section class="panel log" aria-label="State transitions">
            <h2>
                {"State transitions "}
                <span class="muted" data-testid="transitions-total">{ snap.transitions_total }</span>
            </h2>
            if snap.transitions.is_empty() {
                <p class="hint">{"No state has changed yet."}</p>
            } else {
                <ol class="entries" data-testid="transitions">
                    { for snap.transitions.iter().map(|t| html! {
                        <li>
                            <span class="time">{ format!("{:.3} s", t.time_s) }</span>
                            <span class="who">{ &t.node }</span>
                            <span class="state" style={format!("color: {}", state_colour(t.from))}>{ t.from }</span>
                            {" → "}
                            <span class="state to" style={format!("color: {}", state_colour(t.to))}>{ t.to }</span>
                            <span class="cause">{ t.cause }</span>
                        </li>
                    }) }
                </ol>
                if snap.transitions_total > shown {
                    <p class="hint">{ format!("showing the latest {shown} of {}", snap.transitions_total) }</p>
                }
            }
        </section>
    }
}
