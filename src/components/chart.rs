//! The charts of the selected nodes, drawn with plotters on a canvas: depth
//! in messages (with the soft and hard thresholds as dashed lines), depth
//! in bytes, throughput and latency percentiles, one tab each; several
//! nodes are charted together, one colour each. Below, a strip shows each
//! selected queue's send state over time.

use sluice_engine::numbers;
use std::rc::Rc;

use plotters::prelude::*;
use crate::components::measured_canvas::MeasuredCanvas;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::components::glossary::Term;


use sluice_engine::{State, StateSlot, Strip};

use crate::browser::keep;
use crate::view::chart_data::{lines_csv, running_mean, ChartKind, Line, Stroke, TimeAxis};
use crate::view::colours::state_colour;

fn rgb(hex: &str) -> RGBColor {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// The colour of the mark of the instant shown (the time line's).
const CURSOR: &str = "#1c7ed6";

fn draw(canvas: HtmlCanvasElement, lines: &[Line], y_label: &str, cursor_s: Option<f64>) -> Result<(), Box<dyn std::error::Error>> {
    let backend = MeasuredCanvas::new(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let t_max = all().map(|p| p.0).fold(1.0, f64::max);
    let axis = TimeAxis::for_span(t_max);
    let y_top = all().map(|p| p.1).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let y_max = if y_top > 0.0 { y_top * 1.1 } else { 10.0 };
    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc(format!("simulation time ({})", axis.unit))
        .y_desc(y_label)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .x_label_formatter(&|t| axis.label(*t, t_max))
        .y_label_formatter(&|v| numbers::axis(*v))
        .light_line_style(RGBColor(241, 243, 245))
        .draw()?;
    // The key is HTML beside the canvas: plotters sizes an in-canvas key by
    // laying out the whole page once per label.
    for line in lines {
        let style = rgb(line.colour).stroke_width(2);
        match line.stroke {
            Stroke::Threshold => {
                // A step line, broken where no threshold was set.
                for run in line.points.split(|p| p.1.is_nan()).filter(|run| !run.is_empty()) {
                    chart.draw_series(DashedLineSeries::new(run.iter().copied(), 8, 5, style))?;
                }
            }
            Stroke::Dashed => {
                chart.draw_series(DashedLineSeries::new(line.points.iter().copied(), 6, 4, style))?;
            }
            Stroke::Solid => {
                chart.draw_series(LineSeries::new(line.points.iter().copied(), style))?;
            }
        }
    }
    // The instant the canvas shows, when the time line was dragged back.
    if let Some(t) = cursor_s.filter(|t| (0.0..=t_max).contains(t)) {
        chart.draw_series(LineSeries::new([(t, 0.0), (t, y_max)], rgb(CURSOR).stroke_width(2)))?;
    }
    root.present()?;
    Ok(())
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
    /// The time each charted queue spent in each send state, slot by slot,
    /// and the time now.
    pub strips: Rc<Vec<(String, Vec<StateSlot>)>>,
    pub now_s: f64,
    /// The instant the canvas shows, when earlier than the live one.
    #[prop_or_default]
    pub cursor_s: Option<f64>,
    /// A band of a strip pressed: its node, state, and span (s).
    #[prop_or_default]
    pub on_band: Callback<(String, State, f64, f64)>,
}

#[function_component(Charts)]
pub fn charts(props: &ChartsProps) -> Html {
    let kind = props.kind;
    let canvas = use_node_ref();
    // Each measured line as its running mean instead (the thresholds stay).
    let averaged = use_state(|| false);
    let lines: Rc<Vec<Line>> = if *averaged {
        Rc::new(
            props
                .lines
                .iter()
                .map(|l| match l.stroke {
                    Stroke::Threshold => l.clone(),
                    _ => Line { label: format!("{} (running mean)", l.label), points: running_mean(&l.points), ..l.clone() },
                })
                .collect(),
        )
    } else {
        props.lines.clone()
    };
    {
        let canvas = canvas.clone();
        let y_label = kind.y_label();
        use_effect_with((lines.clone(), kind, props.cursor_s.map(f64::to_bits)), move |(lines, _, cursor)| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                if let Err(e) = draw(element, lines, y_label, cursor.map(f64::from_bits)) {
                    web_sys::console::warn_1(&format!("chart: {e}").into());
                }
            }
        });
    }
    let axis = TimeAxis::for_span(lines.iter().flat_map(|l| l.points.iter()).map(|p| p.0).fold(1.0, f64::max));
    let file_stem = format!("{}-{}", kind.tab().to_lowercase(), props.nodes.join("-"));
    let on_png = {
        let (canvas, name) = (canvas.clone(), format!("{file_stem}.png"));
        Callback::from(move |_: MouseEvent| {
            if let Some(url) = canvas.cast::<HtmlCanvasElement>().and_then(|c| c.to_data_url().ok()) {
                keep::download_url(&name, &url);
            }
        })
    };
    let on_csv = {
        let (lines, name) = (lines.clone(), format!("{file_stem}.csv"));
        Callback::from(move |_: MouseEvent| keep::download_as(&name, &lines_csv(&lines), "text/csv"))
    };
    let on_average = {
        let averaged = averaged.clone();
        Callback::from(move |_: MouseEvent| averaged.set(!*averaged))
    };
    let tabs = ChartKind::ALL.iter().map(|&k| {
        let selected = kind == k;
        html! {
            <button role="tab" aria-selected={selected.to_string()} class={classes!("tab", selected.then_some("on"))}
                data-testid={format!("chart-tab-{}", k.tab().to_lowercase())}
                onclick={props.on_kind.reform(move |_: MouseEvent| k)}>{ k.tab() }</button>
        }
    });
    let who = props.nodes.join(", ");
    let key = lines.iter().map(|line| {
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
            <canvas ref={canvas} width="780" height="260" data-testid="depth-chart" role="img" data-time-unit={axis.unit}
                aria-label={format!("Chart of the {} of {who} over simulation time ({})", kind.tab().to_lowercase(), axis.unit)} />
            <div class="legend chart-legend" data-testid="chart-legend">
                { for key }
                if let Some(t) = props.cursor_s {
                    <span class="legend-item"><span class="line-swatch" style={format!("border-top: 3px solid {CURSOR}")}></span>{ format!("shown: {} s", numbers::axis(t)) }</span>
                }
            </div>
            if !props.strips.is_empty() {
                <StateStrips strips={props.strips.clone()} now_s={props.now_s} cursor_s={props.cursor_s} on_band={props.on_band.clone()} />
            }
            <div class="chart-actions">
                <button class="small secondary-small" data-testid="chart-mean" aria-pressed={averaged.to_string()} onclick={on_average}
                    title="Draw each line as its mean from the start of the run up to each moment">{"Running mean"}</button>
                <button class="small secondary-small" data-testid="chart-png" onclick={on_png}>{"Export PNG"}</button>
                <button class="small secondary-small" data-testid="chart-csv" onclick={on_csv}>{"Export CSV"}</button>
            </div>
            <p class="hint chart-hint">
                <span class="mouse-words">{"Shift-click blocks on the canvas to chart several together."}</span>
                <span class="touch-words">{"Turn on Several over the canvas, then tap blocks to chart them together."}</span>
            </p>
        </figure>
    }
}

/// A band of a strip: neighbouring slots whose worst state is the same,
/// with the time spent in each state across them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Band {
    strip: Strip,
    from_s: f64,
    to_s: f64,
    worst: State,
    seconds: [f64; 4],
}

