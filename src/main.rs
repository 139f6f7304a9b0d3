//! The Sluice page: a thin driver of the engine. The engine's `Playground`
//! owns the model; this crate turns it into pixels and user input into its
//! commands. Start reading at `app/mod.rs`; `components/` draw, `view/` works
//! out what they show, `browser/` is the glue to the browser.

mod app;
mod bench;
mod browser;
mod components;
mod view;

/// The allocator, counting what the page holds: the run kept for
/// scrubbing measures its checkpoints by it, to keep within their budget.
#[global_allocator]
static ALLOC: sluice_engine::heap::Counting<std::alloc::System> = sluice_engine::heap::Counting(std::alloc::System);

fn main() {
    components::panic_panel::install();
    yew::Renderer::<app::App>::new().render();
}
