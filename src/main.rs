//! The Sluice page: a thin driver of the engine. The engine owns the model;
//! this crate turns it into pixels and user input into engine calls.

mod app;
mod chart;
mod controls;
mod counters;
mod graph;
mod inspector;
mod palette;
mod slider;
mod snapshot;
mod transitions_log;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