/// The bands of a strip: each slot drawn in the worst state held within it
/// (a brief HardLimit is not lost among Readys), neighbours of the same
/// colour merged, their times summed for the tooltip.
fn bands(slots: &[StateSlot]) -> Vec<Band> {
    let mut out: Vec<Band> = Vec::new();
    for slot in slots.iter().filter(|s| s.to_s > s.from_s) {
        let worst = slot.worst();
        match out.last_mut() {
            Some(band) if band.worst == worst => {
                band.to_s = slot.to_s;
                for (sum, s) in band.seconds.iter_mut().zip(slot.seconds) {
                    *sum += s;
                }
            }
            _ => out.push(Band { strip: slot.strip, from_s: slot.from_s, to_s: slot.to_s, worst, seconds: slot.seconds }),
        }
    }
    out
}

#[derive(Properties, PartialEq)]
struct RowProps {
    strips: Rc<Vec<(String, Vec<StateSlot>)>>,
    row: usize,
    now_s: f64,
    cursor_s: Option<f64>,
    on_band: Callback<(String, State, f64, f64)>,
}

/// One block's strip. A band pressed asks why the block entered the
/// band's state there. The keyboard reaches a strip once: its tab stop is
/// the band the focus was last on (the latest, at first, which stays the
/// latest as the run goes on); the arrows, Home and End move along it,
/// Enter or Space asks.
#[function_component(StripRow)]
fn strip_row(props: &RowProps) -> Html {
    // The band the focus was last on, by the instant it begins (its place
    // may move as slots are halved); none: the latest.
    let stop = use_state_eq(|| None::<f64>);
    let Some((node, slots)) = props.strips.get(props.row) else { return html! {} };
    let end = props.now_s.max(1e-9);
    let cursor_x = props.cursor_s.filter(|t| (0.0..=end).contains(t)).map(|t| format!("{:.3}", t / end * 1000.0));
    let strip = strip_of(slots);
    let bands = bands(slots);
    let mut whole = [0.0; 4];
    for band in &bands {
        for (sum, s) in whole.iter_mut().zip(band.seconds) {
            *sum += s;
        }
    }
    let last = bands.len().saturating_sub(1);
    let stop_at = stop.and_then(|from| bands.iter().position(|b| b.from_s <= from && from < b.to_s)).filter(|&i| i < last).unwrap_or(last);
    let rects = bands.into_iter().enumerate().map(|(i, b)| {
        let ask = {
            let node = node.clone();
            move || (node.clone(), b.worst, b.from_s, b.to_s)
        };
        let onclick = props.on_band.reform({
            let ask = ask.clone();
            move |_: MouseEvent| ask()
        });
        let onkeydown = {
            let on_band = props.on_band.clone();
            move |e: KeyboardEvent| {
                if e.alt_key() || e.ctrl_key() || e.meta_key() {
                    return;
                }
                match e.key().as_str() {
                    "Enter" | " " => {
                        e.prevent_default();
                        on_band.emit(ask());
                    }
                    key => {
                        if move_along(&e, key) {
                            e.prevent_default();
                        }
                    }
                }
            }
        };
        let onfocus = {
            let stop = stop.clone();
            move |_: FocusEvent| stop.set((i < last).then_some(b.from_s))
        };
        // The latest band's end is now: its name does not change with
        // every frame while the run plays.
        let until = if i == last { "now".to_string() } else { format!("{} s", numbers::axis(b.to_s)) };
        html! {
            // Keyed by place, the latest band by its own key: as bands
            // merge at the end while playing, the latest (and the focus on
            // it) stays.
            <rect key={if i == last { "latest".to_string() } else { i.to_string() }}
                x={format!("{:.3}", b.from_s / end * 1000.0)} y="0" width={format!("{:.3}", (b.to_s - b.from_s) / end * 1000.0)} height="14" fill={state_colour(b.worst)}
                class="band" data-state={b.worst.as_str()} role="button" tabindex={if i == stop_at { "0" } else { "-1" }}
                aria-label={format!("{node}: {} from {} s to {until}: why?", b.worst.as_str(), numbers::axis(b.from_s))} {onclick} {onkeydown} {onfocus}>
                <title>{ format!("{} s to {} s: {} (press: why {}?)", numbers::axis(b.from_s), numbers::axis(b.to_s), time_in_states(b.strip, &b.seconds), b.worst.as_str()) }</title>
            </rect>
        }
    });
    html! {
        <div class="strip" data-testid={format!("strip-{node}")}>
            <span class="strip-name">{ node }</span>
            <svg viewBox="0 0 1000 14" preserveAspectRatio="none" role="group"
                aria-label={format!("{} of {node} over time: {}", strip.title(), time_in_states(strip, &whole))}>
                // A list of their own: their keys count only among
                // themselves, not beside the cursor's lines.
                <>{ for rects }</>
                if let Some(x) = cursor_x.clone() {
                    <line x1={x.clone()} x2={x.clone()} y1="0" y2="14" stroke="white" stroke-width="7" vector-effect="non-scaling-stroke" />
                    <line class="strip-cursor" x1={x.clone()} x2={x} y1="0" y2="14" stroke={CURSOR} stroke-width="3" vector-effect="non-scaling-stroke" />
                }
            </svg>
        </div>
    }
}

