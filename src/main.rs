//! The Sluice page: a thin driver of the engine. The engine owns the model;
//! this crate turns it into pixels and user input into engine calls.

mod ab_table;
mod app;
mod chart;
mod controls;
mod counters;
mod event_log;
mod fields;
mod flow_layer;
mod frames;
mod graph;
mod inspector;
mod keep;
mod lesson_panel;
mod lesson_picker;
mod live;
mod measured_canvas;
mod motion;
mod palette;
mod panic_panel;
mod snapshot;
mod theory_panel;

fn main() {
    panic_panel::install();
    yew::Renderer::<app::App>::new().render();
}
