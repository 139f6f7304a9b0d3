//! Shadow replay in the page: what the run's limiters did to each key,
//! the keys refused most and a time line of refusals, as `sluice run
//! --shadow` writes them per key and minute.

use std::rc::Rc;

use yew::prelude::*;

use crate::view::shadow::{clock, span, width, ShadowView};

#[derive(Properties, PartialEq)]
pub struct ShadowPanelProps {
    pub view: Rc<ShadowView>,
}

/// The time line's height, in its own units.
const HEIGHT: f64 = 40.0;

#[function_component(ShadowPanel)]
pub fn shadow_panel(props: &ShadowPanelProps) -> Html {
    let v = &props.view;
    let (t, u) = (v.total, v.unkeyed);
    let n = |count: u64| sluice_engine::thousands(count as f64);
    let rows = v.keys.iter().map(|(key, c)| {
        html! {
            <tr>
                <td class="shadow-key" title={key.clone()}>{ key }</td>
                <td class="num">{ n(c.refused) }</td>
                <td class="num">{ n(c.delayed) }</td>
                <td class="num">{ n(c.admitted) }</td>
            </tr>
        }
    });
    let most = v.bins.iter().map(|b| b.1).max().unwrap_or(0).max(1) as f64;
    let bars_wide = v.bins.len().max(1) as f64;
    let bars = v.bins.iter().enumerate().filter(|(_, b)| b.1 > 0).map(|(i, &(start, n))| {
        let h = HEIGHT * n as f64 / most;
        html! {
            <rect x={(i as f64 + 0.1).to_string()} y={(HEIGHT - h).to_string()} width="0.8" height={h.to_string()}>
                <title>{ format!("{}: {n} refused", span(start, v.bin_s)) }</title>
            </rect>
        }
    });
    let per = width(v.bin_s);
    let (first, last) = (v.bins.first().map_or(0, |b| b.0), v.bins.last().map_or(0, |b| b.0 + v.bin_s));
    html! {
        <section class="panel shadow" aria-label="Limits by key" data-testid="shadow">
            <h2>{"Limits by key"}</h2>
            <p class="hint" data-testid="shadow-total">
                { format!("{} requests decided: {} refused, {} delayed, {} let through.", n(t.admitted + t.delayed + t.refused), n(t.refused), n(t.delayed), n(t.admitted)) }
                if u.refused > 0 {
                    { format!(" Of them without a key: {} refused.", n(u.refused)) }
                }
            </p>
            if v.keys.is_empty() {
                <p class="hint">{"No key refused yet."}</p>
            } else {
                <table class="shadow-keys" data-testid="shadow-keys">
                    <caption>{"The keys refused most"}</caption>
                    <thead><tr><th>{"key"}</th><th class="num">{"refused"}</th><th class="num">{"delayed"}</th><th class="num">{"let through"}</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
                <figure class="shadow-timeline">
                    <svg data-testid="shadow-timeline" viewBox={format!("0 0 {bars_wide} {HEIGHT}")} preserveAspectRatio="none" role="img"
                        aria-label={format!("Refusals per {per}, from {} to {} of the run", clock(first), clock(last))}>
                        { for bars }
                    </svg>
                    <figcaption class="hint">{ format!("Refusals per {per}, {} to {} of the run", clock(first), clock(last)) }</figcaption>
                </figure>
            }
        </section>
    }
}
