//! The inspector: the parameters of the selected node, changed live. A value
//! the engine refuses shows its error inline and the last valid value stays
//! in force.

use sluice_engine::blocks::{Arrivals, Backpressure, OnRefused};
use sluice_engine::{BlockSpec, NodeSpec};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::slider::Slider;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub spec: Option<NodeSpec>,
    pub on_reconfigure: Callback<(String, BlockSpec), Result<(), String>>,
    pub on_close: Callback<()>,
}

/// A parameter's name and how to set it on a block.
type Setter = fn(&mut BlockSpec, f64);

#[function_component(Inspector)]
pub fn inspector(props: &InspectorProps) -> Html {
    // The parameter whose last change was refused, and why.
    let error = use_state(|| None::<(&'static str, String)>);
    {
        let error = error.clone();
        let id = props.spec.as_ref().map(|s| s.id.clone());
        use_effect_with(id, move |_| error.set(None));
    }
    let Some(spec) = props.spec.clone() else {
        return html! {
            <section class="panel inspector" aria-label="Inspector">
                <h2>{"Inspector"}</h2>
                <p class="hint">{"Select a node on the canvas to see and change its parameters while it runs."}</p>
            </section>
        };
    };

    let apply = {
        let error = error.clone();
        let on_reconfigure = props.on_reconfigure.clone();
        let spec = spec.clone();
        move |name: &'static str, set: Setter| {
            let error = error.clone();
            let on_reconfigure = on_reconfigure.clone();
            let spec = spec.clone();
            Callback::from(move |value: f64| {
                let mut block = spec.block.clone();
                set(&mut block, value);
                match on_reconfigure.emit((spec.id.clone(), block)) {
                    Ok(()) => error.set(None),
                    Err(message) => error.set(Some((name, message))),
                }
            })
        }
    };
    let error_for = |name: &str| error.as_ref().filter(|(n, _)| *n == name).map(|(_, m)| m.clone());
    let choose = {
        let on_reconfigure = props.on_reconfigure.clone();
        let spec = spec.clone();
        move |set: fn(&mut BlockSpec, &str)| {
            let on_reconfigure = on_reconfigure.clone();
            let spec = spec.clone();
            Callback::from(move |e: Event| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                let mut block = spec.block.clone();
                set(&mut block, &select.value());
                let _ = on_reconfigure.emit((spec.id.clone(), block));
            })
        }
    };

    let params = match &spec.block {
        BlockSpec::Queue(q) => html! {
            <>
                <Slider name="soft-messages" label="Soft limit" unit="messages" min={0.0} max={500.0} step={1.0}
                    value={q.soft_limit.messages as f64} error={error_for("soft-messages")}
                    help="At this depth the queue asks its producers to pause (0: no limit)."
                    on_change={apply("soft-messages", |b, v| if let BlockSpec::Queue(q) = b { q.soft_limit.messages = v.max(0.0) as u64 })} />
                <Slider name="hard-messages" label="Hard limit" unit="messages" min={0.0} max={1000.0} step={1.0}
                    value={q.hard_limit.messages as f64} error={error_for("hard-messages")}
                    help="At this depth the client is disconnected and the queue is lost (0: no limit)."
                    on_change={apply("hard-messages", |b, v| if let BlockSpec::Queue(q) = b { q.hard_limit.messages = v.max(0.0) as u64 })} />
                <Slider name="soft-bytes" label="Soft limit" unit="bytes" min={0.0} max={1048576.0} step={1024.0}
                    value={q.soft_limit.bytes as f64} error={error_for("soft-bytes")}
                    help="The same threshold counted in bytes; whichever is reached first triggers."
                    on_change={apply("soft-bytes", |b, v| if let BlockSpec::Queue(q) = b { q.soft_limit.bytes = v.max(0.0) as u64 })} />
                <Slider name="hard-bytes" label="Hard limit" unit="bytes" min={0.0} max={2097152.0} step={1024.0}
                    value={q.hard_limit.bytes as f64} error={error_for("hard-bytes")}
                    help="The hard threshold in bytes (0: no limit)."
                    on_change={apply("hard-bytes", |b, v| if let BlockSpec::Queue(q) = b { q.hard_limit.bytes = v.max(0.0) as u64 })} />
                <Slider name="reconnect" label="Reconnect after" unit="s" min={0.0} max={10.0} step={0.1}
                    value={q.reconnect_after_s} error={error_for("reconnect")}
                    help="After a disconnect, a new client connects this much later."
                    on_change={apply("reconnect", |b, v| if let BlockSpec::Queue(q) = b { q.reconnect_after_s = v })} />
            </>
        },
        BlockSpec::Producer(p) => html! {
            <>
                if let Some(rate) = p.arrivals.rate_per_s() {
                    <Slider name="rate" label="Rate" unit="messages/s" min={1.0} max={2000.0} step={1.0}
                        value={rate} error={error_for("rate")}
                        help="How many messages the producer makes per second, on average."
                        on_change={apply("rate", |b, v| if let BlockSpec::Producer(p) = b { p.arrivals = p.arrivals.with_rate(v) })} />
                }
                if matches!(p.arrivals, Arrivals::Poisson { .. } | Arrivals::Constant { .. }) {
                    <div class="param">
                        <label for="param-process"><span class="param-label">{"Arrivals"}</span></label>
                        <select id="param-process" data-testid="param-process" onchange={choose(|b, v| if let BlockSpec::Producer(p) = b {
                            let rate_per_s = p.arrivals.rate_per_s().unwrap_or(1.0);
                            p.arrivals = if v == "constant" { Arrivals::Constant { rate_per_s } } else { Arrivals::Poisson { rate_per_s } };
                        })}>
                            <option value="poisson" selected={matches!(p.arrivals, Arrivals::Poisson { .. })}>{"Poisson (random gaps)"}</option>
                            <option value="constant" selected={matches!(p.arrivals, Arrivals::Constant { .. })}>{"Constant (even gaps)"}</option>
                        </select>
                    </div>
                }
                <div class="param">
                    <label for="param-backpressure"><span class="param-label">{"When asked to pause"}</span></label>
                    <select id="param-backpressure" data-testid="param-backpressure" onchange={choose(|b, v| if let BlockSpec::Producer(p) = b {
                        p.backpressure = if v == "ignore" { Backpressure::Ignore } else { Backpressure::Pause };
                    })}>
                        <option value="pause" selected={p.backpressure == Backpressure::Pause}>{"pause (a client we stop reading)"}</option>
                        <option value="ignore" selected={p.backpressure == Backpressure::Ignore}>{"ignore (a live source)"}</option>
                    </select>
                    <p class="param-help">{"A live source keeps sending past the soft limit, so the queue can reach its hard limit."}</p>
                </div>
                <div class="param">
                    <label for="param-refused"><span class="param-label">{"When refused"}</span></label>
                    <select id="param-refused" data-testid="param-refused" onchange={choose(|b, v| if let BlockSpec::Producer(p) = b {
                        p.on_refused = match v { "drop" => OnRefused::Drop, "retry" => OnRefused::Retry, _ => OnRefused::Pause };
                    })}>
                        <option value="pause" selected={p.on_refused == OnRefused::Pause}>{"hold it and wait"}</option>
                        <option value="drop" selected={p.on_refused == OnRefused::Drop}>{"drop it"}</option>
                        <option value="retry" selected={p.on_refused == OnRefused::Retry}>{"retry after a delay"}</option>
                    </select>
                </div>
            </>
        },
        BlockSpec::Consumer(c) => html! {
            <>
                <Slider name="service" label="Service time" unit="ms" min={0.1} max={100.0} step={0.1}
                    value={c.service_time.mean() * 1000.0} error={error_for("service")}
                    help="How long one message takes to serve, on average."
                    on_change={apply("service", |b, v| if let BlockSpec::Consumer(c) = b {
                        c.service_time = c.service_time.with_mean(v / 1000.0);
                    })} />
                <Slider name="workers" label="Workers" unit="at once" min={1.0} max={32.0} step={1.0}
                    value={c.workers as f64} error={error_for("workers")}
                    help="How many messages the consumer serves in parallel."
                    on_change={apply("workers", |b, v| if let BlockSpec::Consumer(c) = b { c.workers = v.max(0.0) as u32 })} />
            </>
        },
        other => html! {
            <>
                <p class="hint">{"This block's parameters, as the scenario file gives them:"}</p>
                <pre class="spec-json">{ serde_json::to_string_pretty(other).unwrap_or_default() }</pre>
            </>
        },
    };

    let on_close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <section class="panel inspector" aria-label="Inspector" data-testid="inspector">
            <div class="panel-head">
                <h2>{ format!("{} ", spec.id) }<span class="muted">{ spec.block.kind() }</span></h2>
                <button class="icon" onclick={on_close} aria-label="Close the inspector">{"×"}</button>
            </div>
            { params }
        </section>
    }
}
