//! When the panels are refreshed while playing, and what they last showed.
//!
//! The dots follow every frame and the clock every third; the figures, the
//! event log and the chart at most `PANEL_MS` apart (numbers that change 60
//! times a second cannot be read, and laying them out is most of a frame),
//! and at once after anything else: a pause, an edit, another selection or
//! chart, a verdict.

use std::rc::Rc;

use sluice_engine::scenario::Kind;

use crate::view::chart_data::{chart_lines, with_variant_b, ChartData, ChartKind};
use crate::view::colours::NODE_COLOURS;
use crate::view::observed::{DropEntry, Session};
use crate::view::shadow::ShadowView;
use crate::view::snapshot::{LogView, Snapshot};

/// The longest the panels of figures and the chart wait between updates
/// while playing, in milliseconds: five times a second. Figures that change
/// faster cannot be read, and each refresh lays out and paints the text of
/// every block; at ten a second, a browser sharing its two cores with other
/// work dropped a frame on most refreshes.
const PANEL_MS: f64 = 200.0;

/// The longest the event log waits between updates while playing. A busy
/// log (the 40-node scenario logs some 500 state changes a second) replaces
/// every row it shows on each update, faster than anyone reads, and that
/// update was the heaviest frame of all: two and a half a second keep it
/// live.
const LOG_MS: f64 = 2.0 * PANEL_MS;

/// The least time between two readings of the clock while playing: every
/// third frame at 60 frames a second (three frames are 50 ms; a little less,
/// so that a frame that comes early does not push it to the fourth). Every
/// change of its text costs a layout, a paint and a composite of the top
/// bar, and milliseconds changing 60 times a second cannot be read either.
pub const CLOCK_MS: f64 = 45.0;

/// What the panels and the chart last showed, and for which selection.
///
/// Three parts, each refreshed every `PANEL_MS` (the log every `LOG_MS`)
/// while playing, a third of a period apart, so that no frame refreshes
/// two: the canvas with the figures, then the event log, then the chart.
/// Refreshed together, they made one frame in six several times as long as
/// the others, and that frame was dropped; in two halves (the log with the
/// chart), one heavy frame in four still was.
pub struct PanelCache {
    key: (Vec<usize>, ChartKind, u64),
    /// The canvas, the counters and the panels beside them.
    at_ms: f64,
    snapshot: Rc<Snapshot>,
    /// Variant B's, with A/B open.
    b_snapshot: Option<Rc<Snapshot>>,
    /// The event log.
    log_at_ms: f64,
    log: Rc<LogView>,
    drops: Rc<Vec<DropEntry>>,
    /// The limits by key, refreshed with the log.
    shadow: Option<Rc<ShadowView>>,
    /// The chart, and the simulated time it reaches.
    chart_at_ms: f64,
    charts: Option<ChartData>,
    chart_now_s: f64,
}

impl Default for PanelCache {
    fn default() -> Self {
        // Long ago: the first render works everything out.
        PanelCache {
            key: Default::default(),
            at_ms: f64::NEG_INFINITY,
            snapshot: Rc::default(),
            b_snapshot: None,
            log_at_ms: f64::NEG_INFINITY,
            log: Rc::default(),
            drops: Rc::default(),
            shadow: None,
            chart_at_ms: f64::NEG_INFINITY,
            charts: None,
            chart_now_s: 0.0,
        }
    }
}

impl PanelCache {
    /// Which parts are due at `now_ms` while playing (figures, log,
    /// chart): one part per frame, the log a third of a period after the
    /// figures, the chart a third after the log.
    pub fn due(&self, now_ms: f64) -> (bool, bool, bool) {
        let due = |at_ms: f64| now_ms - at_ms >= PANEL_MS;
        let after = |at_ms: f64| now_ms - at_ms >= PANEL_MS / 3.0;
        let figures = due(self.at_ms);
        let log = !figures && now_ms - self.log_at_ms >= LOG_MS && after(self.at_ms);
        let chart = !figures && !log && due(self.chart_at_ms) && after(self.log_at_ms);
        (figures, log, chart)
    }
}

