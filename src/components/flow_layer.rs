//! The dots that carry messages along the edges, drawn on a `<canvas>` laid
//! over the SVG canvas, and the key that says what they mean.
//!
//! Guarantees:
//! - The dots look as they would in the SVG: round, 7 canvas units wide,
//!   `DOT_SPACING` apart, one dotted line per class crossing an edge, the
//!   classes interleaved, placed by the view box the SVG shows
//!   (`xMidYMid meet`), sharp at any device pixel ratio.
//! - No dot is drawn over a block: the area of each block is cleared after
//!   the dots are drawn, as the blocks used to be drawn over them.
//! - The layer takes no pointer events and is hidden from screen readers
//!   (the key and the blocks' own names say what moves).
//! - The canvas covers only the edges' bounding box (widened by a dot, within
//!   the SVG's content box), not the whole SVG.
//!
//! Why a canvas: the motion changes every frame, and the SVG beside it at
//! most five times a second. Drawn in the SVG, the dots made the whole
//! canvas (every block and its text) diffed, styled and repainted on every
//! frame; here a frame redraws this one layer. Without a GPU the browser
//! composites a changed layer on the processor, every frame, over all the
//! area it covers: hence a canvas no larger than the edges' reach (a chain
//! across the middle of the canvas is a thin strip of it).

use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::browser::live::{use_live, Live};
use crate::browser::resize::SizeWatch;
use crate::view::motion::Motion;

/// The spacing of the dots on an edge, in canvas units.
pub const DOT_SPACING: f64 = 18.0;
/// The width of a dot, in canvas units.
const DOT_WIDTH: f64 = 7.0;

/// Where things are on the SVG canvas, in canvas units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowGeometry {
    /// The view box shown: left, top, width, height.
    pub view: (f64, f64, f64, f64),
    /// Per edge (scenario order), the line its dots run along.
    pub segments: Vec<(f64, f64, f64, f64)>,
    /// The areas of the blocks (left, top, width, height): no dot shows there.
    pub covers: Vec<(f64, f64, f64, f64)>,
}

#[derive(Properties, PartialEq)]
pub struct FlowLayerProps {
    pub geometry: Rc<FlowGeometry>,
}

/// The layer and the key. The motion comes from the nearest
/// `ContextProvider<Rc<Live<Rc<Motion>>>>`, watched here, so that a new
/// frame redraws this component alone, not the SVG canvas around it.
#[function_component(FlowLayer)]
pub fn flow_layer(props: &FlowLayerProps) -> Html {
    let live = use_context::<Rc<Live<Rc<Motion>>>>().unwrap_or_else(|| Rc::new(Live::new(Rc::default())));
    let motion = use_live(live);
    let canvas_ref = use_node_ref();
    // The layer's size in CSS pixels (the SVG's content box), as a
    // ResizeObserver reports it for the box around the SVG: reading it
    // every frame would force a layout of the page the frame has just
    // changed.
    let size = use_mut_ref(|| (0.0f64, 0.0f64));
    // Where the canvas was last placed within the layer.
    let placed = use_mut_ref(|| None::<Placement>);
    // What the last render drew, for a redraw when only the size changes.
    let latest = use_mut_ref(|| (Rc::new(FlowGeometry::default()), Rc::new(Motion::default())));
    *latest.borrow_mut() = (props.geometry.clone(), motion.clone());
    {
        let (canvas_ref, size, latest, placed) = (canvas_ref.clone(), size.clone(), latest.clone(), placed.clone());
        use_effect_with((), move |_| {
            let watch = canvas_ref.cast::<HtmlCanvasElement>().and_then(|canvas| {
                // The box around the SVG, as large as the SVG with its border.
                let around = canvas.parent_element()?;
                SizeWatch::new(&around, move |width, height| {
                    *size.borrow_mut() = ((width - 2.0 * SVG_BORDER).max(0.0), (height - 2.0 * SVG_BORDER).max(0.0));
                    let (geometry, motion) = latest.borrow().clone();
                    draw(&canvas, *size.borrow(), &geometry, &motion, &mut placed.borrow_mut());
                })
            });
            move || drop(watch)
        });
    }
    {
        let (canvas_ref, geometry, motion) = (canvas_ref.clone(), props.geometry.clone(), motion.clone());
        // After every render: this component renders only when the motion
        // or the geometry changed.
        use_effect(move || {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                draw(&canvas, *size.borrow(), &geometry, &motion, &mut placed.borrow_mut());
            }
        });
    }
    html! {
        <canvas class="flow-layer" ref={canvas_ref} data-testid="flow-dots" aria-hidden="true"></canvas>
    }
}

