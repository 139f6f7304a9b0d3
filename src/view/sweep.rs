//! A sweep as the page shows it: the form's fields, the request they make,
//! and the sweep's progress as the worker's reports come in.
//!
//! Guarantees:
//! - What the form holds is checked here, in the engine's words, before a
//!   worker starts: a bad field names itself and nothing runs.
//! - Points arrive in grid order and are kept as they came; the result
//!   offered for export is exactly what `sluice sweep --format csv` writes
//!   for the same request.
//! - Plain Rust: no browser types, so it is tested natively.

use sluice_engine::numbers::{as_written, typed};
use sluice_engine::tune::{Goal, TuneRequest};
use sluice_engine::sweep::{field_value, metrics, spread, Estimate, Measure, Metric, NodeField, PointResult, Report, Request, SweepResult, Total, Varied};
use sluice_engine::playground::SweepTicket;
use sluice_engine::Scenario;

/// What "Sweep this" (or a lesson's sweep step) opens the panel on.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepOrder {
    /// Changes whenever a new order is given, so the panel starts afresh.
    pub serial: u32,
    pub name: NodeField,
    pub form: SweepForm,
    /// A lesson's sweep step: the ticket its result goes back with, and
    /// the sweep to start at once.
    pub lesson: Option<(SweepTicket, Request)>,
}

/// The form's fields as typed.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepForm {
    pub from: String,
    pub to: String,
    pub points: String,
    pub reps: String,
    pub until_s: String,
    pub metric: Metric,
    /// A level to read the chart against ("0.01"), as typed; empty: none.
    pub target: String,
    /// The metric's axis on a logarithmic scale.
    pub log_y: bool,
    /// A second metric, charted on its own axis; none unless chosen.
    pub also: Option<Metric>,
    /// A second field varied across the first, as typed: the sweep then
    /// runs every pair and shows a map. Its field empty: none.
    pub across: Across,
}

/// A second field to vary, as typed (`clients.retries.max_attempts`, from,
/// to, points).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Across {
    pub field: String,
    pub from: String,
    pub to: String,
    pub points: String,
}

/// The most points a map may have in all (both fields' values multiplied).
pub const MOST_MAP_POINTS: usize = 400;

impl SweepForm {
    /// Half to one and a half times the value now (whole numbers for a
    /// whole field), eight points, five replications of 200 s, and the
    /// node's first metric of interest.
    pub fn around(name: &NodeField, scenario: &Scenario) -> SweepForm {
        let (current, whole) = field_value(scenario, name).unwrap_or((0.0, false));
        let (from, to) = if current > 0.0 { (current * 0.5, current * 1.5) } else { (0.0, 10.0) };
        let (from, to) = if whole { (from.floor().max(if current >= 1.0 { 1.0 } else { 0.0 }), to.ceil()) } else { (from, to) };
        SweepForm {
            from: typed(from),
            to: typed(to),
            points: "8".into(),
            reps: "5".into(),
            until_s: "200".into(),
            metric: default_metric(name, scenario),
            target: String::new(),
            log_y: false,
            also: None,
            across: Across::default(),
        }
    }

    /// The form a lesson's request fills in.
    pub fn of_request(request: &Request, metric: &Metric) -> SweepForm {
        let values = request.vary.first().map(|v| v.values.clone()).unwrap_or_default();
        SweepForm {
            from: values.first().map_or_else(String::new, |v| typed(*v)),
            to: values.last().map_or_else(String::new, |v| typed(*v)),
            points: values.len().to_string(),
            reps: request.reps.to_string(),
            until_s: typed(request.until_s),
            metric: metric.clone(),
            target: String::new(),
            log_y: false,
            also: None,
            across: Across::default(),
        }
    }

    /// The sweep the form asks for, on `scenario` as it stands; or what
    /// is wrong with it, naming the field.
    pub fn request(&self, name: &NodeField, scenario: &Scenario) -> Result<Request, String> {
        let count = |label: &str, text: &str, most: usize| -> Result<usize, String> {
            match text.trim().parse::<usize>() {
                Ok(n) if (1..=most).contains(&n) => Ok(n),
                _ => Err(format!("{label}: a whole number from 1 to {most}, not \"{}\"", text.trim())),
            }
        };
        let from = number("From", &self.from)?;
        let to = number("To", &self.to)?;
        let points = count("Points", &self.points, MOST_POINTS)?;
        let reps = count("Replications", &self.reps, MOST_REPS)?;
        let until_s = duration(&self.until_s)?;
        let mut request = Request::over(scenario, name, (from, to, points), reps, until_s).map_err(|why| why.to_string())?;
        if let Some(varied) = self.across.varied(name, scenario)? {
            let total = request.vary[0].values.len() * varied.values.len();
            if total > MOST_MAP_POINTS {
                return Err(format!("Points: {total} pairs of values; a map takes at most {MOST_MAP_POINTS}"));
            }
            request.vary.push(varied);
        }
        // Every point checked before anything runs.
        request.plan().map_err(|why| why.to_string())?;
        Ok(request)
    }
}

