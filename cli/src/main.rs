//! `sluice`: runs scenarios natively. A thin driver of the engine.

use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;

mod bench;
mod explain;
mod lesson;
mod plot;
mod replay;
mod scrub_bench;
mod share;
mod sweep;
mod tune;

use clap::{Parser, Subcommand, ValueEnum};
use sluice_engine::scenario::MAX_SCENARIO_BYTES;
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
        /// Simulated seconds to run (default 60; with --arrivals, until the
        /// file's last instant and 60 s more).
        #[arg(long)]
        until: Option<f64>,
        /// The random seed (default: the scenario's own, else 1).
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also print the most recent state transitions (text format).
        #[arg(long)]
        transitions: bool,
        /// Also print, for every queue, what queueing theory predicts
        /// beside what was measured, or why no formula applies (text format).
        #[arg(long)]
        theory: bool,
        /// Stop after this many events, saying how far the run got and
        /// how many more it would need.
        #[arg(long)]
        max_events: Option<u64>,
        /// Also report every node as it stood at this instant, in seconds
        /// (at most --until): the report's `at`, as a run stopped then
        /// gives it.
        #[arg(long, value_name = "T")]
        at: Option<f64>,
        /// Replays a file's traffic in place of the producer's arrivals: a
        /// CSV (time_s[,key][,service_s]), an nginx access log, Envoy's
        /// default access log or a HAR (docs/traffic.md).
        #[arg(long, value_name = "FILE")]
        arrivals: Option<String>,
        /// The format of --arrivals: csv, nginx, envoy or har (default: told
        /// from its first lines).
        #[arg(long, value_name = "FORMAT", requires = "arrivals")]
        log_format: Option<String>,
        /// What a request's key is: client, path, host, none, header:NAME
        /// (a HAR) or field:N (an nginx or Envoy line); default: the
        /// client's address, a CSV's second column.
        #[arg(long, value_name = "KEY", requires = "arrivals")]
        key: Option<String>,
        /// What the replayed requests take at the consumers: scenario (each
        /// consumer's service_time), log (each request what it took in the
        /// log) or empirical (one of the log's times, drawn at random).
        #[arg(long, value_enum, default_value_t = ServiceTimesArg::Scenario, requires = "arrivals")]
        service_times: ServiceTimesArg,
        /// The producer that replays --arrivals (needed when there are
        /// several).
        #[arg(long, value_name = "ID", requires = "arrivals")]
        producer: Option<String>,
        /// Writes every limiter decision, one row each
        /// (created_s,key,node,outcome,at_s), to OUT ("-": standard output,
        /// in place of the summary).
        #[arg(long, value_name = "OUT")]
        decisions: Option<String>,
        /// Writes what the limiters did per minute and key
        /// (minute_s,node,key,admitted,delayed,delay_mean_s,delay_max_s,refused)
        /// to OUT ("-": standard output, in place of the summary): a shadow
        /// replay (docs/traffic.md).
        #[arg(long, value_name = "OUT")]
        shadow: Option<String>,
    },
    /// Checks a scenario file and prints what is wrong with it.
    Check {
        file: String,
    },
    /// Reads a server's configuration and prints a scenario of the limits
    /// it sets, in the order the server applies them; what it does not
    /// model is listed on standard error with its line
    /// (docs/real-limits.md).
    Import {
        /// The product: nginx, haproxy or envoy.
        product: String,
        /// The configuration file.
        file: String,
    },
    /// Prints the configuration that enforces what a scenario's limiters
    /// enforce, with warnings on standard error where the meaning depends
    /// on deployment.
    Export {
        /// The product: nginx, haproxy, envoy, go, tower, netflix or resilience4j.
        product: String,
        /// The scenario file.
        file: String,
        /// Only this node.
        #[arg(long, value_name = "ID")]
        node: Option<String>,
    },
    /// Prints a link that opens the scenario in the page (the whole
    /// scenario rides, compressed, in the link's fragment), or with
    /// --lesson one that opens a lesson, at a step with --step.
    Share {
        /// The scenario file.
        #[arg(required_unless_present = "lesson", conflicts_with = "lesson")]
        file: Option<String>,
        /// The lesson's number (as `sluice lesson` lists them).
        #[arg(long, value_name = "N")]
        lesson: Option<u32>,
        /// The step of the lesson to open at, counted from 1.
        #[arg(long, value_name = "K")]
        step: Option<u32>,
        /// The instant of the scenario's run to open at, paused (seconds).
        #[arg(long, value_name = "T", conflicts_with = "lesson")]
        at: Option<f64>,
        /// Where the page is served.
        #[arg(long, default_value = "http://127.0.0.1:8080/")]
        page: String,
    },
    /// Why the last drop, refusal or state change at or before an instant
    /// happened, at one node or every node: a chain of causes.
    Explain {
        /// The scenario file.
        file: String,
        /// The instant, in simulated seconds.
        #[arg(long, value_name = "T")]
        at: f64,
        /// The node (by id); default: every node where something happened.
        #[arg(long, value_name = "ID")]
        node: Option<String>,
        /// The random seed (default: the scenario's own, else 1).
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Lists the lessons, or follows every step of one and says whether
    /// what its text promises happened.
    Lesson {
        /// The lesson's number, or a lesson file (docs/lesson-format.md);
        /// none: list the built-in lessons.
        #[arg(value_name = "N|FILE")]
        lesson: Option<String>,
    },
    /// Varies parameters over a grid, runs each point several times, and
    /// prints every metric's mean and 95% confidence interval beside what
    /// queueing theory predicts (docs/sweep.md).
    Sweep(SweepArgs),
    /// Finds the smallest (or largest) value of one field whose every
    /// requirement holds with 95% confidence, by bisection with sequential
    /// replications (docs/sweep.md).
    Tune {
        /// The scenario file.
        file: String,
        /// NODE.FIELD=FROM:TO or NODE.FIELD=FROM:TO:STEP: the field searched
        /// and its range (a whole-number field steps by 1; another by STEP,
        /// a hundredth of the range unless given).
        #[arg(long, required = true)]
        vary: Vec<String>,
        /// The varied field, to make as small as the requirements allow.
        #[arg(long, conflicts_with = "maximize")]
        minimize: Option<String>,
        /// The varied field, to make as large as the requirements allow.
        #[arg(long)]
        maximize: Option<String>,
        /// METRIC<=VALUE or METRIC>=VALUE (a sweep's metric, such as
        /// srv.p99_wait_s<=0.2 or line.drop_probability<=0.01); given
        /// twice or more, all of them.
        #[arg(long, required = true)]
        require: Vec<String>,
        /// The most replications a point gets (it gets 5 first, then twice
        /// as many at a time, until its verdict is sure).
        #[arg(long, default_value_t = 20)]
        reps: usize,
        #[command(flatten)]
        runs: Runs,
        #[arg(long, value_enum, default_value_t = TuneFormat::Table)]
        format: TuneFormat,
    },
    /// Measures simulation speed on built-in models.
    Bench {
        /// Multiplies the length of every run (1 takes a few seconds).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Only the engine on M/M/1/K, fastest of its turns by the wall
        /// clock, as one JSON line (what the WebAssembly build is compared
        /// with: a browser has no clock of a thread's time).
        #[arg(long, conflicts_with = "scrub")]
        mm1k: bool,
        /// How fast a run of ten million events is seen again at any
        /// instant, and what keeping it for that costs.
        #[arg(long)]
        scrub: bool,
    },
}

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct SweepArgs {
    #[command(subcommand)]
    merge: Option<SweepCommand>,
    /// The scenario file.
    #[arg(required = true)]
    file: Option<String>,
    /// NODE.FIELD=FROM:TO:STEP or NODE.FIELD=V1,V2,...; given twice or
    /// more, the grid of every combination.
    #[arg(long, required = true)]
    vary: Vec<String>,
    /// Replications per point.
    #[arg(long, default_value_t = 10)]
    reps: usize,
    #[command(flatten)]
    runs: Runs,
    /// Only the points whose index modulo N is I: I/N.
    #[arg(long)]
    shard: Option<String>,
    #[arg(long, value_enum, default_value_t = sweep::SweepFormat::Table)]
    format: sweep::SweepFormat,
    /// Only these metrics in the table and CSV (JSON has them all).
    #[arg(long)]
    metric: Vec<String>,
    /// Draws the first --metric against the first varied parameter, with
    /// 95% intervals and theory's prediction, into this SVG or PNG file.
    #[arg(long)]
    plot: Option<String>,
}

