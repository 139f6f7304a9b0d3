//! The Sluice page: a thin driver of the engine. The engine's `Playground`
//! owns the model; this crate turns it into pixels and user input into its
//! commands. Start reading at `app/mod.rs`; `components/` draw, `view/` works
//! out what they show, `browser/` is the glue to the browser.

mod app;
mod bench;
mod browser;
mod components;
mod view;

fn main() {
    components::panic_panel::install();
    yew::Renderer::<app::App>::new().render();
}
