//! The states blocks pass through, as transitions, reports and lesson checks
//! name them: a queue's send state, a consumer's phase, a schedule's up and
//! down, a producer's link to its server, a circuit breaker's state.
//!
//! Guarantee: each state is written exactly as it was when states were
//! strings ("SoftLimit", "ShuttingDown", "up", "linked"), in reports, JSON
//! output and lesson files alike.

use serde::{Deserialize, Serialize, Serializer};

/// The send-queue states, least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SendState {
    Ready,
    Overloaded,
    SoftLimit,
    HardLimit,
}

impl SendState {
    pub fn as_str(self) -> &'static str {
        match self {
            SendState::Ready => "Ready",
            SendState::Overloaded => "Overloaded",
            SendState::SoftLimit => "SoftLimit",
            SendState::HardLimit => "HardLimit",
        }
    }
}

/// Where a consumer is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Initializing,
    Operational,
    ShuttingDown,
    ShutDown,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Initializing => "Initializing",
            Phase::Operational => "Operational",
            Phase::ShuttingDown => "ShuttingDown",
            Phase::ShutDown => "ShutDown",
        }
    }
}


/// A state of some block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    // A queue's send state, least severe first.
    Ready,
    Overloaded,
    SoftLimit,
    HardLimit,
    // A consumer's life.
    New,
    Initializing,
    Operational,
    ShuttingDown,
    ShutDown,
    // A consumer, link or host on a schedule.
    Up,
    Down,
    Outage,
    // A producer's link to the consumer it is linked to.
    Unlinked,
    Linking,
    Linked,
    // A circuit breaker's state (resilience4j's names), least severe first.
    Closed,
    HalfOpen,
    Open,
}

impl State {
    pub const ALL: [State; 18] = [
        State::Ready,
        State::Overloaded,
        State::SoftLimit,
        State::HardLimit,
        State::New,
        State::Initializing,
        State::Operational,
        State::ShuttingDown,
        State::ShutDown,
        State::Up,
        State::Down,
        State::Outage,
        State::Unlinked,
        State::Linking,
        State::Linked,
        State::Closed,
        State::HalfOpen,
        State::Open,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Ready => "Ready",
            State::Overloaded => "Overloaded",
            State::SoftLimit => "SoftLimit",
            State::HardLimit => "HardLimit",
            State::New => "New",
            State::Initializing => "Initializing",
            State::Operational => "Operational",
            State::ShuttingDown => "ShuttingDown",
            State::ShutDown => "ShutDown",
            State::Up => "up",
            State::Down => "down",
            State::Outage => "outage",
            State::Unlinked => "unlinked",
            State::Linking => "linking",
            State::Linked => "linked",
            State::Closed => "CLOSED",
            State::HalfOpen => "HALF_OPEN",
            State::Open => "OPEN",
        }
    }

    /// The state named `name`, if there is one.
    pub fn parse(name: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The send state this is, if it is one.
    pub fn send_state(self) -> Option<SendState> {
        match self {
            State::Ready => Some(SendState::Ready),
            State::Overloaded => Some(SendState::Overloaded),
            State::SoftLimit => Some(SendState::SoftLimit),
            State::HardLimit => Some(SendState::HardLimit),
            _ => None,
        }
    }

    /// The strip that draws this state over time, and its place there.
    pub fn strip(self) -> Option<(Strip, usize)> {
        [Strip::Send, Strip::Breaker].into_iter().find_map(|strip| strip.states().iter().position(|&s| s == self).map(|k| (strip, k)))
    }
}

/// The families of states: a block is in one state of each family it has
/// at a time (a consumer has a life and may have a schedule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Send,
    Life,
    Schedule,
    Link,
    Breaker,
}

impl State {
    /// The family it belongs to.
    pub fn family(self) -> Family {
        match self {
            State::Ready | State::Overloaded | State::SoftLimit | State::HardLimit => Family::Send,
            State::New | State::Initializing | State::Operational | State::ShuttingDown | State::ShutDown => Family::Life,
            State::Up | State::Down | State::Outage => Family::Schedule,
            State::Unlinked | State::Linking | State::Linked => Family::Link,
            State::Closed | State::HalfOpen | State::Open => Family::Breaker,
        }
    }
}

/// A family of states a state strip draws over time, least severe first:
/// a queue's send states, or a circuit breaker's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strip {
    Send,
    Breaker,
}

impl Strip {
    /// Its states, least severe first (at most four).
    pub fn states(self) -> &'static [State] {
        match self {
            Strip::Send => &[State::Ready, State::Overloaded, State::SoftLimit, State::HardLimit],
            Strip::Breaker => &[State::Closed, State::HalfOpen, State::Open],
        }
    }

    /// What it shows, for people: "Send state".
    pub fn title(self) -> &'static str {
        match self {
            Strip::Send => "Send state",
            Strip::Breaker => "Circuit breaker state",
        }
    }
}

impl From<SendState> for State {
    fn from(state: SendState) -> State {
        match state {
            SendState::Ready => State::Ready,
            SendState::Overloaded => State::Overloaded,
            SendState::SoftLimit => State::SoftLimit,
            SendState::HardLimit => State::HardLimit,
        }
    }
}

