//! Bringing a part of the page into view once the page has drawn it.

/// Enough of a panel to read it by: its head and a line or two.
pub const A_FEW_LINES: f64 = 160.0;

/// Scrolls the first element `selector` finds into view, after the page
/// has drawn what the last command changed, when it shows less than
/// `enough` of itself (0: when none of it is in view): a chain asked for
/// that only peeks in at the window's foot, or, asked from a state strip
/// on a phone, shows only its last line above the chart. It is brought
/// to the nearest edge of the window (whole if it fits, else as much as
/// the window holds); below the canvas on a wide screen, only as far as
/// keeps the step just pressed, its verdict and the canvas in view. Where the lesson sits beside the canvas (a wide
/// screen), the page never scrolls the canvas's top (A's and B's,
/// comparing) out of view for a part below it: that part shows as far as
/// this allows.
pub fn bring_into_view(selector: &'static str, enough: f64) {
    gloo_timers::callback::Timeout::new(50, move || {
        let window = gloo_utils::window();
        let height = window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
        let document = gloo_utils::document();
        let Some(el) = document.query_selector(selector).ok().flatten() else { return };
        let r = el.get_bounding_client_rect();
        // Below the canvas (not in the column beside it, which scrolls on
        // its own), with the canvas's top in view.
        let beside = document.query_selector(".side").ok().flatten().is_some_and(|side| side.client_height() > 0);
        let in_side = el.closest(".side").ok().flatten().is_some();
        let shown = r.bottom().min(height) - r.top().max(0.0);
        if shown > 0.0 && shown >= r.height().min(enough) {
            return;
        }
        let below_canvas = beside && !in_side && r.top() > 0.0;
        let canvas = document.query_selector(".ab-canvases, svg.graph").ok().flatten().map(|c| c.get_bounding_client_rect().top());
        match canvas.filter(|&top| below_canvas && top >= 0.0) {
            // Its foot to the window's (its top, if it is taller), or as
            // near as the canvas's top allows.
            Some(canvas_top) => {
                let shift = (r.bottom() - height).min(r.top()).min(canvas_top);
                if shift >= 1.0 {
                    window.scroll_by_with_x_and_y(0.0, shift.round());
                }
            }
            None => {
                let options = web_sys::ScrollIntoViewOptions::new();
                options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                el.scroll_into_view_with_scroll_into_view_options(&options);
            }
        }
    })
    .forget();
}

/// Scrolls `container` (itself, never the page) so that `element`, inside
/// it, is in view: its end first when it is taller than the container, so
/// that a step's verdict, at its end, shows.
pub fn show_within(container: &web_sys::Element, element: &web_sys::Element) {
    let (c, r) = (container.get_bounding_client_rect(), element.get_bounding_client_rect());
    let top = f64::from(container.scroll_top());
    let shift = if r.bottom() > c.bottom() || (r.top() < c.top() && r.height() > c.height()) {
        // Its end to the container's foot.
        r.bottom() - c.bottom()
    } else if r.top() < c.top() {
        r.top() - c.top()
    } else {
        return;
    };
    container.set_scroll_top((top + shift).round() as i32);
}

/// Scrolls the column beside the canvas (a wide screen's, which scrolls on
/// its own) so that what `selector` finds in it starts at its top, unless
/// it already starts in the upper half of what shows, once the page has
/// drawn it. The page itself does not move, nor does a
/// narrow screen's layout, where the column is no box of its own.
pub fn show_in_side(selector: &'static str) {
    gloo_timers::callback::Timeout::new(50, move || {
        let document = gloo_utils::document();
        let (Ok(Some(side)), Ok(Some(el))) = (document.query_selector(".side"), document.query_selector(selector)) else { return };
        if side.client_height() == 0 {
            return;
        }
        let (c, r) = (side.get_bounding_client_rect(), el.get_bounding_client_rect());
        // The column's part on screen (before the page scrolls, its foot
        // is below the window's).
        let height = gloo_utils::window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(c.bottom());
        let shown_to = c.bottom().min(height);
        if r.top() < c.top() || r.top() > c.top() + (shown_to - c.top()) / 2.0 {
            side.set_scroll_top((f64::from(side.scroll_top()) + r.top() - c.top()).round() as i32);
        }
    })
    .forget();
}
