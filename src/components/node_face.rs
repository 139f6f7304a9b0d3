//! What a block shows on the canvas in words and bars: its status line
//! and key figure (also what a screen reader hears), squeezed to fit the
//! block, and a queue's fill bar with its soft and hard marks.

use sluice_engine::numbers;
use sluice_engine::scenario::Kind;
use sluice_engine::State;
use yew::prelude::*;

use crate::components::graph::{NODE_H, NODE_W};
use crate::view::colours::state_colour;
use crate::view::snapshot::NodeView;

/// Where a block's lines start, and the width they may take: from the
/// band to short of the output port, so that no text touches the border.
pub(crate) const TEXT_X: f64 = -NODE_W / 2.0 + 16.0;
const TEXT_WIDTH: f64 = NODE_W - 16.0 - 16.0;
/// A character's mean width in each line's font, generously (bold sans
/// at 17, 14 and regular at 13 pixels, as the style sheet sets them).
pub(crate) const ID_EM: f64 = 17.0 * 0.64;
pub(crate) const STATUS_EM: f64 = 14.0 * 0.62;
pub(crate) const FIGURE_EM: f64 = 13.0 * 0.58;

/// The smallest text a block draws in its full face, in canvas units (the
/// kind above its name, and the drops below it).
pub(crate) const SMALLEST_UNITS: f64 = 12.0;
/// The text of a queue ends above its fill bar.
const QUEUE_TEXT_END: f64 = NODE_H / 2.0 - 22.0;
/// Other blocks' text ends above their bottom edge.
const TEXT_END: f64 = NODE_H / 2.0 - 8.0;
/// Where the first line's top is.
const TEXT_TOP: f64 = -NODE_H / 2.0 + 8.0;
/// A line's height, in its font's size.
const LINE: f64 = 1.2;
/// A character's mean width in a compact face's bold font, in its size.
const COMPACT_EM: f64 = 0.64;

/// A block's words drawn large when the canvas is drawn small: every
/// line at `font` canvas units, as many lines as fit above the bar
/// (name, status, figure; then name and figure; then the name alone),
/// each cut to the block's width. What is not drawn is still in the
/// block's label (a screen reader's, and the inspector's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Compact {
    pub font: f64,
}

impl Compact {
    /// The face for a canvas drawn at `scale` screen pixels a unit whose
    /// text must be at least `least_px` on screen: none when the full
    /// face's smallest text is that large already.
    pub(crate) fn at(scale: f64, least_px: f64) -> Option<Compact> {
        (SMALLEST_UNITS * scale < least_px && scale > 0.0).then(|| Compact { font: least_px / scale })
    }

    /// The lines drawn of a block's name, status and figure, each with
    /// its baseline.
    pub(crate) fn lines(self, kind: Kind, id: &str, status: &str, figure: &str) -> Vec<(&'static str, String, f64)> {
        let end = if kind == Kind::Queue { QUEUE_TEXT_END } else { TEXT_END };
        // The last baseline stays above the end.
        let room = (((end - TEXT_TOP) / self.font - 1.0) / LINE).floor().max(0.0) as usize + 1;
        let shown: Vec<(&'static str, &str)> = match room {
            0 | 1 => vec![("id", id)],
            2 => vec![("id", id), ("figure", figure)],
            _ => vec![("id", id), ("status", status), ("figure", figure)],
        };
        shown.into_iter().enumerate().map(|(k, (class, text))| (class, self.cut(text), TEXT_TOP + self.font * (LINE * k as f64 + 1.0))).collect()
    }

    /// `text` as it fits the block's width: squeezed a little, or cut
    /// with an ellipsis.
    pub(crate) fn cut(self, text: &str) -> String {
        let per_char = self.font * COMPACT_EM;
        let most = ((TEXT_WIDTH * 1.25) / per_char).floor() as usize;
        // The parts after a " · " go first, whole; then the end of the
        // first part, for an ellipsis.
        let mut text = text;
        while text.chars().count() > most {
            match text.rsplit_once(" · ") {
                Some((first, _)) => text = first,
                None => break,
            }
        }
        if text.chars().count() <= most {
            text.to_string()
        } else {
            let kept: String = text.chars().take(most.saturating_sub(1)).collect();
            format!("{}…", kept.trim_end())
        }
    }

    /// The width a line is squeezed to, as `squeeze` does for the full face.
    pub(crate) fn squeeze(self, text: &str) -> Option<String> {
        squeeze(text, self.font * COMPACT_EM)
    }
}

/// The width to squeeze a line of `text` into (`textLength`) when it would
/// run past the block's edge at `per_char` pixels a character; none when
/// it fits as drawn.
pub(crate) fn squeeze(text: &str, per_char: f64) -> Option<String> {
    (text.chars().count() as f64 * per_char > TEXT_WIDTH).then(|| TEXT_WIDTH.to_string())
}

