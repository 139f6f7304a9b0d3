//! Browser glue: the clock, animation frames, keyboard shortcuts, values
//! that change every frame, and keeping work (local storage, share links,
//! files), scrolling a part into view, a field's text as typed, and the engine's worker (sweeps, configurations). Nothing here knows the model.

pub mod clock;
pub mod dialog;
pub mod draft;
pub mod frames;
pub mod keep;
pub mod live;
pub mod resize;
pub mod scroll;
pub mod shortcuts;
pub mod worker;
