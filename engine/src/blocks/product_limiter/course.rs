//! The course of an adaptive limit, for the charts: the limit and what was
//! in flight, each recorded as it changed, in bounded series (as a node's
//! depth is).

use crate::metrics::{Series, DEPTH_BUCKET_NS, DEPTH_SERIES_CAPACITY};
use crate::time::SimTime;

/// The limit and what was in flight, over the run.
#[derive(Clone)]
pub struct Course {
    pub limit: Series,
    pub in_flight: Series,
}

impl Course {
    pub(super) fn new() -> Course {
        Course { limit: Series::new(DEPTH_BUCKET_NS, DEPTH_SERIES_CAPACITY), in_flight: Series::new(DEPTH_BUCKET_NS, DEPTH_SERIES_CAPACITY) }
    }

    /// Records `limit` and `in_flight` at `now_ns` (never before the last
    /// record).
    pub(super) fn note(&mut self, now_ns: i64, limit: u64, in_flight: u64) {
        let now = SimTime::from_nanos(now_ns.max(0) as u64);
        self.limit.record(now, limit);
        self.in_flight.record(now, in_flight);
    }
}
