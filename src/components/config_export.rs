//! "Export as nginx configuration" (or Go code) on a product limiter: what
//! enforces what the block enforces in its product, in a box to copy, with
//! what depends on how the server is deployed (`config::export_node`).

use sluice_engine::config::{export_node, Product};
use sluice_engine::{BlockSpec, NodeSpec};
use yew::prelude::*;

use crate::browser::keep;

#[derive(Properties, PartialEq)]
pub struct ConfigExportProps {
    pub node: NodeSpec,
}

#[function_component(ConfigExport)]
pub fn config_export(props: &ConfigExportProps) -> Html {
    let open = use_state(|| false);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let BlockSpec::ProductLimiter(spec) = &props.node.block else { return html! {} };
    let product = Product::of(spec);
    let body = open.then(|| match export_node(product, &props.node) {
        Ok(exported) => {
            let copy = {
                let text = exported.text.clone();
                Callback::from(move |_: MouseEvent| keep::copy_to_clipboard(&text))
            };
            html! {
                <>
                    <textarea class="config-out" data-testid="config-out" readonly=true rows="10" spellcheck="false" wrap="off"
                        aria-label={product.writes()} value={exported.text.clone()} />
                    <button class="small" data-testid="config-copy" onclick={copy}>{"Copy"}</button>
                    <ul class="config-warnings">
                        { for exported.warnings.iter().map(|w| html! { <li>{ w }</li> }) }
                    </ul>
                </>
            }
        }
        Err(why) => html! { <p class="param-error" role="alert">{ why.to_string() }</p> },
    });
    html! {
        <div class="config-export">
            <button class="small" data-testid="config-export" aria-expanded={open.to_string()} onclick={toggle}>
                { if *open { format!("Hide the {}", product.writes()) } else { format!("Export as {}", product.writes()) } }
            </button>
            { for body }
        </div>
    }
}