/// What the panels show this frame.
pub struct Panels {
    pub snapshot: Rc<Snapshot>,
    pub b_snapshot: Option<Rc<Snapshot>>,
    pub log: Rc<LogView>,
    pub drops: Rc<Vec<DropEntry>>,
    pub charts: Option<ChartData>,
    pub chart_now_s: f64,
    /// The instant the canvas shows, when earlier than the live one: the
    /// charts mark it.
    pub cursor_s: Option<f64>,
    /// What the run's limiters did to each key, once they decided
    /// something.
    pub shadow: Option<Rc<ShadowView>>,
}

impl PanelCache {
    /// Whether a frame at `now_ms` has a panel due (while playing, with the
    /// same selection, chart and revision).
    pub fn any_due(&self, now_ms: f64) -> bool {
        let (figures, log, chart) = self.due(now_ms);
        figures || log || chart
    }

    /// Brings the parts that are due up to date and returns what the panels
    /// show: all of them when not `playing` or when the selection, the
    /// chart on show or the playground's revision changed.
    pub fn refresh(&mut self, s: &Session, selection: &[usize], chart_kind: ChartKind, playing: bool, now_ms: f64) -> Panels {
        let scenario = s.play.scenario();
        let key = (selection.to_vec(), chart_kind, s.play.revision());
        let (figures, log, chart) = if !playing || self.key != key { (true, true, true) } else { self.due(now_ms) };
        let run = s.play.run();
        if figures {
            self.key = key;
            self.at_ms = now_ms;
            // The canvas and counters show the instant seen (live unless
            // the time line was dragged back).
            self.snapshot = Rc::new(match s.play.shown() {
                Some(sim) => Snapshot::of(sim, scenario, &s.a.theories),
                None => Snapshot::draft(scenario),
            });
            self.b_snapshot = s.play.shown_b().zip(s.b.as_ref()).map(|(b, notes)| Rc::new(Snapshot::of(b, b.scenario(), &notes.theories)));
        }
        if chart {
            self.chart_at_ms = now_ms;
            self.chart_now_s = run.map_or(0.0, |sim| sim.now().as_secs_f64());
            self.charts = run.map(|sim| {
                let mut charted: Vec<usize> = selection.iter().copied().take(NODE_COLOURS.len()).collect();
                // Nothing selected: the open lesson's key blocks, else the
                // first queue.
                if charted.is_empty() {
                    let lesson = s.play.lesson().and_then(|run| s.play.lessons().get(run.index));
                    charted.extend(lesson.into_iter().flat_map(|l| &l.text.focus).filter_map(|id| scenario.node_index(id)).take(NODE_COLOURS.len()));
                }
                if charted.is_empty() {
                    charted.push(scenario.nodes.iter().position(|n| n.block.kind() == Kind::Queue).unwrap_or(0));
                }
                let data = chart_lines(sim, &s.a.samples, &charted, chart_kind);
                match (s.play.variant_b(), &s.b) {
                    (Some(b), Some(notes)) => with_variant_b(data, &b.sim, &notes.samples, chart_kind),
                    _ => data,
                }
            });
        }
        if log {
            self.log_at_ms = now_ms;
            self.log = Rc::new(run.map(LogView::of).unwrap_or_default());
            self.drops = Rc::new(s.a.drops.latest());
            self.shadow = run.and_then(ShadowView::of).map(Rc::new);
        }
        Panels {
            snapshot: self.snapshot.clone(),
            b_snapshot: self.b_snapshot.clone(),
            log: self.log.clone(),
            drops: self.drops.clone(),
            charts: self.charts.clone(),
            chart_now_s: self.chart_now_s,
            cursor_s: s.play.scrubbed().map(|t| t.as_secs_f64()),
            shadow: self.shadow.clone(),
        }
    }
}