/// Which kind of strip `slots` draw: send states, or a breaker's.
fn strip_of(slots: &[StateSlot]) -> Strip {
    slots.first().map_or(Strip::Send, |s| s.strip)
}

/// Moves the focus along a strip from the band `e` came from: to the band
/// before or after it, or to its first or last; whether `key` was one of
/// those.
fn move_along(e: &KeyboardEvent, key: &str) -> bool {
    use wasm_bindgen::JsCast;
    let Some(band) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    let to = match key {
        "ArrowLeft" => band.previous_element_sibling(),
        "ArrowRight" => band.next_element_sibling(),
        "Home" => band.parent_element().and_then(|svg| svg.query_selector("rect.band").ok().flatten()),
        "End" => band.parent_element().and_then(|svg| svg.query_selector_all("rect.band").ok()).and_then(|all| all.get(all.length().checked_sub(1)?)).and_then(|n| n.dyn_into().ok()),
        _ => return false,
    };
    if let Some(to) = to.filter(|el| el.tag_name() == "rect").and_then(|el| el.dyn_into::<web_sys::SvgElement>().ok()) {
        let _ = to.focus();
    }
    true
}

/// "Ready 3.2 s (16 %), SoftLimit 16.8 s (84 %)": the time in each state
/// of `strip` held, of `seconds`.
fn time_in_states(strip: Strip, seconds: &[f64; 4]) -> String {
    let total: f64 = seconds.iter().sum();
    strip
        .states()
        .iter()
        .zip(seconds)
        .filter(|(_, &s)| s > 0.0)
        .map(|(state, &s)| format!("{} {} s ({:.0} %)", state.as_str(), numbers::axis(s), s / total.max(1e-12) * 100.0))
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Properties, PartialEq)]
struct StripsProps {
    strips: Rc<Vec<(String, Vec<StateSlot>)>>,
    now_s: f64,
    cursor_s: Option<f64>,
    on_band: Callback<(String, State, f64, f64)>,
}