impl From<Phase> for State {
    fn from(phase: Phase) -> State {
        match phase {
            Phase::Initializing => State::Initializing,
            Phase::Operational => State::Operational,
            Phase::ShuttingDown => State::ShuttingDown,
            Phase::ShutDown => State::ShutDown,
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that widths and alignment in format strings apply.
        f.pad(self.as_str())
    }
}

impl Serialize for State {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Why a block changed state, as the transition log, `sluice run
/// --transitions` and the page's event log say it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    // A queue's send state.
    Enqueue,
    Send,
    WouldBlock,
    Overflow,
    ThresholdsChanged,
    Expired,
    Emptied,
    NewClientConnected,
    // A consumer's life.
    Start,
    Initialized,
    Shutdown,
    InitTimedOut,
    SupervisorShuttingDown,
    ChildFailedToInitialize,
    Drained,
    // A schedule's up and down.
    Schedule,
    HostSchedule,
    // A producer's link to its server.
    LinkAsked,
    LinkConfirmed,
    ServerShuttingDown,
    LinkRemoved,
    // A circuit breaker's state.
    FailureRate,
    SlowCallRate,
    OpenWaitElapsed,
    TrialCallsPassed,
    HalfOpenWaitElapsed,
}

impl Cause {
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Enqueue => "enqueue",
            Cause::Send => "send",
            Cause::WouldBlock => "would block",
            Cause::Overflow => "overflow",
            Cause::ThresholdsChanged => "thresholds changed",
            Cause::Expired => "expired",
            Cause::Emptied => "emptied",
            Cause::NewClientConnected => "new client connected",
            Cause::Start => "start",
            Cause::Initialized => "initialized",
            Cause::Shutdown => "shutdown",
            Cause::InitTimedOut => "init timed out",
            Cause::SupervisorShuttingDown => "supervisor shutting down",
            Cause::ChildFailedToInitialize => "child failed to initialize",
            Cause::Drained => "drained",
            Cause::Schedule => "schedule",
            Cause::HostSchedule => "host schedule",
            Cause::LinkAsked => "link asked",
            Cause::LinkConfirmed => "link confirmed",
            Cause::ServerShuttingDown => "server shutting down",
            Cause::LinkRemoved => "link removed",
            Cause::FailureRate => "failure rate at threshold",
            Cause::SlowCallRate => "slow call rate at threshold",
            Cause::OpenWaitElapsed => "open wait elapsed",
            Cause::TrialCallsPassed => "trial calls passed",
            Cause::HalfOpenWaitElapsed => "half-open wait elapsed",
        }
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for Cause {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_keep_the_words_the_log_has_always_shown() {
        let words = [
            (Cause::Enqueue, "enqueue"),
            (Cause::Send, "send"),
            (Cause::WouldBlock, "would block"),
            (Cause::Overflow, "overflow"),
            (Cause::ThresholdsChanged, "thresholds changed"),
            (Cause::Expired, "expired"),
            (Cause::Emptied, "emptied"),
            (Cause::NewClientConnected, "new client connected"),
            (Cause::Start, "start"),
            (Cause::Initialized, "initialized"),
            (Cause::Shutdown, "shutdown"),
            (Cause::InitTimedOut, "init timed out"),
            (Cause::SupervisorShuttingDown, "supervisor shutting down"),
            (Cause::ChildFailedToInitialize, "child failed to initialize"),
            (Cause::Drained, "drained"),
            (Cause::Schedule, "schedule"),
            (Cause::HostSchedule, "host schedule"),
            (Cause::LinkAsked, "link asked"),
            (Cause::LinkConfirmed, "link confirmed"),
            (Cause::ServerShuttingDown, "server shutting down"),
            (Cause::LinkRemoved, "link removed"),
            (Cause::FailureRate, "failure rate at threshold"),
            (Cause::SlowCallRate, "slow call rate at threshold"),
            (Cause::OpenWaitElapsed, "open wait elapsed"),
            (Cause::TrialCallsPassed, "trial calls passed"),
            (Cause::HalfOpenWaitElapsed, "half-open wait elapsed"),
        ];
        for (cause, text) in words {
            assert_eq!((cause.as_str(), cause.to_string()), (text, text.to_string()));
            assert_eq!(serde_json::to_value(cause).unwrap(), serde_json::Value::from(text));
        }
    }

    #[test]
    fn states_read_back_and_send_states_and_phases_keep_their_names() {
        for state in State::ALL {
            assert_eq!(State::parse(state.as_str()), Some(state));
            assert_eq!(serde_json::to_value(state).unwrap(), serde_json::Value::from(state.as_str()));
        }
        for send in [SendState::Ready, SendState::Overloaded, SendState::SoftLimit, SendState::HardLimit] {
            assert_eq!(State::from(send).as_str(), send.as_str());
            assert_eq!(State::from(send).send_state(), Some(send));
        }
        for phase in [Phase::Initializing, Phase::Operational, Phase::ShuttingDown, Phase::ShutDown] {
            assert_eq!(State::from(phase).as_str(), phase.as_str());
        }
    }

    #[test]
    fn each_strip_state_is_found_in_its_strip_and_no_other_state_is() {
        for strip in [Strip::Send, Strip::Breaker] {
            assert!(strip.states().len() <= 4);
            for (k, &state) in strip.states().iter().enumerate() {
                assert_eq!(state.strip(), Some((strip, k)));
            }
        }
        assert_eq!(State::Up.strip(), None);
        assert_eq!(State::HalfOpen.strip(), Some((Strip::Breaker, 1)));
    }

    #[test]
    fn a_width_in_a_format_string_applies() {
        assert_eq!(format!("[{:<14}]", State::Ready), format!("[{:<14}]", State::Ready.as_str()));
    }
}
