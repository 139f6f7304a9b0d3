//! The charts of the selected nodes, drawn with plotters on a canvas: depth
//! in messages (with the soft and hard thresholds as dashed lines), depth
//! in bytes, throughput and latency percentiles, one tab each; several
//! nodes are charted together, one colour each. Below, a strip shows each
//! selected queue's send state over time.

use std::rc::Rc;

use plotters::prelude::*;
use crate::components::measured_canvas::MeasuredCanvas;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use sluice_engine::blocks::queue::SendState;

use crate::view::chart_data::{ChartKind, Line, StateChange, Stroke};
use crate::view::colours::state_colour;

fn rgb(hex: &str) -> RGBColor {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

fn draw(canvas: HtmlCanvasElement, lines: &[Line], y_label: &str) -> Result<(), Box<dyn std::error::Error>> {
    let backend = MeasuredCanvas::new(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let t_max = all().map(|p| p.0).fold(1.0, f64::max);
    let y_top = all().map(|p| p.1).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let y_max = if y_top > 0.0 { y_top * 1.1 } else { 10.0 };
    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc("simulation time (s)")
        .y_desc(y_label)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .x_label_formatter(&|t| format!("{t:.1}"))
        .y_label_formatter(&|v| short(*v))
        .light_line_style(RGBColor(241, 243, 245))
        .draw()?;
    // The key is HTML beside the canvas: plotters sizes an in-canvas key by
    // laying out the whole page once per label.
    for line in lines {
        let style = rgb(line.colour).stroke_width(2);
        match line.stroke {
            Stroke::Threshold => {
                let level = line.points.first().map_or(0.0, |p| p.1);
                chart.draw_series(DashedLineSeries::new(vec![(0.0, level), (t_max, level)], 8, 5, style))?;
            }
            Stroke::Dashed => {
                chart.draw_series(DashedLineSeries::new(line.points.iter().copied(), 6, 4, style))?;
            }
            Stroke::Solid => {
                chart.draw_series(LineSeries::new(line.points.iter().copied(), style))?;
            }
        }
    }
    root.present()?;
    Ok(())
}

/// 1500 → "1.5k": axis labels stay short.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    /// The chart on show, and the tab that asks for another.
    pub kind: ChartKind,
    pub on_kind: Callback<ChartKind>,
    /// Its lines, computed by the page.
    pub lines: Rc<Vec<Line>>,
    /// Who is charted, for the caption.
    pub nodes: Vec<String>,
    /// The transitions of the charted queues, oldest first, and the time now.
    pub strips: Rc<Vec<(String, Vec<StateChange>)>>,
    pub now_s: f64,
}

#[function_component(Charts)]
pub fn charts(props: &ChartsProps) -> Html {
    let kind = props.kind;
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let y_label = kind.y_label();
        use_effect_with((props.lines.clone(), kind), move |(lines, _)| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                if let Err(e) = draw(element, lines, y_label) {
                    web_sys::console::warn_1(&format!("chart: {e}").into());
                }
            }
        });
    }
    let tabs = ChartKind::ALL.iter().map(|&k| {
        let selected = kind == k;
        html! {
            <button role="tab" aria-selected={selected.to_string()} class={classes!("tab", selected.then_some("on"))}
                data-testid={format!("chart-tab-{}", k.tab().to_lowercase())}
                onclick={props.on_kind.reform(move |_: MouseEvent| k)}>{ k.tab() }</button>
        }
    });
    let who = props.nodes.join(", ");
    let key = props.lines.iter().map(|line| {
        let stroke = if line.stroke == Stroke::Solid { "solid" } else { "dashed" };
        html! {
            <span class="legend-item">
                <span class="line-swatch" style={format!("border-top: 3px {stroke} {}", line.colour)}></span>{ &line.label }
            </span>
        }
    });
    html! {
        <figure class="chart">
            <div class="chart-head">
                <figcaption>{ format!("{} of {who}", kind.tab()) }</figcaption>
                <div class="tabs" role="tablist" aria-label="Chart">{ for tabs }</div>
            </div>
            <canvas ref={canvas} width="780" height="260" data-testid="depth-chart" role="img"
                aria-label={format!("Chart of the {} of {who} over simulation time", kind.tab().to_lowercase())} />
            <div class="legend chart-legend" data-testid="chart-legend">{ for key }</div>
            if !props.strips.is_empty() {
                <StateStrips strips={props.strips.clone()} now_s={props.now_s} />
            }
            <p class="hint chart-hint">{"Shift-click blocks on the canvas to chart several together."}</p>
        </figure>
    }
}

/// A strip shows at most about this many bands (one per pixel or so).
const STRIP_SLOTS: usize = 400;

/// How alarming a state is: a slot too narrow to draw shows the worst state
/// held in it, so that a brief Overloaded is not lost between two Readys.