/// Each queue's send state (or circuit breaker's state) over time: a band
/// per run of slots of the same worst state, the time in every state in its
/// tooltip and, for the whole run, in the strip's name.
#[function_component(StateStrips)]
fn state_strips(props: &StripsProps) -> Html {
    // The chart's plotting area spans the same width as the canvas above,
    // less its axis: the strips use the full width with their own scale.
    let rows = (0..props.strips.len()).map(|row| {
        html! { <StripRow key={props.strips[row].0.clone()} strips={props.strips.clone()} {row} now_s={props.now_s} cursor_s={props.cursor_s} on_band={props.on_band.clone()} /> }
    });
    // A legend for each kind of strip shown: send states, breaker states.
    let mut shown: Vec<Strip> = Vec::new();
    for (_, slots) in props.strips.iter() {
        let strip = strip_of(slots);
        if !shown.contains(&strip) {
            shown.push(strip);
        }
    }
    let legend = shown.into_iter().flat_map(|strip| strip.states().iter()).map(|&s| {
        html! { <span class="legend-item"><span class="swatch" style={format!("background: {}", state_colour(s))}></span><Term word={s.as_str()} /></span> }
    });
    html! {
        <div class="strips" aria-label="States over time">
            <>{ for rows }</>
            <div class="legend">{ for legend }<span class="legend-item muted">{ format!("0 → {:.1} s · each band drawn in the worst state within it", props.now_s) }</span></div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use State::*;

    fn slot(from_s: f64, to_s: f64, seconds: [f64; 4]) -> StateSlot {
        StateSlot { strip: Strip::Send, from_s, to_s, seconds }
    }

    #[test]
    fn slots_of_one_worst_state_merge_and_keep_their_times() {
        let slots = [slot(0.0, 1.0, [1.0, 0.0, 0.0, 0.0]), slot(1.0, 2.0, [0.5, 0.0, 0.5, 0.0]), slot(2.0, 3.0, [0.0, 0.0, 1.0, 0.0])];
        let out = bands(&slots);
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].from_s, out[0].to_s, out[0].worst), (0.0, 1.0, Ready));
        assert_eq!((out[1].from_s, out[1].to_s, out[1].worst), (1.0, 3.0, SoftLimit));
        assert_eq!(out[1].seconds, [0.5, 0.0, 1.5, 0.0]);
        assert_eq!(time_in_states(Strip::Send, &out[1].seconds), "Ready 0.500 s (25 %), SoftLimit 1.5 s (75 %)");
    }

    #[test]
    fn a_breaker_strip_names_its_own_states() {
        let out = bands(&[StateSlot { strip: Strip::Breaker, from_s: 0.0, to_s: 10.0, seconds: [6.0, 1.0, 3.0, 0.0] }]);
        assert_eq!(out[0].worst, Open);
        assert_eq!(time_in_states(Strip::Breaker, &out[0].seconds), "CLOSED 6 s (60 %), HALF_OPEN 1 s (10 %), OPEN 3 s (30 %)");
    }

    #[test]
    fn a_brief_hard_limit_colours_its_slot() {
        let out = bands(&[slot(0.0, 10.0, [9.99, 0.0, 0.0, 0.01])]);
        assert_eq!(out[0].worst, HardLimit);
    }
}