/// The key to the dots: one colour per class, how many messages a dot
/// stands for, and the dropping flash. Drawn under the canvas, never over
/// a block.
#[function_component(FlowKey)]
pub fn flow_key() -> Html {
    let live = use_context::<Rc<Live<Rc<Motion>>>>().unwrap_or_else(|| Rc::new(Live::new(Rc::default())));
    let motion = use_live(live);
    if motion.classes.is_empty() {
        return Html::default();
    }
    html! {
        <div class="flow-key" data-testid="class-legend" aria-label="Message classes">
            { for motion.classes.iter().map(|(name, colour)| html! {
                <span class="legend-item"><span class="dot" style={format!("background: {colour}")}></span>{ name }</span>
            }) }
            <span class="legend-item muted" data-testid="per-dot">{
                if motion.per_dot == 1 { "one dot = one message".to_string() } else { format!("one dot ≈ {} messages", motion.per_dot) }
            }</span>
            <span class="legend-item"><span class="flash-swatch"></span>{"dropping"}</span>
        </div>
    }
}

/// Where each class's dot pattern starts on an edge, in canvas units along
/// it: the pattern's phase, and the classes spread evenly over a spacing.
pub fn dash_offset(phase: f64, class: usize, classes: usize) -> f64 {
    -(phase + class as f64 / classes.max(1) as f64) * DOT_SPACING
}

/// The SVG's border, in CSS pixels (`.graph` in the style sheet): the layer
/// lies inside it.
const SVG_BORDER: f64 = 1.0;

/// Where the canvas lies within the layer, in whole CSS pixels: left, top,
/// width, height.
type Placement = (f64, f64, f64, f64);

