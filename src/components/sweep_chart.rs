//! The Sweep panel's chart: the chosen metric with its 95% band against
//! the varied field, the theory's curve dashed, the value now dotted, a
//! target level with where the band crosses it, the values a search tried,
//! and, when asked, a second metric on its own axis at the right (drops
//! and wait: the trade-off a setting makes). A recovery metric's points
//! are coloured by what their runs came to: stable, recovered, collapsed,
//! or mixed (grey).
//!
//! Guarantee: one drawing routine for a plain and a logarithmic axis (the
//! values drawn as their logarithms, labelled with the values): the page
//! carries plotters' drawing code once.

use plotters::prelude::*;
use sluice_engine::numbers::axis;
use sluice_engine::sweep::{Estimate, Measure, Metric, Recovery};
use sluice_engine::tune::Tried;
use web_sys::HtmlCanvasElement;

use crate::components::measured_canvas::MeasuredCanvas;
use crate::view::sweep::{crossing, SweepRun};

/// Where the plotting area lies (its left and right pixels) and the
/// values at its ends, for clicks; none before the first drawing.
pub type XMap = Option<(f64, f64, f64, f64)>;

/// How the chart is drawn beyond its data: its axes' words, a target
/// level, a logarithmic metric axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Look {
    pub x_words: String,
    pub y_words: String,
    pub target: Option<f64>,
    pub log_y: bool,
    /// The values a search for the setting tried, and whether each met it.
    pub tried: Vec<Tried>,
    /// A second metric, on the right axis, and its words.
    pub also: Option<(Metric, String)>,
}