impl SweepForm {
    /// The search for the setting the form asks for: the smallest (or
    /// largest) value from From to To at which the chosen metric keeps at
    /// most (or at least) the target with 95% confidence, each value getting
    /// up to Replications runs of Duration; or what is wrong, naming the
    /// field. Every mistake is said before anything runs.
    pub fn tune_request(&self, name: &NodeField, scenario: &Scenario, goal: Goal, at_least: bool) -> Result<TuneRequest, String> {
        let (from, to) = (number("From", &self.from)?, number("To", &self.to)?);
        let reps = match self.reps.trim().parse::<usize>() {
            Ok(n) if (2..=MOST_REPS).contains(&n) => n,
            _ => return Err(format!("Replications: a whole number from 2 to {MOST_REPS}, not \"{}\"", self.reps.trim())),
        };
        let until_s = duration(&self.until_s)?;
        if self.target.trim().is_empty() {
            return Err("Target: give the level the metric must keep, such as 0.01".into());
        }
        let target = number("Target", &self.target)?;
        let side = if at_least { ">=" } else { "<=" };
        let request = TuneRequest {
            scenario: scenario.clone(),
            field: name.clone(),
            from,
            to,
            step: None,
            goal,
            require: vec![format!("{}{side}{}", self.metric, as_written(target))],
            reps,
            until_s,
            seed: scenario.seed_or_default(),
        };
        // The rest (a metric this scenario does not measure, a range with
        // no whole number) the worker checks before it runs anything, and
        // says as the search's end: the search's code stays out of the page.
        Ok(request)
    }
}

/// A form's number, or what is wrong with it, naming its field.
impl Across {
    /// The second field's values, if one is named; or what is wrong,
    /// naming the field of the form.
    pub fn varied(&self, first: &NodeField, scenario: &Scenario) -> Result<Option<Varied>, String> {
        let typed_name = self.field.trim();
        if typed_name.is_empty() {
            return Ok(None);
        }
        let name = NodeField::parse(typed_name).map_err(|why| format!("Across: {why}"))?;
        if name == *first {
            return Err(format!("Across: {name} is the field swept already; name another"));
        }
        let (_, whole) = field_value(scenario, &name).ok_or_else(|| format!("Across: no number {name} in the scenario (NODE.FIELD, such as clients.retries.max_attempts)"))?;
        let from = number("Across from", &self.from)?;
        let to = number("Across to", &self.to)?;
        let points = match self.points.trim().parse::<usize>() {
            Ok(n) if (1..=MOST_POINTS).contains(&n) => n,
            _ => return Err(format!("Across points: a whole number from 1 to {MOST_POINTS}, not \"{}\"", self.points.trim())),
        };
        let values = spread(from, to, points, whole).map_err(|why| format!("Across: {why}"))?;
        Ok(Some(Varied { name, values }))
    }
}

fn number(label: &str, text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{label}: \"{}\" is not a number", text.trim())),
    }
}

/// The form's Duration: simulated seconds per run.
fn duration(text: &str) -> Result<f64, String> {
    let until_s = number("Duration", text)?;
    if !(until_s > 0.0 && until_s <= 1e6) {
        return Err(format!("Duration: from above 0 to 1,000,000 s, not {until_s}"));
    }
    Ok(until_s)
}

/// The most points and replications the page offers: a sweep in a browser
/// tab, not on a cluster (`sluice sweep` takes more).
pub const MOST_POINTS: usize = 200;
pub const MOST_REPS: usize = 100;


