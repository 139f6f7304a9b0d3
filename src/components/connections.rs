//! A block's connections in the inspector: what it feeds, each with a
//! Disconnect button, and "Connect to…" for a block without a free output
//! otherwise reached only by dragging from its port. With it a keyboard
//! alone builds a scenario that runs.
//!
//! Guarantees: only blocks that take input are offered, the block itself
//! and those it already feeds left out; a connection the editor refuses
//! (a cycle, say) is explained by the page's notice, like a dragged one.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConnectionsProps {
    pub id: AttrValue,
    /// The blocks it feeds, in edge order.
    pub outputs: Vec<String>,
    /// How many outputs the block may have.
    pub max_outputs: usize,
    /// Blocks it could feed.
    pub candidates: std::rc::Rc<Vec<String>>,
    pub on_connect: Callback<String>,
    pub on_disconnect: Callback<String>,
}

#[function_component(Connections)]
pub fn connections(p: &ConnectionsProps) -> Html {
    let target = use_node_ref();
    if p.max_outputs == 0 {
        return html! {};
    }
    let feeds = p.outputs.iter().map(|to| {
        let (on_disconnect, to_id) = (p.on_disconnect.clone(), to.clone());
        html! {
            <li key={to.clone()}>
                <span>{ format!("→ {to}") }</span>
                <button class="small" data-testid={format!("disconnect-{to}")} aria-label={format!("Disconnect {} from {to}", p.id)}
                    onclick={Callback::from(move |_: MouseEvent| on_disconnect.emit(to_id.clone()))}>{"Disconnect"}</button>
            </li>
        }
    });
    let room = p.outputs.len() < p.max_outputs;
    let on_connect = {
        let (target, on_connect) = (target.clone(), p.on_connect.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(to) = target.cast::<HtmlSelectElement>().map(|s| s.value()).filter(|v| !v.is_empty()) {
                on_connect.emit(to);
            }
        })
    };
    html! {
        <div class="connections" data-testid="connections">
            <h3>{"Connections"}</h3>
            if p.outputs.is_empty() {
                <p class="param-help">{ format!("{} feeds nothing yet.", p.id) }</p>
            } else {
                <ul class="feeds">{ for feeds }</ul>
            }
            if room && !p.candidates.is_empty() {
                <form class="connect-to" onsubmit={on_connect}>
                    <label for="connect-to">{"Connect to"}</label>
                    <select id="connect-to" data-testid="connect-to" ref={target}>
                        { for p.candidates.iter().map(|id| html! { <option key={id.clone()} value={id.clone()}>{ id }</option> }) }
                    </select>
                    <button type="submit" class="small" data-testid="connect">{"Connect"}</button>
                </form>
            }
        </div>
    }
}
