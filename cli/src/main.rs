//! `sluice`: runs scenarios natively. A thin driver of the engine.

use std::process::ExitCode;

mod bench;

use clap::{Parser, Subcommand, ValueEnum};
use sluice_engine::{Scenario, SimTime, Simulation};

#[derive(Parser)]
#[command(name = "sluice", version, about = "Sluice: a flow-control simulator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs a scenario file and prints a summary.
    Run {
        /// The scenario file (JSON, see docs/scenario.md).
        file: String,
        /// Simulated seconds to run.
        #[arg(long, default_value_t = 60.0)]
        until: f64,
        /// The random seed (default: the scenario's own, else 1).
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also print the most recent state transitions (text format).
        #[arg(long)]
        transitions: bool,
    },
    /// Checks a scenario file and prints what is wrong with it.
    Check {
        file: String,
    },
    /// Prints a link that opens the scenario in the page: the whole
    /// scenario rides, compressed, in the link's fragment.
    Share {
        file: String,
        /// Where the page is served.
        #[arg(long, default_value = "http://127.0.0.1:8080/")]
        page: String,
    },
    /// Measures simulation speed on built-in models.
    Bench {
        /// Multiplies the length of every run (1 takes a few seconds).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn load(file: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    Scenario::from_json(&text).map_err(|e| format!("{file} is not a valid scenario:\n{e}"))
}

fn run(file: &str, until: f64, seed: Option<u64>, format: Format, transitions: bool) -> Result<String, String> {
    if !(0.0..=1e9).contains(&until) {
        return Err(format!("--until must be between 0 and 1e9 seconds, got {until}"));
    }
    let scenario = load(file)?;
    let seed = seed.or(scenario.seed).unwrap_or(1);
    let mut sim = Simulation::new(scenario, seed).map_err(|e| e.to_string())?;
    sim.run_until(SimTime::from_secs_f64(until));
    let report = sim.report();
    Ok(match format {
        Format::Text if transitions => {
            let mut out = report.to_text();
            out.push_str("\ntransitions (most recent last)\n");
            for t in sim.transitions().entries() {
                out.push_str(&format!("{:>12.6} s  {:<12} {} -> {}  ({})\n", t.time.as_secs_f64(), sim.node_id(t.node), t.from, t.to, t.cause));
            }
            out
        }
        Format::Text => report.to_text(),
        Format::Json => report.to_json_pretty() + "\n",
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, until, seed, format, transitions } => run(&file, until, seed, format, transitions),
        Command::Bench { scale } if !(1e-4..=1e3).contains(&scale) => Err(format!("--scale must be between 0.0001 and 1000, got {scale}")),
        Command::Bench { scale } => Ok(bench::run(scale)),
        Command::Share { file, page } => load(&file).map(|s| format!("{page}#s={}\n", sluice_engine::share::encode(&s))),
        Command::Check { file } => load(&file).map(|s| format!("{file}: valid ({} nodes, {} edges)\n", s.nodes.len(), s.edges.len())),
    };
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sluice: {e}");
            ExitCode::FAILURE
        }
    }
}
