//! Sluice's simulation engine: a deterministic discrete-event simulator of
//! flow control (producers, queues, consumers and the signals between them).
//!
//! Pure Rust: no browser, UI or WebAssembly types, so the same code runs in
//! the page and in the `sluice` command. Start reading at `simulation/mod.rs`;
//! each block lives in `blocks/`, one file each, its guarantees at the top.

pub mod arrivals;
pub mod bench_model;
pub mod blocks;
pub(crate) mod buffer;
pub(crate) mod context;
pub mod distribution;
pub mod editor;
pub mod flows;
pub mod json_field;
pub mod lesson;
pub mod measure;
pub(crate) mod message;
pub mod metrics;
pub mod playground;
pub mod plumbing;
pub(crate) mod priorities;
pub mod report;
pub mod rng;
pub mod scenario;
pub(crate) mod scheduler;
pub mod share;
pub mod state;
pub mod state_times;
pub mod simulation;
pub mod supervision;
pub mod sweep;
pub mod theory;
pub mod time;

pub use metrics::{DropReason, SeriesPoint, Transition};
pub use report::{NodeReport, Report, Totals};
pub use editor::Editor;
pub use playground::{Command, Playground};
pub use scenario::{DEFAULT_SCENARIO, BlockSpec, FieldError, NodeSpec, Scenario, ScenarioError, SCENARIO_VERSION};
pub use simulation::{Node, Overflow, Simulation, Stall, Stop, MAX_EVENTS_AT_ONE_INSTANT, MAX_MESSAGES_HELD};
pub use state::State;
pub use time::{SimDuration, SimTime};

