//! "Import configuration…": a real server's configuration, pasted or
//! chosen as a file, read into blocks that join the canvas as one undoable
//! edit (`Command::ImportConfig`).
//!
//! Guarantees: a modal dialog like the glossary (`browser::dialog`); what
//! the engine refuses is shown in it, with the line, and the text stays
//! there to be mended.

use sluice_engine::config::Product;
use yew::prelude::*;

use crate::browser::dialog::use_modal;
use crate::browser::keep;

#[derive(Properties, PartialEq)]
pub struct ConfigImportProps {
    /// Why the last try was refused.
    pub error: Option<String>,
    /// A configuration is being read.
    pub busy: bool,
    pub on_import: Callback<(Product, String)>,
    pub on_close: Callback<()>,
}

#[function_component(ConfigImport)]
pub fn config_import(props: &ConfigImportProps) -> Html {
    let dialog = use_node_ref();
    let area = use_node_ref();
    let text = use_state(String::new);
    let product = use_state(|| Product::Nginx);
    let on_product = {
        let product = product.clone();
        Callback::from(move |e: Event| {
            let name = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            if let Some(p) = Product::parse(&name) {
                product.set(p);
            }
        })
    };
    let unread = use_state(|| None::<String>);
    let reader = use_mut_ref(|| None::<gloo_file::callbacks::FileReader>);
    use_modal(dialog.clone(), area.clone(), props.on_close.clone());
    // What was last tried: a refusal is shown while it still stands for
    // the text and server on screen.
    let tried = use_state(|| None::<(Product, String)>);
    let on_input = {
        let (text, unread) = (text.clone(), unread.clone());
        Callback::from(move |e: InputEvent| {
            text.set(e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value());
            unread.set(None);
        })
    };
    let on_file = {
        let (text, unread, reader) = (text.clone(), unread.clone(), reader.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                let (text, unread) = (text.clone(), unread.clone());
                *reader.borrow_mut() = keep::read_file(file, move |read| match read {
                    Ok(read) => {
                        text.set(read);
                        unread.set(None);
                    }
                    Err(why) => unread.set(Some(format!("The file was not read: {why}."))),
                });
            }
            input.set_value("");
        })
    };
    let on_import = {
        let (text, product, tried, on_import) = (text.clone(), product.clone(), tried.clone(), props.on_import.clone());
        Callback::from(move |_: MouseEvent| {
            tried.set(Some((*product, (*text).clone())));
            on_import.emit((*product, (*text).clone()))
        })
    };
    let on_close = props.on_close.reform(|_: MouseEvent| ());
    // What its file is called, and how one begins.
    let (file, placeholder) = match *product {
        Product::Haproxy => ("haproxy.cfg", "frontend web\n    stick-table type ip size 100k expire 30s store http_req_rate(10s)\n    ..."),
        Product::Envoy => ("envoy.yaml", "- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    ..."),
        _ => ("nginx.conf", "http {\n    limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;\n    ..."),
    };
    let current = tried.as_ref().is_some_and(|(p, t)| *p == *product && *t == *text);
    let refused = props.error.clone().filter(|_| current);
    let error = if props.busy { None } else { (*unread).clone().or(refused) };
    html! {
        <div class="picker-backdrop">
            <section class="picker config-import" ref={dialog} role="dialog" aria-modal="true" aria-labelledby="config-import-title" data-testid="config-import">
                <div class="picker-head">
                    <h2 id="config-import-title">{"Import a server's configuration"}</h2>
                    <button class="secondary" data-testid="config-import-close" onclick={on_close}>{"Close"}</button>
                </div>
                <label class="config-field">
                    <span>{"Server"}</span>
                    <select data-testid="config-product" onchange={on_product}>
                        { for Product::ALL.into_iter().filter(|p| p.imports()).map(|p| html! {
                            <option value={p.name()} selected={p == *product}>{ p.label() }</option>
                        }) }
                    </select>
                </label>
                <p class="hint">{ product.reads() }{ " A row on the canvas is a placeholder producer, the limits, an application. Undo takes it back." }</p>
                <label class="config-field">
                    <span>{ format!("Configuration ({file})") }</span>
                    <textarea ref={area} data-testid="config-text" rows="12" spellcheck="false" wrap="off" value={(*text).clone()} oninput={on_input}
                        placeholder={placeholder} />
                </label>
                <label class="config-field">
                    <span>{"or a file"}</span>
                    <input type="file" data-testid="config-file" accept=".conf,.cfg,.yaml,.yml,text/plain" onchange={on_file} />
                </label>
                if let Some(why) = error {
                    <p class="param-error" role="alert" data-testid="config-error">{ why }</p>
                }
                <div class="config-actions">
                    <button class="primary" data-testid="config-import-go" onclick={on_import} disabled={text.trim().is_empty() || props.busy}>
                        { if props.busy { "Reading…" } else { "Import" } }
                    </button>
                </div>
            </section>
        </div>
    }
}
