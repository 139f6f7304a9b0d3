//! "Export as nginx configuration" (or another product's configuration,
//! or Go code) on a product limiter: what enforces what the block enforces
//! in its product, in a box to copy, with what depends on how the server
//! is deployed. The text is written in the engine's worker
//! (`config::Job::Export`), while the box is open and again whenever the
//! block changes.

use sluice_engine::config::{Done, Job, Product};
use sluice_engine::{BlockSpec, NodeSpec};
use yew::prelude::*;

use crate::browser::keep;
use crate::browser::worker::ConfigWorker;

#[derive(Properties, PartialEq)]
pub struct ConfigExportProps {
    pub node: NodeSpec,
}

#[function_component(ConfigExport)]
pub fn config_export(props: &ConfigExportProps) -> Html {
    let open = use_state(|| false);
    // The answer for the block as it is, none while it is being written.
    let answer = use_state(|| None::<Done>);
    let writing = use_mut_ref(|| None::<ConfigWorker>);
    let product = match &props.node.block {
        BlockSpec::ProductLimiter(spec) => Some(Product::of(spec)),
        _ => None,
    };
    {
        let (answer, writing) = (answer.clone(), writing.clone());
        // Written again when the block changes, not when it moves.
        use_effect_with((*open, props.node.id.clone(), props.node.block.clone()), move |(open, id, block)| {
            answer.set(None);
            *writing.borrow_mut() = None;
            if let (true, BlockSpec::ProductLimiter(spec)) = (*open, block) {
                let node = NodeSpec { id: id.clone(), position: None, block: block.clone() };
                let job = Job::Export { product: Product::of(spec), node: Box::new(node) };
                let done = answer.clone();
                match ConfigWorker::start(&job, move |d| done.set(Some(d))) {
                    Ok(worker) => *writing.borrow_mut() = Some(worker),
                    Err(why) => answer.set(Some(Done::Refused { why })),
                }
            }
        });
    }
    let Some(product) = product else { return html! {} };
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let body = open.then(|| match &*answer {
        None => html! { <p class="hint" data-testid="config-writing">{ format!("Writing the {}…", product.writes()) }</p> },
        Some(Done::Exported { text, warnings }) => {
            let copy = {
                let text = text.clone();
                Callback::from(move |_: MouseEvent| keep::copy_to_clipboard(&text))
            };
            html! {
                <>
                    <textarea class="config-out" data-testid="config-out" readonly=true rows="10" spellcheck="false" wrap="off"
                        aria-label={product.writes()} value={text.clone()} />
                    <button class="small" data-testid="config-copy" onclick={copy}>{"Copy"}</button>
                    <ul class="config-warnings">
                        { for warnings.iter().map(|w| html! { <li>{ w }</li> }) }
                    </ul>
                </>
            }
        }
        Some(Done::Refused { why }) => html! { <p class="param-error" role="alert">{ why.clone() }</p> },
        Some(Done::Imported { .. }) => html! {},
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
