//! The scenario's own name and description, shown in the inspector when no
//! block is selected: one's own scenario need not keep a lesson's name.
//!
//! Guarantees: a field is handed on when it is done (its change event: the
//! name on Enter or on leaving it, the description on leaving it), so one
//! rename is one edit for Undo; what is being typed is not overwritten while
//! the run goes on (the fields are drawn again only when the name or the
//! description in force changes: the callback is made once).

use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The longest name the field takes (a file name is made from it).
pub const NAME_MAX_CHARS: u32 = 120;
/// The longest description the field takes.
pub const DESCRIPTION_MAX_CHARS: u32 = 4000;

#[derive(Properties, PartialEq)]
pub struct ScenarioDetailsProps {
    pub name: AttrValue,
    pub description: AttrValue,
    /// The new name and description.
    pub on_describe: Callback<(String, String)>,
}

#[function_component(ScenarioDetails)]
pub fn scenario_details(p: &ScenarioDetailsProps) -> Html {
    let on_name = {
        let (on_describe, description) = (p.on_describe.clone(), p.description.to_string());
        Callback::from(move |e: Event| {
            let name = e.target_unchecked_into::<HtmlInputElement>().value();
            on_describe.emit((name, description.clone()));
        })
    };
    let on_description = {
        let (on_describe, name) = (p.on_describe.clone(), p.name.to_string());
        Callback::from(move |e: Event| {
            let description = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            on_describe.emit((name.clone(), description));
        })
    };
    html! {
        <div class="scenario-details" data-testid="scenario-details">
            <h3>{"This scenario"}</h3>
            <div class="param">
                <label for="scenario-name">{"Name"}</label>
                <input id="scenario-name" class="param-text" data-testid="scenario-name" type="text" maxlength={NAME_MAX_CHARS.to_string()}
                    placeholder="Untitled" value={p.name.clone()} onchange={on_name} />
                <p class="param-help">{"Shown in the top bar; the exported file is named after it."}</p>
            </div>
            <div class="param">
                <label for="scenario-description">{"Description"}</label>
                <textarea id="scenario-description" class="param-text" data-testid="scenario-description" rows="4"
                    maxlength={DESCRIPTION_MAX_CHARS.to_string()} placeholder="What this scenario shows"
                    value={p.description.clone()} onchange={on_description} />
            </div>
        </div>
    }
}
