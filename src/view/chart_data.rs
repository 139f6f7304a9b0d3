//! What the charts draw, worked out from a run and its samples: the lines of
//! the chart on show (only that one), the thresholds of the charted queues,
//! their state strips, and variant B drawn over A. Plain data: the `Charts`
//! component turns it into pixels.

use std::rc::Rc;

use sluice_engine::lesson::Figure;
use sluice_engine::scenario::Limits;
use sluice_engine::{StateSlot, Strip};
use sluice_engine::{BlockSpec, Simulation, State};

use crate::view::colours::{state_colour, NODE_COLOURS};
use crate::view::observed::Sampler;

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub colour: &'static str,
    pub points: Vec<(f64, f64)>,
    pub stroke: Stroke,
}

/// How a line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    /// Variant B of an A/B comparison, over A's solid line.
    Dashed,
    /// A threshold: dashed, a step line through its points (a threshold
    /// changed while running steps where it changed); a NaN level is a gap
    /// where none was set.
    Threshold,
}


/// The charts a user can pick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChartKind {
    #[default]
    Depth,
    Bytes,
    Throughput,
    Latency,
}

impl ChartKind {
    pub const ALL: [ChartKind; 4] = [ChartKind::Depth, ChartKind::Bytes, ChartKind::Throughput, ChartKind::Latency];

    pub fn tab(self) -> &'static str {
        match self {
            ChartKind::Depth => "Depth",
            ChartKind::Bytes => "Bytes",
            ChartKind::Throughput => "Throughput",
            ChartKind::Latency => "Latency",
        }
    }

    pub fn y_label(self) -> &'static str {
        match self {
            ChartKind::Depth => "messages",
            ChartKind::Bytes => "bytes",
            ChartKind::Throughput => "messages/s",
            ChartKind::Latency => "seconds",
        }
    }
}

/// Reads one percentile.
type PercentileOf = fn(&sluice_engine::Percentiles) -> f64;

/// Node `node`'s time in each state of `strip`, slot by slot: wholly in
/// the strip's first state if it never left it.
fn strip_of(sim: &Simulation, node: usize, strip: Strip) -> Vec<StateSlot> {
    match sim.state_times(node).filter(|t| t.strip() == strip) {
        Some(times) => times.slots(sim.now()),
        None => vec![StateSlot::calm(strip, 0.0, sim.now().as_secs_f64())],
    }
}

/// A chart's lines, the charted nodes' names, and their state strips.
pub type ChartData = (Rc<Vec<Line>>, Vec<String>, Rc<Vec<(String, Vec<StateSlot>)>>);

