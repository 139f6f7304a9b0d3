//! The plotters canvas backend, measuring text with the canvas itself.
//!
//! Why: plotters sizes a label on the web by appending a `<span>` to the
//! page and reading its `offsetHeight`, which forces the browser to lay out
//! the whole page once per label. A chart redrawn every frame spent over a
//! third of the frame there. `measureText` on the chart's own 2D context
//! gives the width without touching the page's layout.
//!
//! Text is also drawn here rather than by `CanvasBackend`, which sets the
//! font, alignment and baseline before every label: each is a string
//! passed from WebAssembly and parsed by the canvas, and a chart has some
//! thirty labels, nearly all in one style. Here each is set only when it
//! changes.
//!
//! The canvas is also fitted to the size it is laid out at, times the
//! screen's pixel ratio, and plotters draws in CSS pixels: a 13 px label is
//! 13 px on a phone as on a desktop, and sharp on both. (Drawn at a fixed
//! 780 pixels and shrunk to a 350 px phone, labels were under 6 px.)
//!
//! Guarantees: every other drawing call goes to `CanvasBackend` unchanged;
//! `estimate_text_size` returns the canvas's measured width and a line
//! height of 1.2 times the font size (what the span reported for the fonts
//! used here); `draw_text` draws what `CanvasBackend` would, rotations
//! included.

use std::cell::RefCell;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub struct MeasuredCanvas {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
    /// The font last given to the context (`CanvasBackend` sets fonts only
    /// in `draw_text`, which is ours, so this stays true).
    font: RefCell<String>,
    /// The text alignment and baseline last given to the context.
    anchor: Option<(&'static str, &'static str)>,
    /// The drawing's size in CSS pixels.
    size: (u32, u32),
}

impl MeasuredCanvas {
    /// A backend on `canvas`, its pixels fitted to the size the page lays it
    /// out at (its `width` and `height` attributes while it has no layout,
    /// hidden for instance).
    pub fn new(canvas: HtmlCanvasElement) -> Option<MeasuredCanvas> {
        let context = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        let (w, h) = (canvas.client_width(), canvas.client_height());
        let (size, ratio) = if w > 0 && h > 0 {
            let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 4.0);
            let (pw, ph) = ((f64::from(w) * ratio).round() as u32, (f64::from(h) * ratio).round() as u32);
            // Setting a size clears the canvas even when it is the same.
            if canvas.width() != pw {
                canvas.set_width(pw);
            }
            if canvas.height() != ph {
                canvas.set_height(ph);
            }
            ((w as u32, h as u32), ratio)
        } else {
            ((canvas.width(), canvas.height()), 1.0)
        };
        context.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0).ok()?;
        Some(MeasuredCanvas { inner: CanvasBackend::with_canvas_object(canvas)?, context, font: RefCell::default(), anchor: None, size })
    }

    /// Gives the context `style`'s font, unless it has it already.
    fn use_font<S: BackendTextStyle>(&self, style: &S) {
        let font = format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str());
        let mut current = self.font.borrow_mut();
        if *current != font {
            self.context.set_font(&font);
            *current = font;
        }
    }
}

/// The canvas's names for a label's anchor: (textAlign, textBaseline).
fn anchor_names(h: HPos, v: VPos) -> (&'static str, &'static str) {
    let align = match h {
        HPos::Left => "start",
        HPos::Right => "end",
        HPos::Center => "center",
    };
    let baseline = match v {
        VPos::Top => "top",
        VPos::Center => "middle",
        VPos::Bottom => "bottom",
    };
    (align, baseline)
}

/// plotters-canvas does not export its error type by name.
type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Result<(), DrawingErrorKind<CanvasError>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let turn = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 0.25,
            FontTransform::Rotate180 => 0.5,
            FontTransform::Rotate270 => 0.75,
        };
        let (mut x, mut y) = (f64::from(pos.0), f64::from(pos.1));
        if turn != 0.0 {
            self.context.save();
            let _ = self.context.translate(x, y);
            let _ = self.context.rotate(turn * std::f64::consts::TAU);
            (x, y) = (0.0, 0.0);
        }
        let anchor = anchor_names(style.anchor().h_pos, style.anchor().v_pos);
        if self.anchor != Some(anchor) {
            self.context.set_text_align(anchor.0);
            self.context.set_text_baseline(anchor.1);
            self.anchor = Some(anchor);
        }
        let (r, g, b) = colour.rgb;
        self.context.set_fill_style_str(&format!("rgba({r},{g},{b},{})", colour.alpha));
        self.use_font(style);
        let _ = self.context.fill_text(text, x, y);
        if turn != 0.0 {
            // Restoring brings back the font and anchor saved above, which
            // are the ones just set only if they were set before the save.
            self.context.restore();
            self.font.borrow_mut().clear();
            self.anchor = None;
        }
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        self.use_font(style);
        let width = self.context.measure_text(text).map(|m| m.width()).unwrap_or(style.size() * 0.6 * text.len() as f64);
        Ok((width.ceil() as u32, (style.size() * 1.2).ceil() as u32))
    }
}
