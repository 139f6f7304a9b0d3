//! HAProxy's request rate per key: a stick table storing
//! `http_req_rate(P)`, `http-request track-sc0 KEY` and `http-request deny
//! if { sc_http_req_rate(0) gt L }`, transcribed from HAProxy 2.6
//! (`include/haproxy/freq_ctr.h` and `src/freq_ctr.c` for the counter,
//! `src/http_act.c` for the tracking, `src/stick_table.c` for the table;
//! tag `v2.6.0`, whose freq_ctr and tracking code is that of Debian 12's
//! 2.6.12).
//!
//! Guarantees, as HAProxy decides:
//! - The clock is milliseconds, wrapping at 2^32 as HAProxy's `now_ms`
//!   does. Each key has a counter of the current period (`curr`, since
//!   `tick`), the count of the period before (`prev`), and the instant its
//!   entry expires.
//! - A request is counted first: if `now − tick < P` it adds to `curr`;
//!   otherwise the periods rotate (`prev = curr`, `curr = 1`, `tick += P`),
//!   and when `now` is two periods past the old `tick` or more, `prev = 0`
//!   and `tick = now`. A tick is always even (its lowest bit is HAProxy's
//!   lock). A key's first request starts its first period at its own
//!   instant: periods are per key, not on a common grid.
//! - Then the rate is read: `curr + prev × (tick + P − now) / P`, rounded
//!   down: the previous period weighs what of it is still within the last
//!   P. The request is denied (`status`) when the rate is greater than
//!   `limit`; so `limit` requests a period pass, and the next is denied.
//!   A denied request was counted too: a client that keeps sending keeps
//!   itself denied. Nothing is ever delayed.
//! - An entry expires `expire` after its last request and is then
//!   forgotten. A new key in a full table (`size` entries) first forgets
//!   the `size / 256 + 1` entries that expire soonest (least recently
//!   used).
//!
//! Not modelled: an entry kept while a request that tracks it is still
//! being served (HAProxy does not forget such an entry when the table is
//! full; here every entry may be forgotten), several threads, and a key
//! missing from the request (HAProxy then tracks nothing and lets it
//! through; a message with no key is counted under one shared key).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{push_error, FieldError};

/// A stick table's `http_req_rate(P)` and the deny rule that reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HaproxyReqRateSpec {
    /// `http_req_rate(P)`: the period, in seconds (whole milliseconds).
    pub period_s: f64,
    /// `deny if { sc_http_req_rate(0) gt L }`: `L`.
    pub limit: u32,
    /// `deny_status` (HAProxy answers 403 unless told).
    #[serde(default = "default_status")]
    pub status: u16,
    /// The table's `size`, in entries.
    #[serde(default = "default_size")]
    pub size: u32,
    /// The table's `expire`, in seconds (whole milliseconds).
    #[serde(default = "default_expire")]
    pub expire_s: f64,
    /// What `track-sc0` tracks, as the configuration writes it (`src`,
    /// `req.hdr(x-client)`); the run keys on each message's key.
    #[serde(default = "default_key")]
    pub key: String,
}

fn default_status() -> u16 {
    403
}

fn default_size() -> u32 {
    100 << 10
}

fn default_expire() -> f64 {
    30.0
}

fn default_key() -> String {
    "src".into()
}

/// The longest period or expiry taken: HAProxy's ticks are signed 32-bit
/// milliseconds, about 24 days.
pub const MAX_MS: u64 = (1 << 31) - 1;

/// `s` seconds as whole milliseconds, if it is one.
fn whole_ms(s: f64) -> Option<u64> {
    let ms = (s * 1000.0).round();
    (s.is_finite() && (s * 1000.0 - ms).abs() < 1e-6 && (1.0..=MAX_MS as f64).contains(&ms)).then_some(ms as u64)
}

impl HaproxyReqRateSpec {
    /// `limit` requests a `period_s`, the rest as the block's defaults: a
    /// table of 100k entries expiring 30 s after a key's last request,
    /// tracking `src`, denying with HAProxy's 403.
    pub fn of(limit: u32, period_s: f64) -> HaproxyReqRateSpec {
        HaproxyReqRateSpec { period_s, limit, status: default_status(), size: default_size(), expire_s: default_expire(), key: default_key() }
    }

