//! What a producer's clients saw of the requests they waited for, and what
//! a consumer's workers spent on requests whose client no longer waited:
//! counted where they happen (`blocks/producer/client.rs`, the consumer)
//! and read by reports, lesson figures and sweeps.

/// What a producer's clients saw of the requests they waited for
/// (`timeout_s`), and what a consumer's workers spent on requests whose
/// client no longer waited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientTally {
    /// Producer: requests answered (processed) while their client still
    /// waited: the goodput.
    pub answered: u64,
    /// Producer: requests whose client gave up waiting for them.
    pub timed_out: u64,
    /// Producer: requests answered with an error (dropped or refused on
    /// the way) while their client waited.
    pub failed: u64,
    /// Producer: answers that came after their client gave up.
    pub late: u64,
    /// Producer: attempts sent again (each a copy of its request, not a
    /// new one).
    pub resent: u64,
    /// Consumer: services finished for requests whose client had given up.
    pub wasted: u64,
    /// Consumer: the service time of those, in nanoseconds.
    pub wasted_ns: u128,
}
