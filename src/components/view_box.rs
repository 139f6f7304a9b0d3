//! The canvas's view box: the one that fits every block, the readable part
//! of it a phone opens on, a zoom about a point, and the move that brings a
//! block into view.
//!
//! Guarantees: a fitted view shows every block with a margin; a zoom stays
//! within `ZOOM_RANGE` of the fitted view; a block brought into view is
//! centred, the view's size kept.

use crate::components::graph::{NODE_H, NODE_W};
use crate::view::snapshot::NodeView;

/// A view box: left, top, width, height in canvas units.
pub(crate) type ViewBox = (f64, f64, f64, f64);

/// The fewest screen pixels per canvas unit the fitted view draws at: the
/// smallest text of a block is 12 units, so at least 12 px.
const READABLE_SCALE: f64 = 1.0;

/// A canvas narrower than this (a phone's) fits at a readable scale; a
/// wider one fits everything, however small.
const NARROW_PX: f64 = 600.0;

/// The zoom step of the buttons; the wheel zooms continuously.
pub(crate) const ZOOM_STEP: f64 = 1.25;
/// How far one can zoom: a view box from 1/8 (or, for a large scenario, a
/// couple of blocks across) to 8 times the fitted one.
const ZOOM_RANGE: f64 = 8.0;

/// The view box that shows every node with a margin, at least 800 × 240.
pub(crate) fn fit_view(nodes: &[NodeView]) -> ViewBox {
    let margin = 40.0;
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for n in nodes {
        x0 = x0.min(n.x - NODE_W / 2.0);
        x1 = x1.max(n.x + NODE_W / 2.0);
        y0 = y0.min(n.y - NODE_H / 2.0);
        // Below: the drop count, and room for the class key.
        y1 = y1.max(n.y + NODE_H / 2.0 + 48.0);
    }
    if nodes.is_empty() {
        (x0, y0, x1, y1) = (0.0, 0.0, 800.0, 240.0);
    }
    let (w, h) = ((x1 - x0 + 2.0 * margin).max(800.0), (y1 - y0 + 2.0 * margin).max(240.0));
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    (cx - w / 2.0, cy - h / 2.0, w, h)
}

/// `fit` as drawn on `pixels` (the canvas's size in CSS pixels): where the
/// whole would be drawn smaller than `READABLE_SCALE`, the part of it from
/// its top left corner that is drawn at that scale.
pub(crate) fn readable(fit: ViewBox, pixels: Option<(f64, f64)>) -> ViewBox {
    let Some((pw, ph)) = pixels.filter(|(w, h)| *w > 0.0 && *h > 0.0 && *w < NARROW_PX) else { return fit };
    if (pw / fit.2).min(ph / fit.3) >= READABLE_SCALE {
        return fit;
    }
    let (w, h) = (pw / READABLE_SCALE, ph / READABLE_SCALE);
    // Centred across what is shown when the whole is narrower (or lower)
    // than the screen; from the left (top) edge when it is wider.
    let x = if fit.2 <= w { fit.0 + (fit.2 - w) / 2.0 } else { fit.0 };
    let y = if fit.3 <= h { fit.1 + (fit.3 - h) / 2.0 } else { fit.1 };
    (x, y, w, h)
}

/// `view` zoomed by `factor` (above 1: out) about the canvas point `at`,
/// kept within `ZOOM_RANGE` of the fitted view.
pub(crate) fn zoom(view: ViewBox, fit: ViewBox, factor: f64, at: (f64, f64)) -> ViewBox {
    let (x, y, w, h) = view;
    // In as far as a couple of blocks across, however large the scenario.
    let narrowest = (fit.2 / ZOOM_RANGE).min(2.5 * NODE_W);
    let factor = (w * factor).clamp(narrowest, fit.2 * ZOOM_RANGE) / w;
    (at.0 - (at.0 - x) * factor, at.1 - (at.1 - y) * factor, w * factor, h * factor)
}

/// The view `shown` moved to centre a block at `(x, y)`: when `whole`,
/// unless the block is wholly inside it; otherwise only when no part of
/// it is (a block half in view, clicked at the edge, stays where it is).
pub(crate) fn bring_into_view(shown: ViewBox, (x, y): (f64, f64), whole: bool) -> Option<ViewBox> {
    let (left, right, top, bottom) = (x - NODE_W / 2.0, x + NODE_W / 2.0, y - NODE_H / 2.0, y + NODE_H / 2.0);
    let (x1, y1) = (shown.0 + shown.2, shown.1 + shown.3);
    let partly_out = left < shown.0 || right > x1 || top < shown.1 || bottom > y1;
    let wholly_out = right < shown.0 || left > x1 || bottom < shown.1 || top > y1;
    (if whole { partly_out } else { wholly_out }).then(|| (x - shown.2 / 2.0, y - shown.3 / 2.0, shown.2, shown.3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_beyond_the_view_is_centred_in_a_view_of_the_same_size_and_a_half_visible_one_only_when_just_added() {
        let shown = (0.0, 0.0, 400.0, 300.0);
        for whole in [true, false] {
            assert_eq!(bring_into_view(shown, (200.0, 150.0), whole), None, "inside: the view stays");
            assert_eq!(bring_into_view(shown, (1000.0, -500.0), whole), Some((800.0, -650.0, 400.0, 300.0)), "far out: centred");
        }
        // Half out: a block just added is shown whole; one clicked stays.
        assert_eq!(bring_into_view(shown, (390.0, 150.0), true), Some((190.0, 0.0, 400.0, 300.0)));
        assert_eq!(bring_into_view(shown, (390.0, 150.0), false), None);
    }
}