    /// The period in milliseconds.
    pub fn period_ms(&self) -> u32 {
        whole_ms(self.period_s).unwrap_or(1) as u32
    }

    /// The expiry in milliseconds.
    pub fn expire_ms(&self) -> u64 {
        whole_ms(self.expire_s).unwrap_or(1)
    }

    /// In a few words: `haproxy gt 10 per 10s`.
    pub fn summary(&self) -> String {
        format!("haproxy gt {} per {}", self.limit, duration_text(self.period_ms().into()))
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if whole_ms(self.period_s).is_none() {
            push_error(errors, format!("{path}.period_s"), "must be whole milliseconds, from 0.001 s to about 24 days (2^31 − 1 ms)");
        }
        if whole_ms(self.expire_s).is_none() {
            push_error(errors, format!("{path}.expire_s"), "must be whole milliseconds, from 0.001 s to about 24 days (2^31 − 1 ms)");
        }
        if self.limit > 1_000_000_000 {
            push_error(errors, format!("{path}.limit"), "must be at most 1,000,000,000");
        }
        if self.size == 0 || self.size > 1 << 30 {
            push_error(errors, format!("{path}.size"), "must be from 1 to 2^30 entries");
        }
        if !(200..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 200 to 599, as deny_status takes");
        }
        if self.key.is_empty() || self.key.len() > 256 || self.key.chars().any(|c| c.is_control() || c.is_whitespace() || "\"'#{}".contains(c)) {
            push_error(errors, format!("{path}.key"), "must be one sample of 1 to 256 characters, as track-sc0 takes it (src, req.hdr(x-client)): no space, quote, #, { or }");
        }
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("period_s")] => Some(NumberField::Real(&mut self.period_s)),
            [Step::Key("limit")] => Some(NumberField::Whole32(&mut self.limit)),
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            [Step::Key("size")] => Some(NumberField::Whole32(&mut self.size)),
            [Step::Key("expire_s")] => Some(NumberField::Real(&mut self.expire_s)),
            _ => None,
        }
    }
}

/// Milliseconds as HAProxy's configuration writes a time: `10s`, `1m`,
/// `250ms`.
pub fn duration_text(ms: u64) -> String {
    match ms {
        _ if ms.is_multiple_of(86_400_000) => format!("{}d", ms / 86_400_000),
        _ if ms.is_multiple_of(3_600_000) => format!("{}h", ms / 3_600_000),
        _ if ms.is_multiple_of(60_000) => format!("{}m", ms / 60_000),
        _ if ms.is_multiple_of(1000) => format!("{}s", ms / 1000),
        _ => format!("{ms}ms"),
    }
}

/// A `freq_ctr` with a period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FreqCtr {
    curr_tick: u32,
    curr_ctr: u32,
    prev_ctr: u32,
}

impl FreqCtr {
    /// `update_freq_ctr_period(ctr, period, 1)` at `now`.
    fn update(&mut self, period: u32, now: u32) {
        if now.wrapping_sub(self.curr_tick) < period {
            self.curr_ctr = self.curr_ctr.wrapping_add(1);
            return;
        }
        self.prev_ctr = self.curr_ctr;
        self.curr_ctr = 1;
        let mut tick = self.curr_tick.wrapping_add(period);
        if now.wrapping_sub(tick) >= period {
            self.prev_ctr = 0;
            tick = now;
        }
        self.curr_tick = tick & !1;
    }

    /// `read_freq_ctr_period(ctr, period)` at `now`.
    fn read(&self, period: u32, now: u32) -> u32 {
        let mut curr = u64::from(self.curr_ctr);
        let mut past = u64::from(self.prev_ctr);
        let mut remain = self.curr_tick.wrapping_add(period).wrapping_sub(now) as i32;
        if remain < 0 {
            remain = remain.wrapping_add(period as i32);
            past = if remain >= 0 { curr } else { 0 };
            curr = 0;
        }
        if curr == 0 && past <= 1 {
            return (past * u64::from(period) / u64::from(period)) as u32;
        }
        let remain = u64::try_from(remain).unwrap_or(0);
        ((past * remain + curr * u64::from(period)) / u64::from(period)) as u32
    }
}

