//! The glossary as a modal dialog (the text of `docs/glossary.md`), opened
//! from the top bar or from an underlined word, which it scrolls to and
//! marks.
//!
//! Guarantees: a modal dialog like the lesson picker (`browser::dialog`):
//! the focus starts on the entry asked for (or the close button), stays
//! inside, and goes back where it was on Escape or Close.

use yew::prelude::*;

use crate::browser::dialog::use_modal;
use crate::view::glossary;

#[derive(Properties, PartialEq)]
pub struct GlossaryProps {
    /// The word to show first, if one was clicked.
    pub word: Option<String>,
    pub on_close: Callback<()>,
}

#[function_component(Glossary)]
pub fn glossary(props: &GlossaryProps) -> Html {
    let dialog = use_node_ref();
    let first = use_node_ref();
    let close = use_node_ref();
    let wanted = props.word.as_deref().and_then(glossary::find).map(|e| e.anchor());
    // The focus goes to the entry asked for, else to Close.
    let focus = if wanted.is_some() { first.clone() } else { close.clone() };
    use_modal(dialog.clone(), focus, props.on_close.clone());
    {
        let first = first.clone();
        use_effect_with((), move |_| {
            if let Some(el) = first.cast::<web_sys::Element>() {
                el.scroll_into_view();
            }
        });
    }
    let entries = glossary::entries().iter().map(|entry| {
        let id = entry.anchor();
        let asked = wanted.as_deref() == Some(id.as_str());
        html! {
            <div class={classes!("glossary-entry", asked.then_some("asked"))} id={id.clone()} data-testid={id}
                tabindex={asked.then_some("-1")} ref={if asked { first.clone() } else { NodeRef::default() }}>
                <dt>{ entry.word }</dt>
                <dd>{ entry.definition.as_str() }</dd>
            </div>
        }
    });
    let on_close = props.on_close.reform(|_: MouseEvent| ());
    html! {
        <div class="picker-backdrop">
            <section class="picker glossary" ref={dialog} role="dialog" aria-modal="true" aria-labelledby="glossary-title" data-testid="glossary">
                <div class="picker-head">
                    <h2 id="glossary-title">{"Glossary"}</h2>
                    <button class="secondary" ref={close} data-testid="glossary-close" onclick={on_close}>{"Close"}</button>
                </div>
                <dl class="glossary-list">{ for entries }</dl>
            </section>
        </div>
    }
}

/// Opens the glossary at a word: given by the app to every `Term`.
#[derive(Clone, PartialEq)]
pub struct OpenGlossary(pub Callback<Option<String>>);

#[derive(Properties, PartialEq)]
pub struct TermProps {
    /// The glossary's word for it.
    pub word: AttrValue,
    /// What is shown, if not the word itself.
    #[prop_or_default]
    pub shown: Option<AttrValue>,
}

/// A word the glossary explains: underlined, its definition as a tooltip,
/// and a press opens the glossary at it (for a keyboard, a finger and a
/// screen reader, which a tooltip alone would leave out). A word the
/// glossary lacks is shown plainly.
#[function_component(Term)]
pub fn term(props: &TermProps) -> Html {
    let open = use_context::<OpenGlossary>();
    let shown = props.shown.clone().unwrap_or_else(|| props.word.clone());
    let (Some(open), Some(entry)) = (open, glossary::find(&props.word)) else { return html! { { shown } } };
    let word = props.word.to_string();
    html! {
        <button type="button" class="term" title={entry.definition.clone()}
            onclick={Callback::from(move |e: MouseEvent| {
                e.stop_propagation();
                open.0.emit(Some(word.clone()))
            })}>{ shown }</button>
    }
}
