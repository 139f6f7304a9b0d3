//! `sluice sweep --plot OUT.svg` or `OUT.png`: one metric against the first
//! varied parameter, drawn with plotters: the means joined by a line, their
//! 95% intervals as whiskers, and queueing theory's prediction dashed where
//! the queue has one. With a second varied parameter, one line per value of
//! it; a recovery metric over two parameters is drawn as a phase map
//! instead, each cell coloured stable, recovered, collapsed or mixed.
//!
//! Text is laid out with DejaVu Sans, built into the command, so a plot
//! looks the same on every machine and needs no system font library (a
//! cluster node or a container often has none).

use std::collections::BTreeMap;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use sluice_engine::sweep::{Measure, Metric, PointResult, Recovery, SweepResult};

/// The plot's size in pixels (the SVG's in user units).
const SIZE: (u32, u32) = (900, 560);

/// DejaVu Sans 2.37; its licence is `fonts/LICENSE-DejaVu.txt`.
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

const COLOURS: [RGBColor; 6] =
    [RGBColor(0x1c, 0x7e, 0xd6), RGBColor(0xd6, 0x33, 0x6c), RGBColor(0x0c, 0x85, 0x99), RGBColor(0x70, 0x48, 0xe8), RGBColor(0x5c, 0x94, 0x0d), RGBColor(0xf0, 0x8c, 0x00)];

/// The kinds of file `--plot` writes, told by the name's ending.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlotFile {
    Svg,
    Png,
}

impl PlotFile {
    /// The kind `out` names, or an error saying which endings work, or
    /// that the folder it would go in is missing (checked before a sweep
    /// runs, so that its results are not lost at the end).
    pub fn of(out: &str) -> Result<Self, String> {
        let lower = out.to_ascii_lowercase();
        let kind = if lower.ends_with(".svg") {
            Self::Svg
        } else if lower.ends_with(".png") {
            Self::Png
        } else {
            return Err(format!("--plot {out}: the plot is written as SVG or PNG; name the file .svg or .png"));
        };
        match std::path::Path::new(out).parent() {
            Some(folder) if !folder.as_os_str().is_empty() && !folder.is_dir() => {
                Err(format!("--plot {out}: there is no folder {}", folder.display()))
            }
            _ => Ok(kind),
        }
    }
}