/// A table entry.
#[derive(Clone, Copy, Debug)]
struct Entry {
    rate: FreqCtr,
    /// When it expires, in milliseconds (not wrapped), and its place in
    /// the order of expiry.
    expires: (u64, u64),
}

/// What the rule decided for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Deny,
}

/// A stick table.
#[derive(Clone, Default)]
pub struct Table {
    entries: HashMap<u32, Entry>,
    /// Keys by expiry, soonest first.
    expiry: BTreeMap<(u64, u64), u32>,
    touches: u64,
}

impl Table {
    /// How many entries it holds now.
    pub fn keys(&self) -> usize {
        self.entries.len()
    }

    fn forget(&mut self, at: (u64, u64)) {
        if let Some(key) = self.expiry.remove(&at) {
            self.entries.remove(&key);
        }
    }

    /// Forgets what expired by `now`, and the soonest to expire beyond
    /// `size` entries (a table made smaller).
    pub fn expire(&mut self, now: u64, size: usize) {
        while let Some((&first, _)) = self.expiry.first_key_value() {
            if first.0 > now && self.entries.len() <= size {
                break;
            }
            self.forget(first);
        }
    }

    /// The rate a read at `now` would give for `key`, if it has an entry.
    #[cfg(test)]
    pub fn rate(&self, spec: &HaproxyReqRateSpec, key: u32, now: u64) -> Option<u32> {
        self.entries.get(&key).map(|e| e.rate.read(spec.period_ms(), now as u32))
    }

