//! A callback on every frame the browser paints (`requestAnimationFrame`),
//! until the handle is dropped.
//!
//! Guarantees: the callback runs at most once per painted frame, never after
//! the `FrameLoop` is dropped, and not at all while the tab is hidden (the
//! browser pauses animation frames there), so a background tab costs nothing.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gloo_render::{request_animation_frame, AnimationFrame};

/// Keeps a per-frame callback going; dropping it stops the callback.
pub struct FrameLoop {
    next: Rc<RefCell<Option<AnimationFrame>>>,
}

impl FrameLoop {
    /// Calls `on_frame` with the frame's timestamp (milliseconds) before
    /// every paint.
    pub fn start(on_frame: impl FnMut(f64) + 'static) -> FrameLoop {
        let next = Rc::new(RefCell::new(None));
        request_next(Rc::downgrade(&next), Rc::new(RefCell::new(on_frame)));
        FrameLoop { next }
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        // Dropping the pending frame cancels it.
        self.next.borrow_mut().take();
    }
}

/// Asks for the next frame. The loop holds only a weak reference to its own
/// slot, so a dropped `FrameLoop` ends the chain.
fn request_next<F: FnMut(f64) + 'static>(slot: Weak<RefCell<Option<AnimationFrame>>>, on_frame: Rc<RefCell<F>>) {
    let Some(strong) = slot.upgrade() else { return };
    let again = slot.clone();
    let frame = request_animation_frame(move |time| {
        if again.upgrade().is_none() {
            return;
        }
        (on_frame.borrow_mut())(time);
        request_next(again, on_frame);
    });
    *strong.borrow_mut() = Some(frame);
}