/// The part of a `width` × `height` layer that the dots can reach: the
/// edges' bounding box, widened by a dot's width, within the layer. `scale`
/// and `origin` map canvas units to the layer's CSS pixels.
fn reach(segments: &[(f64, f64, f64, f64)], (width, height): (f64, f64), scale: f64, (ox, oy): (f64, f64)) -> Placement {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &(ax, ay, bx, by) in segments {
        (x0, x1) = (x0.min(ax).min(bx), x1.max(ax).max(bx));
        (y0, y1) = (y0.min(ay).min(by), y1.max(ay).max(by));
    }
    if x0 > x1 || y0 > y1 {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let pad = DOT_WIDTH * scale;
    let left = (ox + x0 * scale - pad).floor().clamp(0.0, width);
    let top = (oy + y0 * scale - pad).floor().clamp(0.0, height);
    let right = (ox + x1 * scale + pad).ceil().clamp(left, width);
    let bottom = (oy + y1 * scale + pad).ceil().clamp(top, height);
    (left, top, right - left, bottom - top)
}

/// Draws the dots on `canvas`, within a layer of `width` × `height` CSS
/// pixels, placing the canvas over the part the dots can reach.
fn draw(canvas: &HtmlCanvasElement, (width, height): (f64, f64), geometry: &FlowGeometry, motion: &Motion, placed: &mut Option<Placement>) {
    let (vx, vy, vw, vh) = geometry.view;
    if width <= 0.0 || height <= 0.0 || vw <= 0.0 || vh <= 0.0 {
        return;
    }
    // The SVG's mapping: the view box scaled to fit, centred.
    let scale = (width / vw).min(height / vh);
    let origin = ((width - vw * scale) / 2.0 - vx * scale, (height - vh * scale) / 2.0 - vy * scale);
    let place = reach(&geometry.segments, (width, height), scale, origin);
    if *placed != Some(place) {
        let (left, top, w, h) = place;
        let _ = canvas.set_attribute(
            "style",
            &format!("left: {}px; top: {}px; width: {w}px; height: {h}px", left + SVG_BORDER, top + SVG_BORDER),
        );
        *placed = Some(place);
    }
    let (left, top, w, h) = place;
    // The backing store in device pixels, so dots stay round and sharp.
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (pixels_w, pixels_h) = ((w * ratio).round() as u32, (h * ratio).round() as u32);
    if canvas.width() != pixels_w {
        canvas.set_width(pixels_w);
    }
    if canvas.height() != pixels_h {
        canvas.set_height(pixels_h);
    }
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, pixels_w as f64, pixels_h as f64);
    let k = ratio * scale;
    let _ = ctx.set_transform(k, 0.0, 0.0, k, ratio * (origin.0 - left), ratio * (origin.1 - top));

    let dash = js_sys::Array::of2(&JsValue::from_f64(0.0), &JsValue::from_f64(DOT_SPACING));
    let _ = ctx.set_line_dash(&dash);
    ctx.set_line_cap("round");
    ctx.set_line_width(DOT_WIDTH);
    // What the tests read: the colours drawn and where their patterns stand.
    let (mut colours, mut offsets) = (Vec::new(), Vec::new());
    for (e, &(x1, y1, x2, y2)) in geometry.segments.iter().enumerate() {
        let classes = motion.edges.get(e).map_or(&[][..], Vec::as_slice);
        for (j, &(colour, phase)) in classes.iter().enumerate() {
            let offset = dash_offset(phase, j, classes.len());
            ctx.set_stroke_style_str(colour);
            ctx.set_line_dash_offset(offset);
            ctx.begin_path();
            ctx.move_to(x1, y1);
            ctx.line_to(x2, y2);
            ctx.stroke();
            if !colours.contains(&colour) {
                colours.push(colour);
            }
            offsets.push(format!("{offset:.2}"));
        }
    }
    if !offsets.is_empty() {
        for &(x, y, w, h) in &geometry.covers {
            ctx.clear_rect(x, y, w, h);
        }
    }
    let _ = canvas.set_attribute("data-colours", &colours.join(" "));
    let _ = canvas.set_attribute("data-offsets", &offsets.join(" "));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_spread_over_one_spacing() {
        assert_eq!(dash_offset(0.0, 0, 2), 0.0);
        assert_eq!(dash_offset(0.0, 1, 2), -DOT_SPACING / 2.0);
        assert_eq!(dash_offset(0.5, 0, 1), -DOT_SPACING / 2.0);
        assert_eq!(dash_offset(0.25, 0, 0), -DOT_SPACING / 4.0, "no classes: no division by zero");
    }

    #[test]
    fn the_canvas_covers_only_what_the_dots_reach() {
        // A chain across the middle of a 1000 × 500 layer, one canvas unit
        // to the pixel: a strip a dot's width either side of the edges.
        let chain = [(100.0, 200.0, 300.0, 200.0), (300.0, 200.0, 500.5, 200.0)];
        assert_eq!(reach(&chain, (1000.0, 500.0), 1.0, (0.0, 0.0)), (93.0, 193.0, 415.0, 14.0));
        // Zoomed in twice and moved: mapped the same way as the SVG.
        assert_eq!(reach(&chain, (1000.0, 500.0), 2.0, (-100.0, -300.0)), (86.0, 86.0, 829.0, 28.0));
    }

    #[test]
    fn the_canvas_stays_within_the_layer() {
        let across = [(-50.0, -50.0, 2000.0, 900.0)];
        assert_eq!(reach(&across, (1000.0, 500.0), 1.0, (0.0, 0.0)), (0.0, 0.0, 1000.0, 500.0));
        // Edges wholly off to one side: nothing to cover.
        let beside = [(1200.0, 100.0, 1500.0, 100.0)];
        assert_eq!(reach(&beside, (1000.0, 500.0), 1.0, (0.0, 0.0)).2, 0.0);
        assert_eq!(reach(&[], (1000.0, 500.0), 1.0, (0.0, 0.0)), (0.0, 0.0, 0.0, 0.0));
    }
}