/// A drawn text with a trailing space, which SVG does not draw: read as
/// one string, the texts of a block keep apart as words.
pub(crate) fn spaced(text: &str) -> String {
    format!("{text} ")
}

/// What a node shows in words: its status line and its figure; a screen
/// reader hears the kind, the id, then these (the label starts with what
/// is drawn, in the order drawn), then `more` if any.
pub(crate) fn describe(node: &NodeView) -> (String, String, Option<String>) {
    if node.held {
        return ("not connected".into(), "waits to be connected".into(), Some("it waits while the rest runs".into()));
    }
    match node.kind {
        Kind::Queue => {
            // The colour is the send state (the Moment server's): say so,
            // and show the load beside it, which the state does not tell.
            let state = node.state.unwrap_or(State::Ready);
            let status = if node.disconnected { format!("send: {state} · disconnected") } else { format!("send: {state}") };
            let figure = match node.load {
                Some(rho) => format!("{} waiting · load {}", node.depth, numbers::load(rho)),
                None => format!("{} waiting · {}", node.depth, numbers::bytes(node.depth_bytes)),
            };
            (status, figure, None)
        }
        Kind::Producer => {
            // What waits in it: a refused message and what came due since.
            let status = match (node.paused, node.depth) {
                (false, 0) => "producing".to_string(),
                (false, n) => format!("producing · {n} waiting"),
                (true, 0) => "paused".to_string(),
                (true, n) => format!("paused · {n} waiting"),
            };
            let figure = match &node.client {
                Some(c) => format!("{} answered · {} gave up", c.answered, c.timed_out),
                None => format!("{} made", node.arrived),
            };
            (status, figure, None)
        }
        Kind::Consumer | Kind::Dispatcher => {
            let figure = match &node.client {
                Some(c) if c.wasted > 0 => format!("{} done · {} for nobody", node.departed, c.wasted),
                _ => format!("{} done", node.departed),
            };
            (format!("{}/{} busy", node.in_service, node.workers), figure, None)
        }
        // What it is configured as, then what it holds and let through.
        Kind::ProductLimiter => {
            // A circuit breaker: its state first, as a queue's, and what
            // its window holds (the settings are in its name and inspector).
            if let (Some(state), Some((calls, failed))) = (node.state, node.breaker_window) {
                return (format!("state: {state}"), format!("{failed} of {calls} failed"), node.summary.clone());
            }
            let status = node.summary.clone().unwrap_or_default();
            let figure = if let Some(limit) = node.adaptive_limit {
                format!("{}/{limit} in flight", node.in_service)
            } else if node.limits_in_progress {
                format!("{} in progress · {} waiting", node.in_service, node.depth)
            } else {
                format!("{} held · {} passed", node.depth, node.departed)
            };
            (status, figure, None)
        }
        kind => {
            let level = match kind {
                Kind::Window | Kind::ConcurrencyLimiter => "in flight",
                Kind::Credit => "credits",
                Kind::ResourcePool => "busy",
                Kind::Link => "on the link",
                _ => "held",
            };
            let figure = match node.retransmitted {
                0 => format!("{} passed", node.departed),
                n => format!("{} passed · {n} sent again", node.departed),
            };
            (format!("{} {level}", node.depth), figure, None)
        }
    }
}

pub(crate) fn fill_bar(node: &NodeView) -> Html {
    // The bar spans up to the hard limit (or twice the soft one, or the depth).
    let soft = node.soft.messages as f64;
    let hard = node.hard.messages as f64;
    let full = [hard, soft * 2.0, node.depth as f64, 1.0].into_iter().fold(0.0, f64::max);
    let (x0, width) = (-NODE_W / 2.0 + 12.0, NODE_W - 24.0);
    let y = NODE_H / 2.0 - 16.0;
    let fill = width * (node.depth as f64 / full).min(1.0);
    let colour = state_colour(node.state.unwrap_or(State::Ready));
    let mark = |at: f64, class: &'static str| {
        (at > 0.0).then(|| {
            let x = x0 + width * (at / full).min(1.0);
            html! { <line class={class} x1={x.to_string()} x2={x.to_string()} y1={(y - 3.0).to_string()} y2={(y + 11.0).to_string()} /> }
        })
    };
    html! {
        <g class="fill-bar">
            <rect class="bar-back" x={x0.to_string()} y={y.to_string()} width={width.to_string()} height="8" rx="3" />
            <rect x={x0.to_string()} y={y.to_string()} width={fill.to_string()} height="8" rx="3" fill={colour} />
            { mark(soft, "mark-soft") }
            { mark(hard, "mark-hard") }
        </g>
    }
}
