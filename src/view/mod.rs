//! View data: what the page shows, worked out from the engine's playground
//! as plain data that components compare (snapshots, chart series, the
//! panels' refresh cadence, what is noted frame by frame), and the helpers
//! several components share (selection, colours, words).

pub mod chart_data;
pub mod colours;
pub mod glossary;
pub mod long_trace;
pub mod motion;
pub mod observed;
pub mod panels;
pub mod player;
pub mod selection;
pub mod shadow;
pub mod snapshot;
pub mod sweep;
pub mod tune;
pub mod why;
pub mod words;