/// Draws the sweep; returns where its plotting area lies, for clicks. On
/// a logarithmic axis the values are drawn as their logarithms on a plain
/// axis labelled with the values themselves (one drawing routine, not a
/// second one for plotters' logarithmic axis, whose code the page would
/// carry twice).
pub fn draw(canvas: HtmlCanvasElement, run: &SweepRun, metric: &Metric, current: Option<f64>, look: &Look) -> Result<XMap, Box<dyn std::error::Error>> {
    let backend = MeasuredCanvas::new(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    let (measured, theory) = run.series(metric);
    let xs: Vec<f64> = run.values.iter().copied().chain(current).filter(|v| v.is_finite()).collect();
    let (mut x0, mut x1) = (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    if !(x0.is_finite() && x1.is_finite()) {
        (x0, x1) = (0.0, 1.0);
    }
    let pad = if x1 > x0 { (x1 - x0) * 0.04 } else { x0.abs().max(1.0) * 0.5 };
    let (x0, x1) = (x0 - pad, x1 + pad);
    let ys = || measured.iter().flat_map(|p| [p.1 + p.2, p.1 - p.2, p.1]).chain(theory.iter().map(|p| p.1)).chain(look.target).filter(|v| v.is_finite());
    // A logarithmic axis shows what is above 0: its floor a little under
    // the smallest such value.
    let smallest = ys().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let log = look.log_y && smallest.is_finite();
    let floor = smallest * 0.8;
    let y = |v: f64| if log { v.max(floor).log10() } else { v };
    let top = ys().map(y).fold(if log { floor.log10() } else { 0.0 }, f64::max);
    let bottom = if log { floor.log10() } else { ys().fold(0.0, f64::min) };
    let y1 = if log { top + (top - bottom).max(1.0) * 0.1 } else if top > 0.0 { top * 1.1 } else { 1.0 };
    // The second metric: its own axis at the right, from 0 (or below) to
    // a tenth above its highest point.
    let second = look.also.as_ref().map(|(m, _)| run.series(m).0);
    let (b0, b1) = match &second {
        Some(points) => {
            let vs = || points.iter().flat_map(|p| [p.1 + p.2, p.1 - p.2]).filter(|v| v.is_finite());
            let (low, high) = (vs().fold(0.0, f64::min), vs().fold(0.0, f64::max));
            (low, if high > low { high * 1.1 } else { 1.0 })
        }
        None => (0.0, 1.0),
    };
    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .right_y_label_area_size(if second.is_some() { 70 } else { 0 })
        .build_cartesian_2d(x0..x1, bottom..y1)?
        .set_secondary_coord(x0..x1, b0..b1);
    let y_label = |v: &f64| axis(if log { 10f64.powf(*v) } else { *v });
    let y_desc = if log { format!("{} (log scale)", look.y_words) } else { look.y_words.clone() };
    chart
        .configure_mesh()
        .x_desc(look.x_words.as_str())
        .y_desc(y_desc)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .x_label_formatter(&|v| axis(*v))
        .y_label_formatter(&y_label)
        .light_line_style(RGBColor(241, 243, 245))
        .draw()?;
    if let (Some(points), Some((_, words))) = (&second, &look.also) {
        let violet = RGBColor(0x70, 0x48, 0xe8);
        chart
            .configure_secondary_axes()
            .y_desc(words.as_str())
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .y_label_formatter(&|v| axis(*v))
            .draw()?;
        if points.len() > 1 {
            let band: Vec<(f64, f64)> = points.iter().map(|p| (p.0, p.1 + p.2)).chain(points.iter().rev().map(|p| (p.0, p.1 - p.2))).collect();
            chart.draw_secondary_series(std::iter::once(Polygon::new(band, violet.mix(0.14).filled())))?;
        }
        chart.draw_secondary_series(LineSeries::new(points.iter().map(|p| (p.0, p.1)), violet.stroke_width(2)))?;
        chart.draw_secondary_series(points.iter().map(|p| TriangleMarker::new((p.0, p.1), 5, violet.filled())))?;
    }
    let blue = RGBColor(0x1c, 0x7e, 0xd6);
    let orange = RGBColor(0xe8, 0x59, 0x0c);
    if measured.len() > 1 {
        let band: Vec<(f64, f64)> =
            measured.iter().map(|p| (p.0, y(p.1 + p.2))).chain(measured.iter().rev().map(|p| (p.0, y(p.1 - p.2)))).collect();
        chart.draw_series(std::iter::once(Polygon::new(band, blue.mix(0.18).filled())))?;
    }
    for p in &measured {
        chart.draw_series(std::iter::once(PathElement::new(vec![(p.0, y(p.1 - p.2)), (p.0, y(p.1 + p.2))], blue.mix(0.6).stroke_width(1))))?;
    }
    chart.draw_series(LineSeries::new(measured.iter().map(|p| (p.0, y(p.1))), blue.stroke_width(2)))?;
    if matches!(metric, Metric::Of { measure: Measure::Recovery, .. }) {
        // Each point in the colour of what its runs came to after the
        // trigger, as the command line's phase map colours its cells.
        let colour = |p: &(f64, f64, f64)| match Recovery::of(&Estimate { mean: Some(p.1), ci95: Some(p.2), n: 0 }).map(Recovery::rgb) {
            Some((r, g, b)) => RGBColor(r, g, b),
            None => RGBColor(0x86, 0x8e, 0x96),
        };
        chart.draw_series(measured.iter().map(|p| Circle::new((p.0, y(p.1)), 7, colour(p).filled())))?;
    } else {
        chart.draw_series(measured.iter().map(|p| Circle::new((p.0, y(p.1)), 4, blue.filled())))?;
    }
    if theory.len() > 1 {
        chart.draw_series(DashedLineSeries::new(theory.iter().map(|&(x, v)| (x, y(v))), 7, 5, orange.stroke_width(2)))?;
    } else if let Some(&(x, v)) = theory.first() {
        chart.draw_series(std::iter::once(Cross::new((x, y(v)), 5, orange.stroke_width(2))))?;
    }
    if let Some(x) = current.filter(|x| (x0..=x1).contains(x)) {
        let grey = RGBColor(0x49, 0x50, 0x57);
        chart.draw_series(DashedLineSeries::new(vec![(x, bottom), (x, y1)], 3, 4, grey.stroke_width(2)))?;
    }
    if let Some(t) = look.target.filter(|t| !log || *t > 0.0) {
        let red = RGBColor(0xc9, 0x2a, 0x2a);
        chart.draw_series(DashedLineSeries::new(vec![(x0, y(t)), (x1, y(t))], 8, 5, red.stroke_width(2)))?;
        // Where the band's edges cross it (hollow: between them the runs
        // cannot yet tell which side the metric is on) and the mean (solid).
        let c = crossing(&measured, t);
        chart.draw_series([c.low, c.high].into_iter().flatten().map(|x| Circle::new((x, y(t)), 5, red.stroke_width(2))))?;
        if let Some(x) = c.mean {
            chart.draw_series(std::iter::once(Circle::new((x, y(t)), 4, red.filled())))?;
        }
    }
    // The values a search tried: a green dot where the target held, a red
    // cross where it did not, on the target's line.
    if let Some(t) = look.target {
        let (green, red) = (RGBColor(0x2b, 0x8a, 0x3e), RGBColor(0xc9, 0x2a, 0x2a));
        for tried in look.tried.iter().filter(|v| (x0..=x1).contains(&v.value)) {
            if tried.feasible {
                chart.draw_series(std::iter::once(Circle::new((tried.value, y(t)), 6, green.filled())))?;
            } else {
                chart.draw_series(std::iter::once(Cross::new((tried.value, y(t)), 6, red.stroke_width(3))))?;
            }
        }
    }
    let (xr, _) = chart.plotting_area().get_pixel_range();
    root.present()?;
    Ok(Some((f64::from(xr.start), f64::from(xr.end), x0, x1)))
}
