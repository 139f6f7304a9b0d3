//! A modal dialog's keyboard: the focus starts on a chosen element and
//! stays inside the dialog (Tab from the last control goes to the first,
//! Shift+Tab from the first to the last), Escape closes it, and when it
//! closes the focus goes back to where it was when it opened (or, that
//! gone, to the open lesson's title).

use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// The open lesson's title, where the focus goes when a dialog closes and
/// what opened it is gone.
const LESSON_TITLE: &str = "[data-testid=\"lesson-panel\"] h2";

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

/// Makes the element `dialog` refers to modal while the calling component
/// lives, with the focus first on `first`; Escape calls `on_close`.
#[hook]
pub fn use_modal(dialog: NodeRef, first: NodeRef, on_close: Callback<()>) {
    use_effect_with((), move |_| {
        let document = gloo_utils::document();
        // Where the focus goes back to.
        let before = document.active_element().and_then(|e| e.dyn_into::<HtmlElement>().ok());
        if let Some(el) = first.cast::<HtmlElement>() {
            let _ = el.focus();
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
            let body = gloo_utils::document().body();
            match before.filter(|b| b.is_connected() && body.as_ref() != Some(b)) {
                Some(before) => {
                    let _ = before.focus();
                }
                // What opened it is gone (the picker, closed for the
                // editor it opened): the focus goes to the open lesson's
                // title, once the page has drawn it, if a lesson is open.
                None => {
                    gloo_timers::callback::Timeout::new(0, || {
                        let document = gloo_utils::document();
                        // Unless the focus went somewhere meanwhile.
                        if document.active_element().is_some_and(|a| document.body().is_none_or(|b| *b != a)) {
                            return;
                        }
                        let title = document.query_selector(LESSON_TITLE).ok().flatten();
                        if let Some(title) = title.and_then(|t| t.dyn_into::<HtmlElement>().ok()) {
                            // Where it is: the lesson's own scroll stays.
                            let options = web_sys::FocusOptions::new();
                            options.set_prevent_scroll(true);
                            let _ = title.focus_with_options(&options);
                        }
                    })
                    .forget();
                }
            }
        }
    });
}