/// The metric to chart first: a mean depth (the swept node's, else the
/// first queue's), else a drop probability, else a throughput, else the
/// first metric of the sweep.
fn default_metric(name: &NodeField, scenario: &Scenario) -> Metric {
    let metrics = metrics(scenario);
    let queue = scenario.nodes.iter().find(|n| n.block.kind() == sluice_engine::scenario::Kind::Queue).map(|n| &n.id);
    let wanted = [Measure::MeanDepthMessages, Measure::DropProbability, Measure::ThroughputPerS]
        .into_iter()
        .flat_map(|measure| [Some(&name.node), queue].into_iter().flatten().map(move |id| Metric::Of { node: id.clone(), measure }));
    wanted.into_iter().find(|m| metrics.contains(m)).or_else(|| metrics.first().cloned()).unwrap_or(Metric::Total(Total::Produced))
}

/// Where a sweep stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    Running,
    Done,
    Cancelled,
    Failed(String),
}

/// A sweep started from the panel.
/// A sweep's chart: per finished point, (value, mean, half-width) of a
/// figure, and the theory's (value, prediction) where it has one.
pub type Series = (Vec<(f64, f64, f64)>, Vec<(f64, f64)>);

#[derive(Clone, Debug, PartialEq)]
pub struct SweepRun {
    pub name: NodeField,
    pub values: Vec<f64>,
    /// The second field varied across the first, and its values: a map.
    pub across: Option<(NodeField, Vec<f64>)>,
    pub reps: usize,
    /// The finished points, in grid order.
    pub points: Vec<PointResult>,
    /// Replications done, and the time the sweep started (page clock, ms).
    pub done_reps: usize,
    pub started_ms: f64,
    pub finished_ms: Option<f64>,
    pub phase: Phase,
    /// The lesson's sweep it is, if a lesson asked for it.
    pub lesson_step: Option<SweepTicket>,
    /// The result without its points: the request's description.
    skeleton: SweepResult,
}

impl SweepRun {
    /// A sweep of `name` as `request` asks for it.
    pub fn new(name: NodeField, request: &Request, started_ms: f64, lesson_step: Option<SweepTicket>) -> SweepRun {
        let values = request.vary.iter().find(|v| v.name == name).map(|v| v.values.clone()).unwrap_or_default();
        let across = request.vary.iter().find(|v| v.name != name).map(|v| (v.name.clone(), v.values.clone()));
        SweepRun {
            name,
            values,
            across,
            reps: request.reps,
            points: Vec::new(),
            done_reps: 0,
            started_ms,
            finished_ms: None,
            phase: Phase::Running,
            lesson_step,
            skeleton: SweepResult {
                scenario: request.scenario.name.clone(),
                varied: request.vary.iter().map(|v| v.name.clone()).collect(),
                reps: request.reps,
                until_s: request.until_s,
                warmup_s: request.warmup_s,
                seed: request.seed,
                points: Vec::new(),
                shard: None,
                points_total: 0,
                digest: String::new(),
            },
        }
    }

    /// Takes in one report of the worker.
    pub fn take(&mut self, report: Report, now_ms: f64) {
        if self.phase != Phase::Running {
            return;
        }
        match report {
            Report::Ready | Report::Planned { .. } => {}
            Report::Replication { .. } => self.done_reps += 1,
            Report::Point { result, .. } => self.points.push(result),
            Report::Done => {
                self.phase = Phase::Done;
                self.finished_ms = Some(now_ms);
            }
            Report::Failed { why } => {
                self.phase = Phase::Failed(why);
                self.finished_ms = Some(now_ms);
            }
        }
    }

    pub fn cancel(&mut self, now_ms: f64) {
        if self.phase == Phase::Running {
            self.phase = Phase::Cancelled;
            self.finished_ms = Some(now_ms);
        }
    }

    pub fn total_reps(&self) -> usize {
        self.point_count() * self.reps
    }

    /// Replications per second of wall-clock time so far.
    pub fn reps_per_s(&self, now_ms: f64) -> Option<f64> {
        let elapsed_s = (self.finished_ms.unwrap_or(now_ms) - self.started_ms) / 1000.0;
        (elapsed_s > 0.0 && self.done_reps > 0).then(|| self.done_reps as f64 / elapsed_s)
    }

    /// One line on progress: "3 of 8 points, 40 of 80 replications, 95 a
    /// second, about 1 s left".
    pub fn progress_text(&self, now_ms: f64) -> String {
        let mut text = format!(
            "{} of {} points, {} of {} replications",
            self.points.len(),
            self.point_count(),
            self.done_reps,
            self.total_reps()
        );
        if let Some(rate) = self.reps_per_s(now_ms) {
            text.push_str(&format!(", {} a second", if rate >= 10.0 { format!("{rate:.0}") } else { format!("{rate:.1}") }));
            if self.phase == Phase::Running {
                let left_s = (self.total_reps() - self.done_reps.min(self.total_reps())) as f64 / rate;
                text.push_str(&format!(", about {} s left", left_s.ceil()));
            }
        }
        text
    }

