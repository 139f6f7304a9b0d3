//! The totals of an A/B comparison in one table: the whole run's figures
//! and those of the selected nodes, A beside B, with B's as a multiple of
//! A's so that "three times the throughput" can be read off directly.

use std::rc::Rc;

use sluice_engine::lesson::Compared;
use yew::prelude::*;

use crate::view::snapshot::Snapshot;

#[derive(Properties, PartialEq)]
pub struct AbTableProps {
    /// What A and B are ("one shared window", "one window per destination").
    pub labels: (String, String),
    pub a: Rc<Snapshot>,
    pub b: Rc<Snapshot>,
    /// The nodes whose figures are compared too, by id.
    pub nodes: Vec<String>,
    /// What a lesson's comparing step holds B to A on, since it began:
    /// its step (from 0) and each figure's row name, A's and B's.
    pub judged: Option<(usize, Vec<Compared>)>,
    /// Closes the comparison.
    pub on_close: Callback<()>,
    /// Asks where A and B first part, and why.
    #[prop_or_default]
    pub on_diverge: Callback<()>,
}

#[function_component(AbTable)]
pub fn ab_table(props: &AbTableProps) -> Html {
    let (a, b) = (&props.a, &props.b);
    let mut rows: Vec<(String, String, f64, f64)> = vec![
        ("Produced".into(), "produced".into(), a.totals.produced as f64, b.totals.produced as f64),
        ("Delivered".into(), "delivered".into(), a.totals.delivered as f64, b.totals.delivered as f64),
        ("Dropped".into(), "dropped".into(), a.totals.dropped as f64, b.totals.dropped as f64),
        ("In the system".into(), "in-system".into(), a.totals.in_system as f64, b.totals.in_system as f64),
    ];
    for id in &props.nodes {
        let (Some(na), Some(nb)) = (a.nodes.iter().find(|n| &n.id == id), b.nodes.iter().find(|n| &n.id == id)) else {
            continue;
        };
        let dropped = |n: &crate::view::snapshot::NodeView| n.dropped.iter().map(|(_, c)| c).sum::<u64>() as f64;
        rows.push((format!("{id}: passed on"), format!("{id}-departed"), na.departed as f64, nb.departed as f64));
        rows.push((format!("{id}: dropped"), format!("{id}-dropped"), dropped(na), dropped(nb)));
        if na.kind == sluice_engine::scenario::Kind::Queue {
            rows.push((format!("{id}: depth now"), format!("{id}-depth"), na.depth as f64, nb.depth as f64));
        }
    }
    let on_close = props.on_close.clone();
    html! {
        // The instants A's and B's figures are of, as the clock writes them.
        <section class="panel ab" aria-label="A/B comparison" data-testid="ab-table" data-time-s={a.time_s.to_string()} data-b-time-s={b.time_s.to_string()}>
            <div class="panel-head">
                <h2>{ format!("A/B at {:.1} s, same seed", a.time_s) }</h2>
                <button class="icon" aria-label="Close the A/B comparison" onclick={Callback::from(move |_: MouseEvent| on_close.emit(()))}>{"×"}</button>
            </div>
            <table class="ab-table">
                <thead>
                    <tr>
                        <th scope="col">{"Figure"}</th>
                        <th scope="col" class="num">{ format!("A · {}", props.labels.0) }</th>
                        <th scope="col" class="num">{ format!("B · {}", props.labels.1) }</th>
                        <th scope="col" class="num">{"B / A"}</th>
                    </tr>
                </thead>
                <tbody>
                    // The step's own figures first: what its verdict reads.
                    if let Some((k, judged)) = props.judged.clone() {
                        { for judged.into_iter().enumerate().map(|(i, Compared { label: name, a: va, b: vb })| {
                            let shown = |v: Option<f64>| v.map_or_else(|| "—".to_string(), sluice_engine::numbers::significant);
                            let ratio = match (va, vb) {
                                (Some(a), Some(b)) => sluice_engine::numbers::times(a, b),
                                _ => "—".to_string(),
                            };
                            html! {
                                <tr class="judged" data-testid={format!("ab-judged-{i}")}>
                                    <th scope="row">{ name }<span class="since">{ format!(" since step {}", k + 1) }</span></th>
                                    <td class="num" data-testid={format!("ab-judged-{i}-a")}>{ shown(va) }</td>
                                    <td class="num" data-testid={format!("ab-judged-{i}-b")}>{ shown(vb) }</td>
                                    <td class="num ratio" data-testid={format!("ab-judged-{i}-ratio")}>{ ratio }</td>
                                </tr>
                            }
                        }) }
                    }
                    { for rows.into_iter().map(|(name, key, va, vb)| html! {
                        <tr data-testid={format!("ab-{key}")}>
                            <th scope="row">{ name }</th>
                            <td class="num" data-testid={format!("ab-{key}-a")}>{ va }</td>
                            <td class="num" data-testid={format!("ab-{key}-b")}>{ vb }</td>
                            <td class="num ratio">{ sluice_engine::numbers::times(va, vb) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            if b.time_s + 1e-9 < a.time_s {
                <p class="hint">{ format!("B is catching up: at {:.1} s.", b.time_s) }</p>
            }
            <button class="why-selected" data-testid="why-diverge" onclick={props.on_diverge.reform(|_: MouseEvent| ())}
                title="The first instant at which A and B differ, the block that decided otherwise, and why">{"Where do A and B part?"}</button>
        </section>
    }
}
