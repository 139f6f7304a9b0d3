//! Counting the heap a value takes: an allocator that wraps another and
//! keeps, per thread, the bytes it holds.
//!
//! Guarantees:
//! - `Counting` changes nothing of how memory is allocated: every call
//!   goes to the allocator it wraps, with the same layout.
//! - `measured(f)` gives the heap bytes `f` left allocated on this thread
//!   (a clone's own bytes, for a clone), exactly, when the program
//!   installed `Counting` as its global allocator; `None` when it did not,
//!   so a caller knows to estimate instead of reading zero.
//! - Per thread: work on other threads (a sweep's workers) does not enter
//!   this thread's count.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

thread_local! {
    /// Bytes allocated less bytes freed by this thread through `Counting`.
    static NET: Cell<isize> = const { Cell::new(0) };
    /// Whether this thread has allocated through `Counting`.
    static SEEN: Cell<bool> = const { Cell::new(false) };
}

/// An allocator that counts what it hands out, per thread. Installed by a
/// program (the page, the command line) as
/// `#[global_allocator] static ALLOC: Counting<System> = Counting(System);`.
pub struct Counting<A>(pub A);

// SAFETY: every call is passed to the wrapped allocator unchanged; the
// counting touches only const-initialised thread locals, which allocate
// nothing.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { self.0.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { self.0.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { self.0.realloc(ptr, layout, new_size) };
        // A failed reallocation leaves the block as it was.
        if !moved.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

#[inline]
fn count(bytes: isize) {
    // A thread being torn down may free after its locals are gone: that
    // byte count is then lost, harmlessly.
    let _ = NET.try_with(|net| net.set(net.get().wrapping_add(bytes)));
    let _ = SEEN.try_with(|seen| seen.set(true));
}

/// The heap bytes `f` left allocated on this thread, and what it returned;
/// the bytes are `None` when `Counting` is not the global allocator.
pub fn measured<T>(f: impl FnOnce() -> T) -> (T, Option<usize>) {
    let before = NET.with(Cell::get);
    let value = f();
    let after = NET.with(Cell::get);
    let seen = SEEN.with(Cell::get);
    (value, seen.then(|| after.wrapping_sub(before).max(0) as usize))
}