    /// Decides a request of `key` at millisecond `now`.
    pub fn decide(&mut self, spec: &HaproxyReqRateSpec, key: u32, now: u64) -> Verdict {
        let size = spec.size as usize;
        self.expire(now, size);
        let period = spec.period_ms();
        let clock = now as u32;
        let mut entry = match self.entries.get(&key) {
            Some(&e) => {
                self.expiry.remove(&e.expires);
                e
            }
            None => {
                if self.entries.len() >= size {
                    // Purge the batch that expires soonest.
                    for _ in 0..(size >> 8) + 1 {
                        let Some((&first, _)) = self.expiry.first_key_value() else { break };
                        self.forget(first);
                    }
                }
                // A zeroed counter: HAProxy's clock is far past tick 0, so
                // the first request starts the key's first period.
                Entry { rate: FreqCtr { curr_tick: clock.wrapping_sub(period).wrapping_sub(period), ..FreqCtr::default() }, expires: (0, 0) }
            }
        };
        self.touches += 1;
        entry.expires = (now.saturating_add(spec.expire_ms()), self.touches);
        entry.rate.update(period, clock);
        let rate = entry.rate.read(period, clock);
        self.expiry.insert(entry.expires, key);
        self.entries.insert(key, entry);
        if rate > spec.limit {
            Verdict::Deny
        } else {
            Verdict::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(limit: u32, period_s: f64) -> HaproxyReqRateSpec {
        HaproxyReqRateSpec::of(limit, period_s)
    }

    #[test]
    fn one_request_in_the_last_period_and_none_since_reads_one_whatever_the_time() {
        // HAProxy's flapping correction: with nothing in the current period
        // and at most one in the last, the last's count is read whole
        // (`return past * period`, then divided by the period), not
        // weighted by what is left of it.
        let s = spec(10, 10.0);
        let mut t = Table::default();
        t.decide(&s, 1, 1_000);
        // The next period began at 11 s: one in the last, none since.
        assert_eq!(t.rate(&s, 1, 11_000), Some(1));
        assert_eq!(t.rate(&s, 1, 20_999), Some(1), "near its end, the weighted read would be 0");
        // Two in the last period: weighted, 2 · 1 / 10000 ms left: 0.
        let mut t = Table::default();
        t.decide(&s, 2, 1_000);
        t.decide(&s, 2, 1_000);
        assert_eq!(t.rate(&s, 2, 20_999), Some(0));
        assert_eq!(t.rate(&s, 2, 16_000), Some(1), "two weighted by half the period");
    }

    #[test]
    fn each_setting_outside_haproxys_range_is_refused_by_its_path() {
        let refused = |s: HaproxyReqRateSpec| super::super::refused_fields(|path, errors| s.validate(path, errors));
        let edges = HaproxyReqRateSpec { period_s: 0.001, expire_s: MAX_MS as f64 / 1000.0, limit: 1_000_000_000, size: 1 << 30, status: 200, key: "k".repeat(256) };
        assert_eq!(refused(edges.clone()), Vec::<String>::new());
        assert_eq!(refused(HaproxyReqRateSpec { status: 599, limit: 0, size: 1, ..edges.clone() }), Vec::<String>::new());
        let past: Vec<(HaproxyReqRateSpec, &str)> = vec![
            (HaproxyReqRateSpec { period_s: 0.0005, ..edges.clone() }, "n.period_s"),
            (HaproxyReqRateSpec { period_s: 0.0015, ..edges.clone() }, "n.period_s"),
            (HaproxyReqRateSpec { period_s: f64::NAN, ..edges.clone() }, "n.period_s"),
            (HaproxyReqRateSpec { expire_s: (MAX_MS + 1) as f64 / 1000.0, ..edges.clone() }, "n.expire_s"),
            (HaproxyReqRateSpec { expire_s: 1.0005, ..edges.clone() }, "n.expire_s"),
            (HaproxyReqRateSpec { limit: 1_000_000_001, ..edges.clone() }, "n.limit"),
            (HaproxyReqRateSpec { size: 0, ..edges.clone() }, "n.size"),
            (HaproxyReqRateSpec { size: (1 << 30) + 1, ..edges.clone() }, "n.size"),
            (HaproxyReqRateSpec { status: 199, ..edges.clone() }, "n.status"),
            (HaproxyReqRateSpec { status: 600, ..edges.clone() }, "n.status"),
            (HaproxyReqRateSpec { key: String::new(), ..edges.clone() }, "n.key"),
            (HaproxyReqRateSpec { key: "k".repeat(257), ..edges.clone() }, "n.key"),
            (HaproxyReqRateSpec { key: "a b".into(), ..edges.clone() }, "n.key"),
            (HaproxyReqRateSpec { key: "a#".into(), ..edges.clone() }, "n.key"),
            (HaproxyReqRateSpec { key: "a\u{1}".into(), ..edges.clone() }, "n.key"),
        ];
        for (spec, field) in past {
            assert_eq!(refused(spec.clone()), [field], "{spec:?}");
        }
    }

    #[test]
    fn a_rate_read_from_a_file_takes_haproxys_defaults_and_says_itself_as_the_configuration_would() {
        let read: super::super::ProductLimiterSpec = serde_json::from_value(serde_json::json!({"product": "haproxy_http_req_rate", "limit": 10, "period_s": 10})).unwrap();
        let super::super::ProductLimiterSpec::HaproxyHttpReqRate(read) = read else { panic!("{read:?}") };
        assert_eq!((read.size, read.key.as_str(), read.status, read.expire_s), (102_400, "src", 403, 30.0));
        assert_eq!(read.summary(), "haproxy gt 10 per 10s");
        assert_eq!([86_400_000, 7_200_000, 120_000, 1_000, 250, 90_000].map(duration_text), ["1d", "2h", "2m", "1s", "250ms", "90s"]);
    }

    #[test]
    fn the_limit_passes_and_the_next_is_denied_and_counted() {
        // gt 10 per 10 s: 11 at once, the 11th denied; one more at 10 s
        // reads 1 + 11 (the whole previous period still weighs): denied.
        let s = spec(10, 10.0);
        let mut t = Table::default();
        let v: Vec<Verdict> = (0..11).map(|_| t.decide(&s, 1, 1_000)).collect();
        assert_eq!(v.iter().filter(|v| **v == Verdict::Pass).count(), 10);
        assert_eq!(v[10], Verdict::Deny);
        assert_eq!(t.decide(&s, 1, 11_000), Verdict::Deny);
        // Half a period on: 2 + 11 × 5,000 / 10,000 = 7.
        assert_eq!(t.decide(&s, 1, 16_000), Verdict::Pass);
        assert_eq!(t.rate(&s, 1, 16_000), Some(7));
    }

    #[test]
    fn a_steady_client_at_the_limit_is_denied_for_good_and_just_below_it_never() {
        // One request a second with gt 10 per 10 s: from the 11th on every
        // read is 11, and a denied request counts, so it stays denied.
        let s = spec(10, 10.0);
        let mut t = Table::default();
        let at: Vec<Verdict> = (0..60).map(|j| t.decide(&s, 1, 2_000 + 1_000 * j)).collect();
        assert!(at[..10].iter().all(|v| *v == Verdict::Pass));
        assert!(at[10..].iter().all(|v| *v == Verdict::Deny), "{at:?}");
        // Every 1,001 ms: never more than 10.
        let mut t = Table::default();
        assert!((0..60).all(|j| t.decide(&s, 1, 2_000 + 1_001 * j) == Verdict::Pass));
    }

    #[test]
    fn two_hundred_requests_over_two_hundred_seconds_are_far_from_two_hundred() {
        // The report of HAProxy 2.2.11's bug (#1224): at 1 a second with
        // gt 200 per 10 s, 2.6 reads 10 or 11 and denies nothing.
        let s = HaproxyReqRateSpec { expire_s: 10.0, ..spec(200, 10.0) };
        let mut t = Table::default();
        assert!((0..400).all(|j| t.decide(&s, 1, 5_000 + 1_000 * j) == Verdict::Pass));
        assert!(t.rate(&s, 1, 404_000).unwrap() <= 11);
    }

    #[test]
    fn periods_start_at_a_keys_first_request_on_an_even_tick() {
        let s = spec(1, 1.0);
        let mut t = Table::default();
        assert_eq!(t.decide(&s, 7, 12_345), Verdict::Pass);
        assert_eq!(t.entries[&7].rate.curr_tick, 12_344);
        // 999 ms after the tick: the same period.
        assert_eq!(t.decide(&s, 7, 13_343), Verdict::Deny);
        // Two periods idle: prev forgotten, a period anchored anew.
        assert_eq!(t.decide(&s, 7, 20_000), Verdict::Pass);
        assert_eq!((t.entries[&7].rate.prev_ctr, t.entries[&7].rate.curr_tick), (0, 20_000));
    }

    #[test]
    fn an_entry_expires_and_a_full_table_forgets_the_least_recently_used() {
        let s = HaproxyReqRateSpec { size: 300, expire_s: 5.0, ..spec(1, 10.0) };
        let mut t = Table::default();
        assert_eq!(t.decide(&s, 1, 0), Verdict::Pass);
        assert_eq!(t.decide(&s, 1, 4_999), Verdict::Deny);
        // Expired 5 s after its last request: forgotten, so it starts afresh.
        assert_eq!(t.decide(&s, 1, 9_999), Verdict::Pass);
        let mut t = Table::default();
        for key in 0..300 {
            t.decide(&s, key, 100);
        }
        t.decide(&s, 0, 200); // key 0 used again: key 1 is now the oldest
        // A new key purges 300 / 256 + 1 = 2 entries: keys 1 and 2.
        assert_eq!(t.decide(&s, 1_000, 300), Verdict::Pass);
        assert_eq!(t.keys(), 299);
        assert!(t.rate(&s, 1, 300).is_none() && t.rate(&s, 2, 300).is_none() && t.rate(&s, 0, 300).is_some());
    }

    #[test]
    fn the_counter_reads_as_freq_ctr_c_reads() {
        // A read long after the last update: both periods gone.
        let c = FreqCtr { curr_tick: 1_000, curr_ctr: 5, prev_ctr: 9 };
        assert_eq!(c.read(1_000, 1_500), 5 + 9 / 2);
        assert_eq!(c.read(1_000, 2_500), 5 / 2, "one period on, the current one weighs half");
        assert_eq!(c.read(1_000, 3_500), 0);
        // Across the wrap of the millisecond clock.
        let mut w = FreqCtr { curr_tick: u32::MAX - 1, curr_ctr: 3, prev_ctr: 0 };
        w.update(1_000, 10);
        assert_eq!(w.curr_ctr, 4);
        assert_eq!(duration_text(10_000), "10s");
        assert_eq!(duration_text(90_000), "90s");
        assert_eq!(duration_text(120_000), "2m");
        assert_eq!(duration_text(1_500), "1500ms");
    }
}
