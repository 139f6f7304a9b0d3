//! The lesson picker: every lesson as a card, the first thing a new visitor
//! sees. Choosing one opens it; "Just the playground" closes the picker and
//! keeps what is on the canvas. Escape closes it too.
//!
//! Guarantees: it is a modal dialog. The focus starts on the first lesson
//! and stays inside (Tab from the last control goes to the first, Shift+Tab
//! from the first to the last); when the picker closes, the focus goes back
//! to where it was when it opened (the Lessons button, say). The page
//! behind is inert meanwhile (see the app).

use std::rc::Rc;

use gloo_events::{EventListener, EventListenerOptions};
use sluice_engine::lesson::LessonText;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LessonPickerProps {
    pub lessons: Rc<Vec<LessonText>>,
    /// Reports the index of the lesson chosen.
    pub on_pick: Callback<usize>,
    pub on_close: Callback<()>,
}

/// Tab wraps around inside `dialog`, and a focus found outside it is
/// brought back in.
fn keep_focus_inside(dialog: &Element, e: &KeyboardEvent) {
    let Ok(list) = dialog.query_selector_all("button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex=\"-1\"])") else { return };
    let focusable: Vec<HtmlElement> = (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<HtmlElement>().ok()).collect();
    let (Some(first), Some(last)) = (focusable.first(), focusable.last()) else { return };
    let active = gloo_utils::document().active_element();
    let at = |el: &HtmlElement| active.as_ref().is_some_and(|a| a == el.unchecked_ref::<Element>());
    let inside = active.as_ref().is_some_and(|a| dialog.contains(Some(a)));
    let wrap_to = if !inside {
        Some(first)
    } else if e.shift_key() && at(first) {
        Some(last)
    } else if !e.shift_key() && at(last) {
        Some(first)
    } else {
        None
    };
    if let Some(target) = wrap_to {
        e.prevent_default();
        let _ = target.focus();
    }
}

#[function_component(LessonPicker)]
pub fn lesson_picker(props: &LessonPickerProps) -> Html {
    let first = use_node_ref();
    let dialog = use_node_ref();
    {
        let on_close = props.on_close.clone();
        let first = first.clone();
        let dialog = dialog.clone();
        use_effect_with((), move |_| {
            let document = gloo_utils::document();
            // Where the focus goes back to.
            let before = document.active_element().and_then(|e| e.dyn_into::<HtmlElement>().ok());
            // The keyboard starts on the first lesson.
            if let Some(button) = first.cast::<HtmlElement>() {
                let _ = button.focus();
            }
            let options = EventListenerOptions::enable_prevent_default();
            let listener = EventListener::new_with_options(&document, "keydown", options, move |event| {
                let Some(e) = event.dyn_ref::<KeyboardEvent>() else { return };
                match e.key().as_str() {
                    "Escape" => {
                        e.prevent_default();
                        e.stop_immediate_propagation();
                        on_close.emit(());
                    }
                    "Tab" => {
                        if let Some(dialog) = dialog.cast::<Element>() {
                            keep_focus_inside(&dialog, e);
                        }
                    }
                    _ => {}
                }
            });
            move || {
                drop(listener);
                if let Some(before) = before.filter(|b| b.is_connected()) {
                    let _ = before.focus();
                }
            }
        });
    }
    let cards = props.lessons.iter().enumerate().map(|(k, l)| {
        let on_pick = props.on_pick.clone();
        html! {
            <li>
                <button class="lesson-card" data-testid={format!("lesson-{}", l.number)} ref={if k == 0 { first.clone() } else { NodeRef::default() }}
                    onclick={Callback::from(move |_: MouseEvent| on_pick.emit(k))}>
                    <span class="lesson-number">{ l.number }</span>
                    <span class="lesson-title">{ &l.title }</span>
                    <span class="lesson-source">{ &l.source }</span>
                    <span class="lesson-summary">{ &l.summary }</span>
                </button>
            </li>
        }
    });
    let on_close = props.on_close.clone();
    html! {
        <div class="picker-backdrop">
            <section class="picker" ref={dialog} role="dialog" aria-modal="true" aria-labelledby="picker-title" data-testid="lesson-picker">
                <div class="picker-head">
                    <div>
                        <h2 id="picker-title">{"Learn flow control by watching it"}</h2>
                        <p class="hint">{"Each lesson is a running model of a real server's mechanism, with what to watch and what to try. Pick one; you can change anything on the canvas as it runs."}</p>
                    </div>
                    <button class="secondary" data-testid="picker-close" onclick={Callback::from(move |_: MouseEvent| on_close.emit(()))}>
                        {"Just the playground"}
                    </button>
                </div>
                <ol class="lesson-cards">{ for cards }</ol>
            </section>
        </div>
    }
}
