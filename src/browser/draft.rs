//! A field's text as typed, kept until the value in force changes.
//!
//! Yew puts a field's `value` back at every redraw; a field that applies
//! only on `change` (leaving it, Enter) would lose what was typed to any
//! redraw before that, a running page's or a refusal's. Shown instead is
//! the draft, given by the field's `input`, until `in_force` changes.

use yew::prelude::*;

/// The text to show, and what to call with each text typed.
#[hook]
pub fn use_draft(in_force: String) -> (String, Callback<String>) {
    let draft = use_state(|| None::<String>);
    {
        let draft = draft.clone();
        use_effect_with(in_force.clone(), move |_| draft.set(None));
    }
    let shown = (*draft).clone().unwrap_or(in_force);
    (shown, Callback::from(move |text: String| draft.set(Some(text))))
}
