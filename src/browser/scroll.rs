//! Bringing a part of the page into view once the page has drawn it.

/// Scrolls the first element `selector` finds into view, after the page
/// has drawn what the last command changed, when none of it is in view: on
/// a short screen, scrolling to show all of it would push the step just
/// pressed, its verdict and the canvas out of view.
pub fn bring_into_view(selector: &'static str) {
    gloo_timers::callback::Timeout::new(50, move || {
        let height = gloo_utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
        let element = gloo_utils::document().query_selector(selector).ok().flatten();
        let hidden = |el: &web_sys::Element| {
            let r = el.get_bounding_client_rect();
            r.bottom() <= 0.0 || r.top() >= height
        };
        if let Some(el) = element.filter(hidden) {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&options);
        }
    })
    .forget();
}
