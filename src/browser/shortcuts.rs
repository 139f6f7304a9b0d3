//! Keyboard shortcuts on the whole page: Ctrl+Z undo, Ctrl+Shift+Z or
//! Ctrl+Y redo, Ctrl+D duplicate, Ctrl+A select every block, Escape select
//! none, Delete or Backspace delete, Space play or pause.
//!
//! Guarantees: a key pressed in a text field belongs to the field, and
//! Space on a focused button presses that button; neither reaches the page.

use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

/// What the shortcuts do.
pub struct Shortcuts {
    pub undo: Callback<()>,
    pub redo: Callback<()>,
    pub duplicate: Callback<()>,
    pub delete: Callback<()>,
    pub play: Callback<()>,
    pub select_all: Callback<()>,
    pub select_none: Callback<()>,
}

/// The element a key event went to.
fn target(e: &KeyboardEvent) -> Option<Element> {
    e.target().and_then(|t| t.dyn_into::<Element>().ok())
}

/// Whether a key press belongs to a text field rather than to the page.
fn typing(e: &KeyboardEvent) -> bool {
    target(e).is_some_and(|el| matches!(el.tag_name().to_ascii_lowercase().as_str(), "input" | "select" | "textarea"))
}

/// Whether a button has the focus (where Space presses it).
fn on_button(e: &KeyboardEvent) -> bool {
    target(e).is_some_and(|el| el.tag_name().eq_ignore_ascii_case("button") || el.get_attribute("role").as_deref() == Some("button"))
}

/// Listens for the shortcuts while the component lives; installed again
/// whenever `deps` (what the callbacks read) changes, since callbacks see
/// the state of their render.
#[hook]
pub fn use_shortcuts<D: PartialEq + 'static>(deps: D, shortcuts: Shortcuts) {
    use_effect_with(deps, move |_| {
        let options = EventListenerOptions::enable_prevent_default();
        let listener = EventListener::new_with_options(&gloo_utils::document(), "keydown", options, move |event| {
            let Some(e) = event.dyn_ref::<KeyboardEvent>() else { return };
            if typing(e) {
                return;
            }
            let command = e.ctrl_key() || e.meta_key();
            let action = match e.key().to_ascii_lowercase().as_str() {
                "z" if command && e.shift_key() => &shortcuts.redo,
                "z" if command => &shortcuts.undo,
                "y" if command => &shortcuts.redo,
                "d" if command => &shortcuts.duplicate,
                "a" if command => &shortcuts.select_all,
                "escape" => &shortcuts.select_none,
                "delete" | "backspace" => &shortcuts.delete,
                " " if !on_button(e) => &shortcuts.play,
                _ => return,
            };
            action.emit(());
            e.prevent_default();
        });
        move || drop(listener)
    });
}
