//! The Why panel: a cause chain, the thing asked about first, each next
//! link its cause. Each link is a button that shows the run at its
//! instant with its block selected.

use std::rc::Rc;

use yew::prelude::*;

use crate::browser::scroll::{bring_into_view, A_FEW_LINES};
use crate::view::why::WhyView;

#[derive(Properties, PartialEq)]
pub struct WhyPanelProps {
    pub why: Rc<WhyView>,
    /// A link pressed: its instant (seconds) and block.
    pub on_link: Callback<(f64, usize)>,
    pub on_close: Callback<()>,
}

#[function_component(WhyPanel)]
pub fn why_panel(props: &WhyPanelProps) -> Html {
    // A new chain is brought into view (asked from the log, it may open
    // off screen on a phone; at a lesson's verdict, it may only peek in
    // under the time line); the same chain, its lines visited, is not.
    use_effect_with(props.why.asked.clone(), |_| bring_into_view("[data-testid=\"why\"]", A_FEW_LINES));
    let links = props.why.links.iter().enumerate().map(|(k, link)| {
        let (at_s, node) = (link.at_s, link.node);
        let onclick = props.on_link.reform(move |_: MouseEvent| (at_s, node));
        let title = format!("Show the run at {:.3} s with {} selected", link.at_s, link.node_id);
        html! {
            <li class={classes!("why-link", (k == 0).then_some("asked"))}>
                <button class="why-button" {title} {onclick} data-testid="why-link">
                    <span class="time">{ format!("{:.3} s", link.at_s) }</span>
                    <span class="why-text">{ &link.text }</span>
                </button>
            </li>
        }
    });
    let close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <section class="why" aria-label="Why" data-testid="why">
            <div class="why-head">
                <h3>{"Why? "}<span class="muted">{ &props.why.asked }</span></h3>
                <button class="close" aria-label="Close the explanation" onclick={close}>{"×"}</button>
            </div>
            <ol class="why-chain">{ for links }</ol>
            <p class="hint">{"Each line is caused by the next. Press one to see the run at its instant."}</p>
        </section>
    }
}