/// What the `kind` chart draws for the `charted` nodes (only the chart on
/// show is worked out), the nodes' names, and the transitions of the queues
/// among them for the state strips.
pub fn chart_lines(
    sim: &Simulation,
    samples: &Sampler,
    charted: &[usize],
    kind: ChartKind,
) -> ChartData {
    let names: Vec<String> = charted.iter().map(|&i| sim.node_id(i).to_string()).collect();
    let several = charted.len() > 1;
    let mut lines = Vec::new();
    let mut strips = Vec::new();
    for (k, &node) in charted.iter().enumerate() {
        let (name, colour) = (&names[k], NODE_COLOURS[k % NODE_COLOURS.len()]);
        let line = |label: String, colour, points| Line { label, colour, points, stroke: Stroke::Solid };
        let taken = samples.of(node);
        match kind {
            ChartKind::Depth => match sim.adaptive_course(node) {
                // An adaptive limiter holds nothing: what it has in flight,
                // and its limit as it moved.
                Some(course) => {
                    let points = course.in_flight.points(sim.now()).iter().map(|p| (p.t_s, p.last as f64)).collect();
                    lines.push(line(format!("{name} in flight"), colour, points));
                    let mut levels: Vec<(f64, u64)> = course.limit.points(sim.now()).iter().map(|p| (p.t_s, p.last)).collect();
                    // A limit its timers changed since its last request.
                    let now_level = sim.adaptive_limit(node).unwrap_or(0);
                    if levels.last().is_some_and(|&(_, v)| v != now_level) {
                        levels.push((sim.now().as_secs_f64(), now_level));
                    }
                    // Dashed in the hard limit's colour, as a queue's bound.
                    let (label, colour) = (format!("{name} limit ({now_level})"), state_colour(State::HardLimit));
                    lines.push(Line { label, colour, points: step_line(&levels, sim.now().as_secs_f64()), stroke: Stroke::Threshold });
                }
                None => {
                    let points = sim.stats(node).depth_series.points(sim.now()).iter().map(|p| (p.t_s, p.last as f64)).collect();
                    lines.push(line(name.clone(), colour, points));
                }
            },
            ChartKind::Bytes => lines.push(line(name.clone(), colour, taken.iter().map(|p| (p.t_s, p.depth_bytes as f64)).collect())),
            ChartKind::Throughput => {
                // Each rate spans at least 1/200 of the run: two samples a
                // moment apart (a frame stopped at a lesson's judging time)
                // would make a spike of noise.
                let min_span = sim.now().as_secs_f64() / 200.0;
                let rates_of = |count: fn(&crate::view::observed::Sample) -> Option<u64>| {
                    let mut rates = Vec::with_capacity(taken.len());
                    let mut from = taken.iter().find(|s| count(s).is_some());
                    for sample in taken.iter().skip(1) {
                        let (Some(start), Some(n)) = (from, count(sample)) else { continue };
                        let span = sample.t_s - start.t_s;
                        if span >= min_span && span > 0.0 {
                            rates.push((sample.t_s, n.saturating_sub(count(start).unwrap_or(0)) as f64 / span));
                            from = Some(sample);
                        }
                    }
                    rates
                };
                lines.push(line(name.clone(), colour, rates_of(|s| Some(s.departed))));
                // A producer whose clients give up: what they got, the
                // goodput, beside what it sent.
                if taken.iter().any(|s| s.answered.is_some()) {
                    lines.push(line(format!("{name} answered in time"), NODE_COLOURS[(k + 1) % NODE_COLOURS.len()], rates_of(|s| s.answered)));
                }
            }
            ChartKind::Latency => {
                // One block: its mean beside three percentiles; several:
                // each one's tail, p99, in its colour.
                let percentiles: &[(&str, PercentileOf)] = if several {
                    &[("p99", |p| p.p99)]
                } else {
                    &[("p50", |p| p.p50), ("p95", |p| p.p95), ("p99", |p| p.p99)]
                };
                if !several {
                    let means = taken.iter().filter_map(|p| p.mean_s.map(|m| (p.t_s, m))).collect();
                    lines.push(line(format!("{name} mean"), NODE_COLOURS[3], means));
                }
                for (j, (label, pick)) in percentiles.iter().enumerate() {
                    let points = taken.iter().filter_map(|p| p.latency.as_ref().map(|l| (p.t_s, pick(l)))).collect();
                    lines.push(line(format!("{name} {label}"), if several { colour } else { NODE_COLOURS[j] }, points));
                }
            }
        }
        // A queue's limits as they were at each moment of the run.
        if let BlockSpec::Queue(_) = &sim.scenario().nodes[node].block {
            let who = if several { format!("{name} ") } else { String::new() };
            let steps = sim.limits_over_time(node);
            for (which, label, state) in [(0, "soft limit", State::SoftLimit), (1, "hard limit", State::HardLimit)] {
                let level = |limits: &[Limits; 2]| match kind {
                    ChartKind::Depth => limits[which].messages,
                    ChartKind::Bytes => limits[which].bytes,
                    _ => 0,
                };
                let levels: Vec<(f64, u64)> = steps.iter().map(|(t, limits)| (t.as_secs_f64(), level(limits))).collect();
                if levels.iter().all(|&(_, v)| v == 0) {
                    continue;
                }
                let now_level = levels.last().map_or(0, |&(_, v)| v);
                let label = if now_level > 0 { format!("{who}{label} ({now_level})") } else { format!("{who}{label} (none now)") };
                lines.push(Line { label, colour: state_colour(state), points: step_line(&levels, sim.now().as_secs_f64()), stroke: Stroke::Threshold });
            }
            strips.push((name.clone(), strip_of(sim, node, Strip::Send)));
        }
        // A circuit breaker's states over time, as a queue's.
        if sim.breaker(node).is_some() {
            strips.push((name.clone(), strip_of(sim, node, Strip::Breaker)));
        }
    }
    (Rc::new(lines), names, Rc::new(strips))
}

/// The points of a step line through `levels` (from each instant on, a
/// level; 0 for none) up to `end`: level runs joined by upright steps, a
/// NaN where no level was set.
pub fn step_line(levels: &[(f64, u64)], end: f64) -> Vec<(f64, f64)> {
    let mut points = Vec::with_capacity(levels.len() * 2 + 1);
    for (k, &(from, v)) in levels.iter().enumerate() {
        let to = levels.get(k + 1).map_or(end, |&(t, _)| t).max(from);
        if v == 0 {
            points.push((from, f64::NAN));
        } else {
            points.push((from, v as f64));
            points.push((to, v as f64));
        }
    }
    points
}

