//! The page's colours that carry meaning, in one place: a send-queue state
//! (or a circuit breaker's) is the same colour on the canvas, in the log, on the state strips and in
//! the chart's thresholds; a charted node keeps its colour across charts.

use sluice_engine::State;

/// The colour of a send-queue state, shared by the canvas, log and legend.
pub fn state_colour(state: State) -> &'static str {
    match state {
        State::Ready => "#2f9e44",
        State::Overloaded => "#e6a700",
        State::SoftLimit => "#e8590c",
        State::HardLimit => "#c92a2a",
        // A circuit breaker: closed lets through, open refuses.
        State::Closed => "#2f9e44",
        State::HalfOpen => "#e6a700",
        State::Open => "#c92a2a",
        _ => "#868e96",
    }
}

/// The colours of charted nodes, in selection order.
pub const NODE_COLOURS: [&str; 6] = ["#1c7ed6", "#7048e8", "#0c8599", "#d6336c", "#5c940d", "#f08c00"];
