//! The page's components: each takes plain data as props and reports input
//! as callbacks; none holds the model.

pub mod ab_table;
pub mod canvases;
pub mod chart;
pub mod config_export;
pub mod config_import;
pub mod connections;
pub mod controls;
pub mod counters;
pub mod event_log;
pub mod glossary;
pub mod flow_layer;
pub mod graph;
pub mod import_button;
pub mod inspector;
pub mod lesson_editor;
pub mod lesson_panel;
pub mod lesson_picker;
pub mod measured_canvas;
pub mod messages;
pub mod node_face;
pub mod palette;
pub mod phase_map;
pub mod panic_panel;
pub mod scenario_details;
pub mod shadow_panel;
pub mod sweep_chart;
pub mod sweep_panel;
pub mod theory_panel;
pub mod time_line;
pub mod toolbar;
pub mod view_box;
pub mod why_panel;