/// A's chart data with variant B's drawn over it: B's lines dashed in the
/// same colours, its thresholds only where they differ from A's, its state
/// strips after A's.
pub fn with_variant_b(a: ChartData, b: &Simulation, samples: &Sampler, kind: ChartKind) -> ChartData {
    let (lines_a, names, strips_a) = a;
    // The same nodes, by id: B's indices may differ.
    let charted_b: Vec<usize> = names.iter().filter_map(|id| b.scenario().node_index(id)).collect();
    let (lines_b, _, strips_b) = chart_lines(b, samples, &charted_b, kind);
    let mut lines: Vec<Line> = lines_a
        .iter()
        .cloned()
        .map(|mut l| {
            if l.stroke == Stroke::Solid {
                l.label = format!("A: {}", l.label);
            }
            l
        })
        .collect();
    for mut l in lines_b.iter().cloned() {
        match l.stroke {
            Stroke::Threshold if lines_a.iter().any(|t| t.stroke == Stroke::Threshold && t.points == l.points && t.label == l.label) => continue,
            Stroke::Threshold => l.label = format!("B: {}", l.label),
            _ => {
                l.label = format!("B: {}", l.label);
                l.stroke = Stroke::Dashed;
            }
        }
        lines.push(l);
    }
    let mut strips = (*strips_a).clone();
    strips.extend(strips_b.iter().map(|(name, changes)| (format!("{name} (B)"), changes.clone())));
    (Rc::new(lines), names, Rc::new(strips))
}

/// The chart that shows a lesson's figure, where one does.
pub fn chart_for(figure: Figure) -> Option<ChartKind> {
    match figure {
        Figure::Throughput | Figure::Departed | Figure::Goodput | Figure::Answered => Some(ChartKind::Throughput),
        Figure::MeanWait | Figure::MeanSojourn => Some(ChartKind::Latency),
        Figure::MeanDepth | Figure::MaxDepth | Figure::Depth => Some(ChartKind::Depth),
        _ => None,
    }
}

/// The chart's time axis: its unit, and simulated seconds per unit. A long
/// run reads in minutes or hours rather than "20000.0" seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeAxis {
    pub unit: &'static str,
    pub seconds: f64,
}

impl TimeAxis {
    /// The axis for a run `t_max_s` simulated seconds long: seconds up to
    /// 5 minutes, minutes up to 5 hours, hours beyond.
    pub fn for_span(t_max_s: f64) -> TimeAxis {
        if t_max_s > 5.0 * 3600.0 {
            TimeAxis { unit: "h", seconds: 3600.0 }
        } else if t_max_s > 300.0 {
            TimeAxis { unit: "min", seconds: 60.0 }
        } else {
            TimeAxis { unit: "s", seconds: 1.0 }
        }
    }

    /// An axis label at `t_s` simulated seconds, with thousands separators.
    pub fn label(&self, t_s: f64, t_max_s: f64) -> String {
        let v = t_s / self.seconds;
        if t_max_s / self.seconds >= 20.0 {
            crate::view::words::thousands(v)
        } else {
            format!("{v:.1}")
        }
    }
}

/// The running mean of a line: at each point, the time-weighted mean of
/// the line from its first point to there (each value holding until the
/// next point). Spiky lines of a long run show where they settle.
pub fn running_mean(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len());
    let (mut area, mut span) = (0.0, 0.0);
    let mut previous: Option<(f64, f64)> = None;
    for &(t, v) in points {
        if !v.is_finite() {
            out.push((t, f64::NAN));
            continue;
        }
        if let Some((t0, v0)) = previous {
            let dt = (t - t0).max(0.0);
            area += v0 * dt;
            span += dt;
        }
        previous = Some((t, v));
        out.push((t, if span > 0.0 { area / span } else { v }));
    }
    out
}

