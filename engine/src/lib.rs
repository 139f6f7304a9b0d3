//! Sluice's simulation engine: a deterministic discrete-event simulator of
//! flow control (producers, queues, consumers and the signals between them).
//!
//! Pure Rust: no browser, UI or WebAssembly types, so the same code runs in
//! the page and in the `sluice` command. Start reading at
//! `playground/mod.rs`, then `simulation/mod.rs`; each block lives in
//! `blocks/`, its guarantees at the top (`ARCHITECTURE.md` is the map).
//!
//! The API is what is `pub` here: the modules a driver uses whole, and the
//! names re-exported below. The blocks, the clock, the random streams, the
//! metrics and the plumbing are the crate's own; a block's runtime state is
//! read through `Simulation::nodes` and its `Node`s, and a block's
//! parameters are the scenario format's (`scenario::QueueSpec` and the rest).

pub(crate) mod answers;
pub(crate) mod arrivals;
pub mod bench_model;
pub(crate) mod blocks;
pub(crate) mod buffer;
pub mod config;
pub(crate) mod context;
pub(crate) mod distribution;
pub mod editor;
pub mod explain;
pub(crate) mod flows;
pub mod lesson;
pub(crate) mod measure;
pub(crate) mod message;
pub(crate) mod metrics;
pub mod playground;
pub(crate) mod plumbing;
pub(crate) mod priorities;
pub mod replay;
pub mod report;
pub(crate) mod rng;
pub mod scenario;
pub(crate) mod scheduler;
pub mod shadow;
pub mod share;
pub(crate) mod state;
pub(crate) mod state_times;
pub mod simulation;
pub(crate) mod supervision;
pub mod sweep;
pub mod tally;
pub mod theory;
pub mod timeline;
pub mod tune;
pub mod why;
pub(crate) mod time;

// The API: the modules above that are `pub` (the playground, the scenario
// format, the editor, lessons, sweeps, theory, share codes, the simulation
// and its report, the benchmark's model), and what they are built of, here.
pub use editor::Editor;
pub use measure::Mark;
pub use metrics::{Decision, DropReason, Outcome, Percentiles, SeriesPoint, Transition, DEPTH_SERIES_CAPACITY};
pub use playground::{Command, Playground};
pub use plumbing::heap;
pub use plumbing::json_read::{from_value, to_value};
pub use plumbing::pairs::merge_pairs;
pub use plumbing::numbers;
pub use plumbing::printable::{printable, printable_lines};
pub use plumbing::numbers::thousands;
pub use plumbing::units;
pub use report::{At, ClientReport, NodeReport, Report, Totals};
pub use rng::SimRng;
pub use scenario::{set_at, BlockSpec, FieldError, FieldPath, SetError, NodeSpec, Scenario, ScenarioError, DEFAULT_SCENARIO, SCENARIO_VERSION};
pub use simulation::{Node, Overflow, ReplayUseError, Simulation, Stall, Stop, MAX_EVENTS_AT_ONE_INSTANT, MAX_MESSAGES_HELD};
pub use state::{Cause, Phase, SendState, State, Strip};
pub use state_times::{StateSlot, STATE_SLOTS};
pub use time::{SimDuration, SimTime};
