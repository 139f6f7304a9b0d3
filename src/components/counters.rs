//! Global figures and drops by reason, per node.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::glossary::Term;

use crate::view::snapshot::Snapshot;

#[derive(Properties, PartialEq)]
pub struct CountersProps {
    pub snapshot: Rc<Snapshot>,
}

#[function_component(Counters)]
pub fn counters(props: &CountersProps) -> Html {
    let t = props.snapshot.totals;
    let figure = |name: &'static str, label: &'static str, value: u64| {
        html! {
            <div class="figure-box">
                <div class="figure-value" data-testid={format!("total-{name}")}>{ value }</div>
                <div class="figure-label">{ label }</div>
            </div>
        }
    };
    let drops: Vec<Html> = props
        .snapshot
        .nodes
        .iter()
        .flat_map(|n| n.dropped.iter().map(move |(reason, count)| (n.id.clone(), *reason, *count)))
        .map(|(node, reason, count)| {
            html! {
                <tr data-testid={format!("drops-{node}-{reason}")}>
                    <td>{ node }</td>
                    <td><span class={classes!("reason", reason)}><Term word={reason} /></span></td>
                    <td class="num">{ count }</td>
                </tr>
            }
        })
        .collect();
    html! {
        // The instant the figures are of, as the clock writes it.
        <section class="panel counters" aria-label="Counters" data-time-s={props.snapshot.time_s.to_string()}>
            <h2>{"Counters"}</h2>
            <div class="figures">
                { figure("produced", "produced", t.produced) }
                { figure("delivered", "delivered", t.delivered) }
                { figure("dropped", "dropped", t.dropped) }
                { figure("in-system", "in system", t.in_system) }
                // Attempts sent again, once there are any: the same requests.
                if t.resent > 0 {
                    { figure("resent", "resent", t.resent) }
                }
            </div>
            <h3>{"Drops by reason"}</h3>
            if drops.is_empty() {
                <p class="hint">{"Nothing dropped yet."}</p>
            } else {
                <table class="drops">
                    <thead><tr><th>{"node"}</th><th>{"reason"}</th><th class="num">{"count"}</th></tr></thead>
                    <tbody>{ for drops }</tbody>
                </table>
            }
        </section>
    }
}
