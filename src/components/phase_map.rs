//! A sweep over two fields as a map: one cell per pair of values, the
//! first field across, the second up the side (largest at the top, as a
//! plot's axis goes), each cell coloured by the chosen metric.
//!
//! Guarantees:
//! - A recovery metric's cell is coloured and named by what its runs came
//!   to after the trigger (stable, recovered, collapsed, mixed), in the
//!   colours the command line's map uses (`Recovery::rgb`); any other
//!   metric's cell holds its mean, shaded from light (least) to dark
//!   (most) over the cells finished.
//! - A cell not yet run is blank and says so; the map is a table, read
//!   row by row with its headers by a screen reader, and scrolls sideways
//!   on a narrow screen.

use std::rc::Rc;

use sluice_engine::numbers::{as_written, three_figures};
use sluice_engine::sweep::{Estimate, Measure, Metric, Recovery};
use yew::prelude::*;

use crate::view::sweep::Grid;

#[derive(Properties, PartialEq)]
pub struct PhaseMapProps {
    pub grid: Rc<Grid>,
    pub metric: Metric,
    /// The fields in words: across, and up the side.
    pub across: String,
    pub up: String,
}

/// The text colour that reads best on `(r, g, b)`: white or near black,
/// whichever contrasts more (WCAG's relative luminance).
fn text_on((r, g, b): (u8, u8, u8)) -> &'static str {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let lum = 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    // Against white (1.0) and against #212529 (about 0.016).
    if 1.05 / (lum + 0.05) >= (lum + 0.05) / 0.066 { "#fff" } else { "#212529" }
}

/// A cell's style, words and class.
fn cell(e: Option<&Estimate>, recovery: bool, (least, most): (f64, f64)) -> (String, String, &'static str) {
    let Some(mean) = e.and_then(|e| e.mean) else {
        return (String::new(), if e.is_some() { "no value".into() } else { "…".into() }, "pending");
    };
    let paint = |rgb: (u8, u8, u8)| format!("background: rgb({}, {}, {}); color: {}", rgb.0, rgb.1, rgb.2, text_on(rgb));
    if recovery {
        return match e.and_then(Recovery::of) {
            Some(k) => (paint(k.rgb()), k.word().into(), k.word()),
            None => (String::new(), "no value".into(), "pending"),
        };
    }
    // Light blue to dark blue over the cells finished.
    let share = if most > least { ((mean - least) / (most - least)).clamp(0.0, 1.0) } else { 0.5 };
    let lerp = |a: f64, b: f64| (a + (b - a) * share).round() as u8;
    (paint((lerp(231.0, 25.0), lerp(245.0, 113.0), lerp(255.0, 194.0))), three_figures(mean), "measured")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cell_s_text_reads_on_its_colour() {
        // Green and amber take dark text, red and dark blue white.
        assert_eq!(text_on(Recovery::Stable.rgb()), "#212529");
        assert_eq!(text_on(Recovery::Recovered.rgb()), "#212529");
        assert_eq!(text_on(Recovery::Collapsed.rgb()), "#fff");
        assert_eq!(text_on((25, 113, 194)), "#fff");
        assert_eq!(text_on((231, 245, 255)), "#212529");
    }
}

#[function_component(PhaseMap)]
pub fn phase_map(props: &PhaseMapProps) -> Html {
    let grid = &props.grid;
    let recovery = matches!(props.metric, Metric::Of { measure: Measure::Recovery, .. });
    let means: Vec<f64> = grid.cells.iter().flatten().filter_map(|e| e.as_ref().and_then(|e| e.mean)).collect();
    let range = (means.iter().copied().fold(f64::INFINITY, f64::min), means.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    let head = grid.columns.iter().map(|c| html! { <th scope="col">{ as_written(*c) }</th> });
    let rows = grid.rows.iter().zip(&grid.cells).map(|(r, cells)| {
        let tds = cells.iter().zip(&grid.columns).map(|(e, c)| {
            let (style, words, class) = cell(e.as_ref(), recovery, range);
            let title = format!("{} = {}, {} = {}: {words}", props.across, as_written(*c), props.up, as_written(*r));
            html! { <td class={classes!("map-cell", class)} {style} {title}>{ words }</td> }
        });
        html! { <tr><th scope="row">{ as_written(*r) }</th>{ for tds }</tr> }
    });
    let legend = recovery.then(|| {
        let items = [Recovery::Stable, Recovery::Recovered, Recovery::Collapsed, Recovery::Mixed].map(|k| {
            let (r, g, b) = k.rgb();
            html! { <span class="legend-item"><span class="swatch" style={format!("background: rgb({r}, {g}, {b})")}></span>{ k.word() }</span> }
        });
        html! { <div class="legend">{ for items }</div> }
    });
    html! {
        <figure class="phase-map" data-testid="phase-map">
            <figcaption>{ format!("{} over {} (across) and {} (up)", props.metric.words(), props.across, props.up) }</figcaption>
            <div class="map-scroll">
                <table>
                    <thead><tr><th scope="col" class="corner">{ format!("{} ↑ · {} →", props.up, props.across) }</th>{ for head }</tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
            { for legend }
        </figure>
    }
}