/// How each replication of a sweep or a tuning runs, and on how many
/// threads.
#[derive(clap::Args)]
pub struct Runs {
    /// Simulated seconds each replication runs.
    #[arg(long, default_value_t = 1000.0)]
    pub until: f64,
    /// Simulated seconds left out at the start (default: a tenth of --until).
    #[arg(long)]
    pub warmup: Option<f64>,
    /// The seed the replications' seeds derive from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (default: every core).
    #[arg(long)]
    pub jobs: Option<usize>,
}

impl Runs {
    /// The engine's options for `reps` replications of these runs.
    pub fn options(&self, reps: usize) -> sluice_engine::sweep::Options {
        let warmup_s = self.warmup.unwrap_or(sluice_engine::sweep::warmup_for(self.until));
        sluice_engine::sweep::Options { reps, until_s: self.until, warmup_s, seed: self.seed }
    }
}

#[derive(Subcommand)]
enum SweepCommand {
    /// Combines the JSON of every shard into what the unsharded sweep prints.
    Merge {
        #[arg(required = true)]
        parts: Vec<String>,
        #[arg(long, value_enum, default_value_t = sweep::SweepFormat::Json)]
        format: sweep::SweepFormat,
        #[arg(long)]
        metric: Vec<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TuneFormat {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// A number given on the command line, as an error quotes it: a huge one
/// in exponent form rather than three hundred digits.
fn given(v: f64) -> String {
    if v.abs() < 1e12 {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// Reads a scenario file, never more than one byte past the largest
/// scenario accepted (the file may be endless, as `/dev/zero` is).
fn read_scenario_text(file: &str) -> Result<String, String> {
    read_text(file, MAX_SCENARIO_BYTES, "scenario")
}

/// Reads a text file of at most `cap` bytes, never more than one byte
/// past it; `what` names the kind of file in the error.
fn read_text(file: &str, cap: usize, what: &str) -> Result<String, String> {
    let shown = sluice_engine::printable(file, 200);
    let opened = std::fs::File::open(file).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut bytes = Vec::new();
    opened.take(cap as u64 + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() > cap {
        return Err(format!("{shown} is larger than {cap} bytes, the largest {what} accepted"));
    }
    String::from_utf8(bytes).map_err(|e| format!("{shown} is not UTF-8 text (at byte {})", e.utf8_error().valid_up_to()))
}

fn load(file: &str) -> Result<Scenario, String> {
    let text = read_scenario_text(file)?;
    Scenario::from_json(&text)
        .map_err(|e| format!("{} is not a valid scenario:\n{e}", sluice_engine::printable(file, 200)))
}

/// What `--theory` adds: per queue, measured | predicted.
fn theory_text(sim: &Simulation) -> String {
    use sluice_engine::theory::{Measured, Model};
    let mut out = String::from("\ntheory (measured since time zero | predicted)\n");
    for (i, node) in sim.scenario().nodes.iter().enumerate() {
        if node.block.kind() != sluice_engine::scenario::Kind::Queue {
            continue;
        }
        let line = match Model::of(sim.scenario(), i) {
            Err(why) => format!("no closed form: {why}"),
            Ok(model) => {
                let p = model.predict();
                let head = format!("{}, offered load {:.3}", p.name, p.offered_load);
                match p.steady {
                    None => format!("{head}: no steady state (an unbounded queue with a load of 1 or more grows without end)"),
                    Some(t) => {
                        let m = Measured::of(sim, i);
                        let or_dash = |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
                        format!(
                            "{head}: waiting {:.3} | {:.3}, wait {} s | {:.4} s, 99% wait at most {} s | {} s, drop probability {} | {:.4}",
                            m.mean_waiting,
                            t.mean_waiting,
                            or_dash(m.mean_wait_s, 4),
                            t.mean_wait_s,
                            or_dash(m.p99_wait_s, 4),
                            or_dash(p.p99_wait_s, 4),
                            or_dash(m.drop_probability, 4),
                            t.drop_probability
                        )
                    }
                }
            }
        };
        out.push_str(&format!("  {:<12} {line}\n", node.id));
    }
    out
}

/// A progress bar of `len` steps drawn with `template` on standard error
/// when it is a terminal; nothing when it is piped.
fn progress_bar(len: u64, template: &str) -> indicatif::ProgressBar {
    if !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// Events a run handles between two looks at its progress.
const RUN_SLICE: u64 = 4_000_000;

/// Runs `sim` to `until`, with a progress bar of simulated time on a
/// terminal, stopping after `max_events` if given.
fn run_with_progress(sim: &mut Simulation, until: f64, max_events: Option<u64>, after_slice: &mut dyn FnMut(&mut Simulation) -> Result<(), String>) -> Result<(), String> {
    let target = SimTime::from_secs_f64(until);
    let bar = progress_bar(1000, "{bar:30} {msg}, {elapsed} so far, {eta} left");
    let result = loop {
        let slice = match max_events {
            Some(max) if sim.events() >= max => {
                let now = sim.now().as_secs_f64();
                let per_million = now / sim.events().max(1) as f64 * 1e6;
                let to_go = if now > 0.0 { format!("about {:.3e} more", (until - now) / now * sim.events() as f64) } else { "more than can be said".into() };
                break Err(format!(
                    "stopped after {} events (--max-events) at t = {:.6} s of {until} s: simulated time advances {:.3e} s per million events, so --until {until} needs {to_go} events",
                    sim.events(),
                    now,
                    per_million
                ));
            }
            Some(max) => RUN_SLICE.min(max - sim.events()),
            None => RUN_SLICE,
        };
        let done = sim.run_until_bounded(target, slice);
        if let Err(why) = after_slice(sim) {
            break Err(why);
        }
        match done {
            Ok(true) => break Ok(()),
            Ok(false) => {
                let done = if until > 0.0 { sim.now().as_secs_f64() / until } else { 1.0 };
                bar.set_position((done * 1000.0) as u64);
                bar.set_message(format!("t = {:.6} s of {until} s, {} events", sim.now().as_secs_f64(), sim.events()));
            }
            Err(stop) => break Err(stop.to_string()),
        }
    };
    bar.finish_and_clear();
    result
}

/// `--service-times`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ServiceTimesArg {
    Scenario,
    Log,
    Empirical,
}

/// A run's replayed traffic and recorded decisions, as asked for.
struct Replaying {
    arrivals: Option<String>,
    log_format: Option<String>,
    key: Option<String>,
    service_times: ServiceTimesArg,
    producer: Option<String>,
    shadow: Option<String>,
    decisions: Option<String>,
    /// `--at`: the instant to report every node at.
    at: Option<f64>,
}

#[allow(clippy::too_many_arguments)]
fn run(file: &str, until: Option<f64>, seed: Option<u64>, format: Format, transitions: bool, theory: bool, max_events: Option<u64>, replaying: Replaying) -> Result<String, String> {
    if let Some(until) = until.filter(|u| !(0.0..=1e9).contains(u)) {
        return Err(format!("--until must be between 0 and 1e9 seconds, got {}", given(until)));
    }
    let scenario = load(file)?;
    let seed = seed.unwrap_or(scenario.seed_or_default());
    // The file is read whole before the run, its instants kept to the
    // nanosecond; the run starts at its first whole second.
    let replay = replaying.arrivals.as_deref().map(|path| replay::read(path, replaying.log_format.as_deref(), replaying.key.as_deref())).transpose()?;
    let origin_s = replay.as_ref().map_or(0, |r| r.origin_s);
    let until = until.unwrap_or_else(|| replay.as_ref().and_then(|r| r.at.last()).map_or(60.0, |last| last.as_secs_f64().ceil() + 60.0));
    let mut sim = match replay {
        Some(replay) => {
            use sluice_engine::scenario::ServiceTimes;
            let service = match replaying.service_times {
                ServiceTimesArg::Scenario => ServiceTimes::Scenario,
                ServiceTimesArg::Log => ServiceTimes::Log,
                ServiceTimesArg::Empirical => ServiceTimes::Empirical,
            };
            let shown = sluice_engine::printable(replaying.arrivals.as_deref().unwrap_or_default(), 200);
            Simulation::replaying_with(scenario, seed, replaying.producer.as_deref(), replay, service).map_err(|e| match e {
                sluice_engine::ReplayUseError::NoServiceTimes => format!("--service-times: --arrivals {shown}: {e}"),
                e => e.to_string(),
            })?
        }
        None => Simulation::new(scenario, seed).map_err(|e| e.to_string())?,
    };
    if replaying.decisions.as_deref() == Some("-") && replaying.shadow.as_deref() == Some("-") {
        return Err("--decisions - and --shadow -: only one of them can go to standard output".into());
    }
    let mut out = replaying.decisions.as_deref().map(replay::Decisions::create).transpose()?;
    let mut shadow = replaying.shadow.as_ref().map(|_| sluice_engine::shadow::Shadow::new(origin_s));
    if out.is_some() || shadow.is_some() {
        sim.record_decisions();
    }
    if let Some(at) = replaying.at.filter(|at| !(0.0..=until).contains(at)) {
        return Err(format!("--at must be between 0 and --until ({until} s), got {}", given(at)));
    }
    let mut after_slice = |sim: &mut Simulation| {
        let decisions = sim.take_decisions();
        if let Some(shadow) = &mut shadow {
            shadow.add(&decisions);
        }
        match &mut out {
            Some(out) => out.write(&decisions, sim, origin_s),
            None => Ok(()),
        }
    };
    let mut at = None;
    if let Some(t_s) = replaying.at {
        run_with_progress(&mut sim, t_s, max_events, &mut after_slice)?;
        at = Some(sluice_engine::At { t_s, nodes: sim.report().nodes });
    }
    run_with_progress(&mut sim, until, max_events, &mut after_slice)?;
    let mut to_stdout = false;
    if let Some(out) = out {
        to_stdout |= out.finish()?;
    }
    if let (Some(path), Some(shadow)) = (&replaying.shadow, &shadow) {
        to_stdout |= replay::write_shadow(path, shadow, &sim)?;
    }
    if to_stdout {
        return Ok(String::new());
    }
    let report = sluice_engine::Report { at, ..sim.report() };
    Ok(match format {
        Format::Text => {
            let mut out = report.to_text();
            if transitions {
                out.push_str("\ntransitions (most recent last)\n");
                for t in sim.transitions().entries() {
                    out.push_str(&format!("{:>12.6} s  {:<12} {} -> {}  ({})\n", t.time.as_secs_f64(), sim.node_id(t.node), t.from, t.to, t.cause));
                }
            }
            if theory {
                out.push_str(&theory_text(&sim));
            }
            out
        }
        Format::Json => report.to_json_pretty() + "\n",
    })
}

/// The product named on the command line.
fn product(name: &str, imports: bool) -> Result<sluice_engine::config::Product, String> {
    use sluice_engine::config::Product;
    Product::parse(name).ok_or_else(|| {
        let (verb, names) = if imports { ("reads", Product::names(true)) } else { ("writes", Product::names(false)) };
        format!("no product \"{}\": Sluice {verb} {names}", sluice_engine::printable(name, 40))
    })
}

fn import(name: &str, file: &str) -> Result<String, String> {
    let product = product(name, true)?;
    let shown = sluice_engine::printable(file, 200);
    let mut text = String::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_SCENARIO_BYTES as u64 + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(format!("{shown} is larger than {MAX_SCENARIO_BYTES} bytes"));
    }
    let imported = sluice_engine::config::import(product, &text).map_err(|why| format!("{shown}: {why}"))?;
    let mut stderr = io::stderr().lock();
    for note in &imported.notes {
        let _ = writeln!(stderr, "{shown}: line {}: {}", note.line, sluice_engine::printable_lines(&note.text));
    }
    Ok(imported.scenario.to_json_pretty() + "\n")
}

fn export(name: &str, file: &str, node: Option<&str>) -> Result<String, String> {
    let product = product(name, false)?;
    let scenario = load(file)?;
    let exported = sluice_engine::config::export(product, &scenario, node).map_err(|why| why.to_string())?;
    let mut stderr = io::stderr().lock();
    for warning in &exported.warnings {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    Ok(exported.text)
}


fn main() -> ExitCode {
    let cli = Cli::parse();
    // JSON escapes what would act on a terminal itself; everything else
    // printed is escaped here, once, whatever it repeats of a file.
    let json = match &cli.command {
        Command::Run { format, .. } => matches!(format, Format::Json),
        Command::Sweep(SweepArgs { merge: Some(SweepCommand::Merge { format, .. }), .. }) | Command::Sweep(SweepArgs { format, .. }) => {
            matches!(format, sweep::SweepFormat::Json)
        }
        Command::Tune { format, .. } => *format == TuneFormat::Json,
        _ => false,
    };
    let result = match cli.command {
        Command::Run { file, until, seed, format, transitions, theory, max_events, at, arrivals, log_format, key, service_times, producer, decisions, shadow } => {
            let replay = Replaying { arrivals, log_format, key, service_times, producer, decisions, shadow, at };
            run(&file, until, seed, format, transitions, theory, max_events, replay)
        }
        Command::Bench { scale, .. } if !(1e-4..=1e3).contains(&scale) => Err(format!("--scale must be between 0.0001 and 1000, got {scale}")),
        Command::Bench { scale, scrub: true, .. } => Ok(scrub_bench::run(scale)),
        Command::Bench { scale, mm1k: true, .. } => Ok(bench::mm1k_only(scale)),
        Command::Bench { scale, .. } => Ok(bench::run(scale)),
        Command::Share { file, lesson, step, at, page } => share::link(file.as_deref(), lesson, step, at, &page),
        Command::Explain { file, at, node, seed, format } => explain::run(&file, at, node.as_deref(), seed, format),
        Command::Lesson { lesson: which } => lesson::lesson(which.as_deref()),
        Command::Sweep(SweepArgs { merge: Some(SweepCommand::Merge { parts, format, metric }), .. }) => sweep::merge_parts(&parts, format, &metric),
        Command::Sweep(a) => sweep::run(sweep::Request {
            file: a.file.unwrap_or_default(),
            vary: a.vary,
            reps: a.reps,
            runs: a.runs,
            shard: a.shard,
            format: a.format,
            metric: a.metric,
            plot: a.plot,
        }),
        Command::Tune { file, vary, minimize, maximize, require, reps, runs, format } => tune::run(tune::Request {
            file,
            vary,
            minimize,
            maximize,
            require,
            reps,
            runs,
            json: format == TuneFormat::Json,
        }),
        Command::Import { product, file } => import(&product, &file),
        Command::Export { product, file, node } => export(&product, &file, node.as_deref()),
        Command::Check { file } => load(&file).map(|s| format!("{file}: valid ({} nodes, {} edges)\n", s.nodes.len(), s.edges.len())),
    };
    match result {
        Ok(out) if json => write_output(&out),
        Ok(out) => write_output(&sluice_engine::printable_lines(&out)),
        Err(e) => {
            // Nothing more can be said if standard error is closed too.
            let _ = writeln!(io::stderr(), "sluice: {}", sluice_engine::printable_lines(&e));
            ExitCode::FAILURE
        }
    }
}

/// Writes the output. A reader that stopped reading (`| head`) is a quiet
/// end; any other failure (a full disk) is said plainly.
fn write_output(out: &str) -> ExitCode {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(out.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "sluice: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}