/// The bands (start, end, state) of a strip from 0 to `end`: one per state
/// held, except that runs of bands narrower than `end / slots` merge into
/// one of their worst state. At most about 2 × `slots` bands come out
/// however many changes go in.
fn bands(changes: &[StateChange], end: f64, slots: usize) -> Vec<(f64, f64, SendState)> {
    let mut raw = Vec::with_capacity(changes.len() + 1);
    let mut from_t = 0.0;
    let mut state = changes.first().map_or(SendState::Ready, |c| c.from);
    for c in changes {
        raw.push((from_t, c.time_s.min(end), state));
        from_t = c.time_s.min(end);
        state = c.to;
    }
    raw.push((from_t, end, state));
    let narrow = end / slots.max(1) as f64;
    let mut out: Vec<(f64, f64, SendState)> = Vec::new();
    let mut pending: Option<(f64, f64, SendState)> = None;
    for (a, b, s) in raw.into_iter().filter(|(a, b, _)| b > a) {
        let band = match pending.take() {
            // A narrow run grows until it is wide enough to draw.
            // The worst of the two: send states are ordered least severe first.
            Some((pa, _, ps)) => (pa, b, s.max(ps)),
            None => (a, b, s),
        };
        if band.1 - band.0 < narrow {
            pending = Some(band);
            continue;
        }
        match out.last_mut() {
            Some(last) if last.2 == band.2 => last.1 = band.1,
            _ => out.push(band),
        }
    }
    if let Some(band) = pending {
        match out.last_mut() {
            Some(last) if last.2 == band.2 => last.1 = band.1,
            _ => out.push(band),
        }
    }
    out
}

#[derive(Properties, PartialEq)]
struct StripsProps {
    strips: Rc<Vec<(String, Vec<StateChange>)>>,
    now_s: f64,
}

/// Each queue's send state over time: one coloured band per state held.
#[function_component(StateStrips)]
fn state_strips(props: &StripsProps) -> Html {
    let end = props.now_s.max(1e-9);
    // The chart's plotting area spans the same width as the canvas above,
    // less its axis: the strips use the full width with their own scale.
    let rows = props.strips.iter().map(|(node, transitions)| {
        let bands = bands(transitions, end, STRIP_SLOTS);
        let rects = bands.into_iter().filter(|(a, b, _)| b > a).map(|(a, b, s)| {
            html! {
                <rect x={format!("{:.3}", a / end * 1000.0)} y="0" width={format!("{:.3}", (b - a) / end * 1000.0)} height="14" fill={state_colour(s.into())}>
                    <title>{ format!("{} from {a:.3} s to {b:.3} s", s.as_str()) }</title>
                </rect>
            }
        });
        html! {
            <div class="strip" data-testid={format!("strip-{node}")}>
                <span class="strip-name">{ node }</span>
                <svg viewBox="0 0 1000 14" preserveAspectRatio="none" role="img"
                    aria-label={format!("Send state of {node} over time")}>{ for rects }</svg>
            </div>
        }
    });
    let legend = [SendState::Ready, SendState::Overloaded, SendState::SoftLimit, SendState::HardLimit].map(|s| {
        html! { <span class="legend-item"><span class="swatch" style={format!("background: {}", state_colour(s.into()))}></span>{ s.as_str() }</span> }
    });
    html! {
        <div class="strips" aria-label="Send states over time">
            { for rows }
            <div class="legend">{ for legend }<span class="legend-item muted">{ format!("0 → {:.1} s", props.now_s) }</span></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SendState::*;

    fn change(time_s: f64, from: SendState, to: SendState) -> StateChange {
        StateChange { time_s, from, to }
    }

    #[test]
    fn wide_bands_are_kept_as_they_are() {
        let changes = [change(2.0, Ready, SoftLimit), change(6.0, SoftLimit, Ready)];
        assert_eq!(bands(&changes, 10.0, 100), vec![(0.0, 2.0, Ready), (2.0, 6.0, SoftLimit), (6.0, 10.0, Ready)]);
    }

    #[test]
    fn flapping_merges_into_its_worst_state_and_stays_bounded() {
        // 10,000 brief visits to Overloaded in 10 s: far more than a strip
        // can draw, and none may vanish.
        let mut changes = Vec::new();
        for k in 0..10_000 {
            let t = k as f64 * 0.001;
            changes.push(change(t, Ready, Overloaded));
            changes.push(change(t + 0.0002, Overloaded, Ready));
        }
        let out = bands(&changes, 10.0, 400);
        assert!(out.len() <= 800, "{} bands", out.len());
        assert!(out.iter().all(|b| b.2 == Overloaded));
        assert_eq!(out.first().map(|b| b.0), Some(0.0));
        assert_eq!(out.last().map(|b| b.1), Some(10.0));
    }
}