/// The chart's lines as CSV, one row per point: `series,time_s,value`
/// (a quoted label where it needs it).
pub fn lines_csv(lines: &[Line]) -> String {
    let mut out = String::from("series,time_s,value\n");
    for line in lines {
        let label = if line.label.contains([',', '"', '\n']) { format!("\"{}\"", line.label.replace('"', "\"\"")) } else { line.label.clone() };
        for &(t, v) in &line.points {
            if v.is_finite() {
                out.push_str(&format!("{label},{t},{v}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn long_runs_read_in_minutes_and_hours_with_thousands_separated() {
        assert_eq!(TimeAxis::for_span(60.0).unit, "s");
        assert_eq!(TimeAxis::for_span(20_000.0).unit, "h");
        assert_eq!(TimeAxis::for_span(3000.0).unit, "min");
        assert_eq!(TimeAxis::for_span(3000.0).label(1800.0, 3000.0), "30");
        assert_eq!(TimeAxis::for_span(250.0).label(100.0, 250.0), "100");
        assert_eq!(TimeAxis::for_span(12.0).label(2.5, 12.0), "2.5");
        let axis = TimeAxis { unit: "s", seconds: 1.0 };
        assert_eq!(axis.label(12_000.0, 20_000.0), "12,000");
    }

    #[test]
    fn a_running_mean_weighs_each_value_by_how_long_it_held() {
        // 0 for 1 s, then 10 for 3 s: the mean at 4 s is 30 / 4.
        let mean = running_mean(&[(0.0, 0.0), (1.0, 10.0), (4.0, 10.0)]);
        assert_eq!(mean, vec![(0.0, 0.0), (1.0, 0.0), (4.0, 7.5)]);
        assert!(running_mean(&[]).is_empty());
    }

    #[test]
    fn chart_csv_has_a_row_per_point_and_quotes_awkward_labels() {
        let lines = vec![Line { label: "q, A".into(), colour: "#000", points: vec![(0.0, 1.0), (0.5, f64::NAN), (1.0, 2.5)], stroke: Stroke::Solid }];
        assert_eq!(lines_csv(&lines), "series,time_s,value\n\"q, A\",0,1\n\"q, A\",1,2.5\n");
    }

    #[test]
    fn an_adaptive_limiter_charts_what_it_has_in_flight_under_its_limit_as_it_moved() {
        let scenario = sluice_engine::Scenario::from_value(serde_json::json!({"version": 1, "nodes": [
            {"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 200}},
            {"id": "l", "kind": "product_limiter", "product": "netflix_aimd", "initial_limit": 10, "min_limit": 1, "timeout_s": 0.5},
            {"id": "c", "kind": "consumer", "workers": 4, "service_time": {"dist": "fixed", "value": 0.05}}],
            "edges": [{"from": "p", "to": "l"}, {"from": "l", "to": "c"}]}))
        .unwrap();
        let mut sim = Simulation::new(scenario, 1).unwrap();
        sim.run_until(sluice_engine::SimTime::from_secs_f64(5.0)).unwrap();
        let l = sim.scenario().node_index("l").unwrap();
        let (lines, _, _) = chart_lines(&sim, &Sampler::default(), &[l], ChartKind::Depth);
        let limit = sim.adaptive_limit(l).unwrap();
        assert_eq!(lines.iter().map(|l| l.label.clone()).collect::<Vec<_>>(), ["l in flight".to_string(), format!("l limit ({limit})")]);
        assert_eq!(lines[1].stroke, Stroke::Threshold);
        assert_eq!(lines[1].points.last().map(|p| p.1), Some(limit as f64), "the limit line ends at the limit now");
        let most = lines[0].points.iter().map(|p| p.1).fold(0.0, f64::max);
        assert!(most > 10.0, "in flight followed the limit up: {most}");
    }

    /// A producer whose clients give up charts what they got (its
    /// goodput) beside what it sent: under overload the one falls to
    /// nothing while the other stays.
    #[test]
    fn a_producer_whose_clients_give_up_charts_its_goodput_beside_what_it_sent() {
        let scenario = sluice_engine::Scenario::from_value(serde_json::json!({"version": 1, "nodes": [
            {"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 20}, "timeout_s": 1},
            {"id": "q", "kind": "queue"},
            {"id": "c", "kind": "consumer", "service_time": {"dist": "fixed", "value": 0.1}}],
            "edges": [{"from": "p", "to": "q"}, {"from": "q", "to": "c"}]}))
        .unwrap();
        let mut sim = Simulation::new(scenario, 1).unwrap();
        let mut samples = Sampler::default();
        for k in 1..=60 {
            sim.run_until(sluice_engine::SimTime::from_secs_f64(f64::from(k) * 0.5)).unwrap();
            samples.observe(&sim);
        }
        let (lines, _, _) = chart_lines(&sim, &samples, &[0], ChartKind::Throughput);
        assert_eq!(lines.iter().map(|l| l.label.as_str()).collect::<Vec<_>>(), ["p", "p answered in time"]);
        let last = |l: &Line| l.points.last().map(|p| p.1).unwrap();
        assert!((last(&lines[0]) - 20.0).abs() < 1.0, "it sends 20 a second: {:?}", lines[0].points.last());
        assert_eq!(last(&lines[1]), 0.0, "answered in time: none by the end");
        assert!(lines[1].points.iter().any(|p| p.1 > 5.0), "at first its clients were answered: {:?}", lines[1].points);
    }

    use super::*;

    #[test]
    fn a_threshold_steps_where_it_changed_and_breaks_where_unset() {
        let points = step_line(&[(0.0, 20), (4.0, 5), (6.0, 0), (8.0, 7)], 10.0);
        assert_eq!(&points[..4], &[(0.0, 20.0), (4.0, 20.0), (4.0, 5.0), (6.0, 5.0)]);
        assert_eq!(points[4].0, 6.0);
        assert!(points[4].1.is_nan());
        assert_eq!(&points[5..], &[(8.0, 7.0), (10.0, 7.0)]);
    }

    #[test]
    fn a_threshold_never_changed_spans_the_run() {
        assert_eq!(step_line(&[(0.0, 50)], 20.0), vec![(0.0, 50.0), (20.0, 50.0)]);
    }
}
