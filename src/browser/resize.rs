//! Watching an element's size: a `ResizeObserver` reports its content box
//! when it changes, so that nothing reads the layout every frame (which
//! would force the browser to lay the page out again).
//!
//! Guarantee: the watch stops when the `SizeWatch` is dropped.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, ResizeObserver, ResizeObserverEntry};

/// A size being watched; dropping it stops the watch.
pub struct SizeWatch {
    observer: ResizeObserver,
    _on_resize: Closure<dyn FnMut(js_sys::Array)>,
}

impl SizeWatch {
    /// Calls `on_size(width, height)` with `target`'s content box, in CSS
    /// pixels, now and whenever it changes. `None` if the browser has no
    /// `ResizeObserver`.
    pub fn new(target: &Element, mut on_size: impl FnMut(f64, f64) + 'static) -> Option<SizeWatch> {
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() else { return };
            let rect = entry.content_rect();
            on_size(rect.width(), rect.height());
        });
        let observer = ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
        observer.observe(target);
        Some(SizeWatch { observer, _on_resize: on_resize })
    }
}

impl Drop for SizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