    /// Points in all: the first field's values, times the second's for a
    /// map.
    pub fn point_count(&self) -> usize {
        self.values.len() * self.across.as_ref().map_or(1, |(_, values)| values.len())
    }

    /// The result so far: every finished point.
    pub fn result(&self) -> SweepResult {
        SweepResult { points: self.points.clone(), ..self.skeleton.clone() }
    }

    /// For the chart: per finished point, (value, mean, half-width) of
    /// `metric`, and the theory's (value, prediction) where it has one.
    pub fn series(&self, metric: &Metric) -> Series {
        let mut measured = Vec::new();
        let mut theory = Vec::new();
        for p in &self.points {
            let Some(&x) = p.values.get(&self.name) else { continue };
            if let Some(e) = p.metrics.get(metric) {
                if let Some(mean) = e.mean {
                    measured.push((x, mean, e.ci95.unwrap_or(0.0)));
                }
            }
            if let Some(t) = p.predicted(metric).filter(|t| t.is_finite()) {
                theory.push((x, t));
            }
        }
        (measured, theory)
    }

    /// For a map: per value of the second field (rows, from the largest
    /// down, as a plot's axis goes), per value of the first (columns), the
    /// estimate of `metric` once its point has finished.
    pub fn grid(&self, metric: &Metric) -> Option<Grid> {
        let (across, rows) = self.across.as_ref()?;
        let rows: Vec<f64> = rows.iter().rev().copied().collect();
        // Each finished point's estimate by its pair of values, once.
        let by_pair: std::collections::HashMap<(u64, u64), &Estimate> = self
            .points
            .iter()
            .filter_map(|p| Some(((p.values.get(&self.name)?.to_bits(), p.values.get(across)?.to_bits()), p.metrics.get(metric)?)))
            .collect();
        let cells = rows.iter().map(|r| self.values.iter().map(|c| by_pair.get(&(c.to_bits(), r.to_bits())).map(|e| (*e).clone())).collect()).collect();
        Some(Grid { columns: self.values.clone(), rows, cells })
    }

    /// The finished point nearest `x`, by its value.
    pub fn nearest(&self, x: f64) -> Option<f64> {
        self.points
            .iter()
            .filter_map(|p| p.values.get(&self.name).copied())
            .min_by(|a, b| (a - x).abs().total_cmp(&(b - x).abs()))
    }
}

/// A map's cells: `cells[row][column]`, none where the point has not
/// finished.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub columns: Vec<f64>,
    pub rows: Vec<f64>,
    pub cells: Vec<Vec<Option<Estimate>>>,
}

/// Where a measured series meets a target level, by straight lines
/// between its points (in the order of their values): the first value at
/// which its mean crosses it, and at which each edge of its 95% band does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Crossing {
    pub mean: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

pub fn crossing(measured: &[(f64, f64, f64)], target: f64) -> Crossing {
    let mut points = measured.to_vec();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    // A crossing is a change of side; a point on the target is on neither
    // side, so the line is followed to the next point off it.
    let first = |level: &dyn Fn(&(f64, f64, f64)) -> f64| {
        let off: Vec<(f64, f64)> = points.iter().map(|p| (p.0, level(p) - target)).collect();
        let mut last: Option<(f64, f64)> = None;
        for (k, &(x, d)) in off.iter().enumerate() {
            if d == 0.0 {
                continue;
            }
            if let Some((x0, d0)) = last {
                if d0 * d < 0.0 {
                    // The first point on the target between them, if any; else
                    // where the straight line meets it.
                    let on = off[..k].iter().rev().take_while(|p| p.0 > x0).filter(|p| p.1 == 0.0).last();
                    return Some(on.map_or(x0 + (x - x0) * d0 / (d0 - d), |p| p.0));
                }
            }
            last = Some((x, d));
        }
        None
    };
    Crossing { mean: first(&|p| p.1), low: first(&|p| p.1 - p.2), high: first(&|p| p.1 + p.2) }
}

