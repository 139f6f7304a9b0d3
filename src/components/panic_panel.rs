//! The error panel: should the page panic (a bug in Sluice), it says so in
//! plain words over the page, with the panic's message and a way out,
//! instead of leaving a page that silently stopped moving.
//!
//! Built with plain DOM calls, not Yew: after a panic the Yew app can no
//! longer render. The panel is added once, for the first panic.
//!
//! Opening the page with `?crash-test` panics on purpose a moment after it
//! starts, so that the panel can be seen and tested in a real browser.

use gloo_events::EventListener;
use wasm_bindgen::JsCast;

const PANEL_ID: &str = "panic-panel";

pub fn install() {
    // Through Yew, which otherwise installs its own hook when it starts.
    yew::set_custom_panic_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("Sluice panicked: {message}").into());
        show(&message);
    }));
    let crash_test = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|q| q.trim_start_matches('?').split('&').any(|p| p == "crash-test"));
    if crash_test {
        gloo_timers::callback::Timeout::new(500, || panic!("crash test requested by ?crash-test")).forget();
    }
}

fn show(message: &str) {
    let document = gloo_utils::document();
    if document.get_element_by_id(PANEL_ID).is_some() {
        return;
    }
    let Ok(panel) = document.create_element("div") else { return };
    panel.set_id(PANEL_ID);
    panel.set_class_name("panic-panel");
    let _ = panel.set_attribute("role", "alertdialog");
    let _ = panel.set_attribute("aria-labelledby", "panic-title");
    let _ = panel.set_attribute("data-testid", "panic");
    let add = |parent: &web_sys::Element, tag: &str, text: &str| {
        let el = document.create_element(tag).ok()?;
        el.set_text_content(Some(text));
        parent.append_child(&el).ok()?;
        Some(el)
    };
    let _ = add(&panel, "h2", "Sluice stopped working").map(|h| h.set_id("panic-title"));
    add(
        &panel,
        "p",
        "Something went wrong inside the page. This is a bug in Sluice, not a fault of your scenario. \
         Your work is saved in this browser as it stood a moment before (each edit is saved 0.3 s after it): \
         reloading the page brings it back.",
    );
    add(&panel, "pre", message);
    if let Some(reload) = add(&panel, "button", "Reload the page") {
        EventListener::new(&reload, "click", |_| reload_page()).forget();
    }
    if let Some(afresh) = add(&panel, "button", "Start afresh (forget the saved scenario)") {
        EventListener::new(&afresh, "click", |_| {
            crate::browser::keep::forget_saved();
            reload_page();
        })
        .forget();
    }
    if let Some(body) = document.body() {
        let _ = body.append_child(&panel);
        if let Some(button) = panel.query_selector("button").ok().flatten().and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = button.focus();
        }
    }
}

fn reload_page() {
    if let Some(w) = web_sys::window() {
        let _ = w.location().reload();
    }
}
