//! A value that changes many times a second, watched by the few components
//! that show it (the clock, the dots on the edges), so that a frame renders
//! those components alone and not the page around them.
//!
//! Guarantees:
//! - Setting a different value renders every component watching it; setting
//!   an equal value renders none.
//! - A component that is removed stops watching: nothing is kept for it.
//! - Two `Live`s are equal only if they are the same one, so one handed down
//!   as a property or a context never renders its receivers by itself.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use yew::prelude::*;

pub struct Live<T> {
    value: RefCell<T>,
    /// The components watching, each with the id it registered under.
    watchers: RefCell<Vec<(u64, Callback<()>)>>,
    next_id: Cell<u64>,
}

impl<T: Clone + PartialEq> Live<T> {
    pub fn new(value: T) -> Self {
        Live { value: RefCell::new(value), watchers: RefCell::default(), next_id: Cell::new(0) }
    }

    pub fn get(&self) -> T {
        self.value.borrow().clone()
    }

    /// Changes the value and, if it differs, renders the watchers.
    pub fn set(&self, value: T) {
        if *self.value.borrow() == value {
            return;
        }
        *self.value.borrow_mut() = value;
        // Cloned out first: a watcher may stop watching as it renders.
        let watchers: Vec<Callback<()>> = self.watchers.borrow().iter().map(|(_, w)| w.clone()).collect();
        for watcher in watchers {
            watcher.emit(());
        }
    }

    fn watch(&self, watcher: Callback<()>) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.watchers.borrow_mut().push((id, watcher));
        id
    }

    fn unwatch(&self, id: u64) {
        self.watchers.borrow_mut().retain(|(w, _)| *w != id);
    }
}

impl<T> PartialEq for Live<T> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The current value of `live`; the calling component renders again each
/// time it changes.
#[hook]
pub fn use_live<T: Clone + PartialEq + 'static>(live: Rc<Live<T>>) -> T {
    let update = use_force_update();
    {
        let live = live.clone();
        use_effect_with(Rc::as_ptr(&live) as usize, move |_| {
            // A change between the render and this watch would go unseen
            // until the next one: render once more.
            update.force_update();
            let id = live.watch(Callback::from(move |_| update.force_update()));
            move || live.unwatch(id)
        });
    }
    live.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_equal_value_renders_nobody_and_a_new_one_everybody() {
        let live = Live::new(1u32);
        let heard = Rc::new(Cell::new(0));
        let (a, b) = (heard.clone(), heard.clone());
        let first = live.watch(Callback::from(move |_| a.set(a.get() + 1)));
        live.watch(Callback::from(move |_| b.set(b.get() + 10)));
        live.set(1);
        assert_eq!(heard.get(), 0);
        live.set(2);
        assert_eq!((heard.get(), live.get()), (11, 2));
        live.unwatch(first);
        live.set(3);
        assert_eq!(heard.get(), 21);
    }

    #[test]
    fn lives_are_equal_only_to_themselves() {
        let (a, b) = (Live::new(0), Live::new(0));
        assert!(a == a);
        assert!(a != b);
    }
}