/// The crossing in words, the varied values written as `x` writes them and
/// the metric's as `y` does.
pub fn crossing_words(measured: &[(f64, f64, f64)], target: f64, x: fn(f64) -> String, y: fn(f64) -> String) -> String {
    let c = crossing(measured, target);
    let t = y(target);
    if measured.is_empty() {
        return format!("No point has a value to compare with {t}.");
    }
    match (c.mean, c.low, c.high) {
        (None, None, None) => {
            if measured.iter().all(|p| p.1 - p.2 > target) {
                format!("The 95% band stays wholly above {t}.")
            } else if measured.iter().all(|p| p.1 + p.2 < target) {
                format!("The 95% band stays wholly below {t}.")
            } else {
                format!("The 95% band does not leave {t}: the runs cannot tell which side of it the metric is on.")
            }
        }
        (mean, low, high) => {
            let edges: Vec<f64> = [low, high].into_iter().flatten().collect();
            let (a, b) = (edges.iter().copied().fold(f64::INFINITY, f64::min), edges.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            let band = match edges.len() {
                2 => format!("the 95% band between {} and {}", x(a), x(b)),
                1 => format!("the 95% band's edge at {}", x(a)),
                _ => "its 95% band does not".to_string(),
            };
            match mean {
                Some(m) => format!("The mean crosses {t} at about {}; {band}.", x(m)),
                None => format!("The mean does not cross {t}; {band}."),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_engine::sweep::Runner;

    fn field(text: &str) -> NodeField {
        NodeField::parse(text).unwrap()
    }

    fn metric(text: &str) -> Metric {
        Metric::parse(text).unwrap()
    }

    fn mm1() -> Scenario {
        Scenario::from_json(sluice_engine::lesson::SCENARIOS.iter().find(|(n, _)| *n == "queueing-theory.json").unwrap().1).unwrap()
    }

    #[test]
    fn the_form_opens_around_the_value_now_and_names_what_is_wrong() {
        let s = mm1();
        let rate = field("arrivals.arrivals.rate_per_s");
        let form = SweepForm::around(&rate, &s);
        assert_eq!((form.from.as_str(), form.to.as_str()), ("4", "12"));
        assert_eq!(form.metric.to_string(), "line.mean_depth_messages");
        let workers = SweepForm::around(&field("server.workers"), &s);
        assert_eq!((workers.from.as_str(), workers.to.as_str()), ("1", "2"));
        let bad = |edit: &dyn Fn(&mut SweepForm)| {
            let mut f = form.clone();
            edit(&mut f);
            f.request(&rate, &s).unwrap_err()
        };
        assert_eq!(bad(&|f| f.from = "x".into()), "From: \"x\" is not a number");
        assert!(bad(&|f| f.points = "0".into()).starts_with("Points: a whole number from 1 to 200"));
        assert!(bad(&|f| f.reps = "2.5".into()).starts_with("Replications:"));
        assert!(bad(&|f| f.until_s = "-1".into()).starts_with("Duration:"));
        assert!(bad(&|f| f.to = "1".into()).contains("empty"));
        // A value the scenario refuses is named with its point.
        assert!(bad(&|f| f.from = "-4".into()).starts_with("at arrivals.arrivals.rate_per_s = -4"));
    }

    /// A second field makes a map: every pair runs, the grid's rows the
    /// second field's values from the largest down, each cell its point's
    /// estimate; a bad second field is named.
    #[test]
    fn a_second_field_across_makes_a_map_of_every_pair() {
        let s = mm1();
        let rate = field("arrivals.arrivals.rate_per_s");
        let mut form = SweepForm::around(&rate, &s);
        (form.from, form.to, form.points, form.reps, form.until_s) = ("2".into(), "8".into(), "2".into(), "2".into(), "50".into());
        form.across = Across { field: "server.workers".into(), from: "1".into(), to: "2".into(), points: "2".into() };
        form.metric = metric("line.mean_depth_messages");
        let request = form.request(&rate, &s).unwrap();
        assert_eq!(request.vary.len(), 2);
        let mut run = SweepRun::new(rate.clone(), &request, 0.0, None);
        let mut runner = Runner::new(request.plan().unwrap());
        while let Some(report) = runner.step() {
            run.take(report, 1.0);
        }
        assert!(run.progress_text(1.0).starts_with("4 of 4 points, 8 of 8 replications"), "{}", run.progress_text(1.0));
        let grid = run.grid(&form.metric).unwrap();
        assert_eq!((grid.columns.clone(), grid.rows.clone()), (vec![2.0, 8.0], vec![2.0, 1.0]));
        let depth = |r: usize, c: usize| grid.cells[r][c].as_ref().and_then(|e| e.mean).unwrap();
        // More load, longer line; more workers, shorter.
        assert!(depth(1, 1) > depth(1, 0) && depth(1, 1) > depth(0, 1), "{grid:?}");
        let bad = |across: Across| {
            let mut f = form.clone();
            f.across = across;
            f.request(&rate, &s).unwrap_err()
        };
        let with = |field: &str, points: &str| Across { field: field.into(), from: "1".into(), to: "2".into(), points: points.into() };
        assert!(bad(with("server.nothing", "2")).starts_with("Across: no number server.nothing"), "{}", bad(with("server.nothing", "2")));
        assert!(bad(with("arrivals.arrivals.rate_per_s", "2")).starts_with("Across: arrivals.arrivals.rate_per_s is the field swept already"));
        assert!(bad(with("server.workers", "0")).starts_with("Across points:"));
        form.points = "200".into();
        form.across = Across { field: "server.workers".into(), from: "1".into(), to: "4".into(), points: "3".into() };
        assert!(form.request(&rate, &s).unwrap_err().starts_with("Points: 600 pairs"), "a map is bounded");
    }

    #[test]
    fn reports_build_the_result_the_command_line_prints() {
        let s = mm1();
        let form = SweepForm { from: "2".into(), to: "8".into(), points: "3".into(), reps: "2".into(), until_s: "100".into(), metric: metric("line.mean_depth_messages"), target: String::new(), log_y: false, also: None, across: Across::default() };
        let rate = field("arrivals.arrivals.rate_per_s");
        let request = form.request(&rate, &s).unwrap();
        let mut run = SweepRun::new(rate, &request, 0.0, None);
        let mut runner = Runner::new(request.plan().unwrap());
        let mut now = 0.0;
        while let Some(report) = runner.step() {
            now += 10.0;
            run.take(report, now);
        }
        assert_eq!(run.phase, Phase::Done);
        assert_eq!(run.done_reps, 6);
        let direct = Runner::new(request.plan().unwrap()).finish().unwrap();
        assert_eq!(run.result().to_csv(&[]), direct.to_csv(&[]));
        let (measured, theory) = run.series(&metric("line.mean_depth_messages"));
        assert_eq!(measured.iter().map(|p| p.0).collect::<Vec<_>>(), vec![2.0, 5.0, 8.0]);
        assert_eq!(theory.len(), 3, "M/M/1 has a closed form at every rate below 10");
        assert_eq!(run.nearest(6.9), Some(8.0));
        assert!(run.progress_text(now).starts_with("3 of 3 points, 6 of 6 replications"));
        // Nothing is taken in after the end, nor after a cancel.
        run.take(Report::Replication { point: 0, rep: 0 }, now);
        assert_eq!(run.done_reps, 6);
    }

    #[test]
    fn a_target_is_crossed_where_the_lines_between_points_meet_it() {
        // A falling mean with a band of ±1: 10 at 0, 2 at 4, 0 at 8.
        let m = [(0.0, 10.0, 1.0), (8.0, 0.0, 1.0), (4.0, 2.0, 1.0)];
        let c = crossing(&m, 5.0);
        assert_eq!(c.mean, Some(2.5));
        // Its band's lower edge, 9 then 1, meets 5 at 2; its upper, 11
        // then 3, at 3.
        assert_eq!((c.low, c.high), (Some(2.0), Some(3.0)));
        let w = |v: f64| format!("{v}");
        assert_eq!(crossing_words(&m, 5.0, w, w), "The mean crosses 5 at about 2.5; the 95% band between 2 and 3.");
        assert_eq!(crossing_words(&m, 20.0, w, w), "The 95% band stays wholly below 20.");
        assert_eq!(crossing_words(&m, -5.0, w, w), "The 95% band stays wholly above -5.");
        // A metric on the target everywhere crosses nothing.
        let flat = [(20.0, 0.0, 0.0), (40.0, 0.0, 0.0)];
        assert_eq!(crossing(&flat, 0.0), Crossing::default());
        assert_eq!(crossing_words(&flat, 0.0, w, w), "The 95% band does not leave 0: the runs cannot tell which side of it the metric is on.");
        assert_eq!(crossing_words(&[], 0.5, w, w), "No point has a value to compare with 0.5.");
        // A point on the target between two sides is where it crosses.
        assert_eq!(crossing(&[(1.0, 4.0, 0.0), (2.0, 3.0, 0.0), (3.0, 1.0, 0.0)], 3.0).mean, Some(2.0));
    }
}