/// Draws `metric` of `result` into `out`, an SVG or PNG file.
pub fn plot(result: &SweepResult, metric: &Metric, out: &str) -> Result<(), String> {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The bytes are this crate's own and parse (a test draws with them).
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
    match PlotFile::of(out)? {
        PlotFile::Svg => draw(SVGBackend::new(out, SIZE).into_drawing_area(), result, metric, out),
        PlotFile::Png => draw(BitMapBackend::new(out, SIZE).into_drawing_area(), result, metric, out),
    }
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, result: &SweepResult, metric: &Metric, out: &str) -> Result<(), String> {
    if result.varied.len() == 2 && matches!(metric, Metric::Of { measure: Measure::Recovery, .. }) {
        return draw_map(root, result, metric, out);
    }
    let x_name = &result.varied[0];
    let series_name = result.varied.get(1);
    // Text from the file, drawn: a control character would make the SVG
    // unreadable XML, so it is shown escaped.
    let shown = |text: &dyn std::fmt::Display| sluice_engine::printable(&text.to_string(), 120);
    // One series per value of the second varied parameter (or one).
    let mut series: BTreeMap<String, Vec<&PointResult>> = BTreeMap::new();
    for p in &result.points {
        let key = series_name.and_then(|n| p.values.get(n)).map_or(String::new(), |v| format!("{} = {v}", shown(series_name.unwrap())));
        series.entry(key).or_default().push(p);
    }
    let x = |p: &PointResult| p.values.get(x_name).copied().unwrap_or(0.0);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for p in &result.points {
        if let Some(e) = p.metrics.get(metric).filter(|e| e.mean.is_some()) {
            let (m, h) = (e.mean.unwrap_or(0.0), e.ci95.unwrap_or(0.0));
            lo = lo.min(m - h);
            hi = hi.max(m + h);
        }
        if let Some(t) = p.predicted(metric) {
            lo = lo.min(t);
            hi = hi.max(t);
        }
    }
    if !lo.is_finite() {
        return Err(format!("--plot: {metric} has no value at any point"));
    }
    let (x_lo, x_hi) = result.points.iter().map(x).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let pad = |a: f64, b: f64| if b > a { (b - a) * 0.05 } else { a.abs().max(1.0) * 0.1 };
    let (x_pad, y_pad) = (pad(x_lo, x_hi), pad(lo, hi));
    let fail = |e: &dyn std::fmt::Display| format!("cannot draw {out}: {e}");
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{}: {}", shown(&result.scenario), shown(metric)), ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((x_lo - x_pad)..(x_hi + x_pad), (lo - y_pad).min(0.0f64.max(lo - y_pad))..(hi + y_pad))
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc(shown(x_name))
        .y_desc(format!("{} (mean, 95% interval)", shown(metric)))
        .draw()
        .map_err(|e| fail(&e))?;
    for (k, (name, points)) in series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let measured: Vec<(f64, f64, f64)> = points
            .iter()
            .filter_map(|p| {
                let e = p.metrics.get(metric)?;
                Some((x(p), e.mean?, e.ci95.unwrap_or(0.0)))
            })
            .collect();
        let label = if name.is_empty() { "measured".to_string() } else { format!("measured, {name}") };
        chart
            .draw_series(LineSeries::new(measured.iter().map(|&(x, m, _)| (x, m)), colour.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart
            .draw_series(measured.iter().map(|&(x, m, h)| ErrorBar::new_vertical(x, m - h, m, m + h, colour.filled(), 8)))
            .map_err(|e| fail(&e))?;
        let theory: Vec<(f64, f64)> = points.iter().filter_map(|p| Some((x(p), p.predicted(metric)?))).collect();
        if !theory.is_empty() {
            let label = if name.is_empty() { "theory".to_string() } else { format!("theory, {name}") };
            // Alone, theory is dark grey beside the measured blue; with
            // several series each keeps its series' colour.
            let style = if series.len() == 1 { RGBColor(0x49, 0x50, 0x57).stroke_width(2) } else { colour.stroke_width(1) };
            chart
                .draw_series(DashedLineSeries::new(theory, 8, 6, style))
                .map_err(|e| fail(&e))?
                .label(label)
                .legend(move |(x, y)| DashedPathElement::new(vec![(x, y), (x + 24, y)], 6, 3, style));
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

/// The colour of a phase map's cell (`Recovery::rgb`).
fn recovery_colour(k: Recovery) -> RGBColor {
    let (r, g, b) = k.rgb();
    RGBColor(r, g, b)
}

/// A recovery metric over two varied fields: one cell per point, the first
/// field across, the second up, each coloured by what its replications
/// came to, and a key.
fn draw_map<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, result: &SweepResult, metric: &Metric, out: &str) -> Result<(), String> {
    let shown = |text: &dyn std::fmt::Display| sluice_engine::printable(&text.to_string(), 120);
    let fail = |e: &dyn std::fmt::Display| format!("cannot draw {out}: {e}");
    let (xs_of, ys_of) = (&result.varied[0], &result.varied[1]);
    let values = |field| {
        let mut vs: Vec<f64> = result.points.iter().filter_map(|p: &PointResult| p.values.get(field).copied()).collect();
        vs.sort_by(f64::total_cmp);
        vs.dedup();
        vs
    };
    let (xs, ys) = (values(xs_of), values(ys_of));
    let index = |vs: &[f64], v: f64| vs.iter().position(|&w| w == v).unwrap_or(0) as f64;
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let (plot, key) = root.split_horizontally(SIZE.0 - 170);
    let mut chart = ChartBuilder::on(&plot)
        .caption(format!("{}: {}", shown(&result.scenario), shown(metric)), ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5..(xs.len() as f64 - 0.5), -0.5..(ys.len() as f64 - 0.5))
        .map_err(|e| fail(&e))?;
    let label = |vs: Vec<f64>| move |v: &f64| vs.get(v.round().max(0.0) as usize).filter(|_| (v - v.round()).abs() < 1e-9).map_or(String::new(), |&x| sluice_engine::numbers::as_written(x));
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(xs.len())
        .y_labels(ys.len())
        .x_label_formatter(&label(xs.clone()))
        .y_label_formatter(&label(ys.clone()))
        .x_desc(shown(xs_of))
        .y_desc(shown(ys_of))
        .draw()
        .map_err(|e| fail(&e))?;
    let cells = result.points.iter().filter_map(|p| {
        let (x, y) = (index(&xs, *p.values.get(xs_of)?), index(&ys, *p.values.get(ys_of)?));
        let k = Recovery::of(p.metrics.get(metric)?)?;
        Some(Rectangle::new([(x - 0.48, y - 0.48), (x + 0.48, y + 0.48)], recovery_colour(k).filled()))
    });
    chart.draw_series(cells).map_err(|e| fail(&e))?;
    for (row, k) in [Recovery::Stable, Recovery::Recovered, Recovery::Collapsed, Recovery::Mixed].into_iter().enumerate() {
        let y = 80 + 34 * row as i32;
        key.draw(&Rectangle::new([(10, y), (34, y + 24)], recovery_colour(k).filled())).map_err(|e| fail(&e))?;
        key.draw(&Text::new(k.word(), (44, y + 4), ("sans-serif", 16))).map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}
