//! nginx's `limit_req`, transcribed from nginx 1.22.1
//! (`src/http/modules/ngx_http_limit_req_module.c`, tag `release-1.22.1`,
//! commit 352a7d2; the file is the same from 1.22.0 to this day): one
//! `limit_req_zone` and the `limit_req` directive that uses it.
//!
//! Guarantees, as the module decides:
//! - State per key: `excess`, in thousandths of a request, and `last`, the
//!   millisecond of the last request charged. The clock is milliseconds
//!   (`ngx_current_msec`): a request's instant is its millisecond, rounded
//!   down.
//! - The rate is stored as `rate * 1000 / 60` thousandths of a request per
//!   second for `r/m` (rounded down: 1r/m is one request per 62.5 s),
//!   `rate * 1000` for `r/s`.
//! - A request of a key seen before: `ms = now - last`, then
//!   `excess = max(0, excess - rate * ms / 1000 + 1000)` (integer division).
//!   Refused (`limit_req_status`, 503 unless set) when `excess > burst *
//!   1000`, and then nothing of the key changes. Otherwise the key keeps
//!   `excess`, and `last = now` unless `ms` is 0. So `burst = B` lets B + 1
//!   requests through back to back.
//! - A key's first request: excess 0, never refused, never delayed.
//! - Let through at once when `excess <= delay * 1000` (`nodelay`: always;
//!   neither `nodelay` nor `delay`: `delay` is 0), else delayed by
//!   `(excess - delay * 1000) * 1000 / rate` milliseconds, charged at once
//!   (a request delayed is charged as it arrives, not as it leaves).
//! - `dry_run`: decided and charged the same, but everything passes at
//!   once, recorded as `rejected_dry_run` or `delayed_dry_run`.
//! - The zone holds `capacity` keys, the least recently used last (a
//!   refused request moves its key to the front too). Before a new key is
//!   added, at most two keys are forgotten from the back, each only if idle
//!   for 60 s and drained; if the zone is still full, the last key is
//!   forgotten whatever its state and up to two more as before; if it is
//!   still full, the request is refused.
//!
//! Not modelled: several `limit_req` of one location (nginx checks every
//! zone before charging any; here each block charges its own), an empty
//! key (a message with no key is limited under one shared key), worker
//! processes with clocks of their own, and `timer_resolution`.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{push_error, FieldError};

/// `limit_req_zone ... rate=` is per second (`r/s`) or per minute (`r/m`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Per {
    #[default]
    Second,
    Minute,
}

/// One `limit_req_zone` and the `limit_req` that uses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NginxLimitReqSpec {
    /// `rate=`: this many requests per `per`.
    pub rate: u32,
    #[serde(default)]
    pub per: Per,
    /// `burst=`: requests beyond the rate it lets wait (0: none).
    #[serde(default)]
    pub burst: u32,
    /// `nodelay`: what the burst lets through goes at once.
    #[serde(default)]
    pub nodelay: bool,
    /// `delay=`: of the burst, this many go at once, the rest wait (0:
    /// none go at once).
    #[serde(default)]
    pub delay: u32,
    /// `limit_req_status`.
    #[serde(default = "default_status")]
    pub status: u16,
    /// `limit_req_dry_run on`.
    #[serde(default)]
    pub dry_run: bool,
    /// The zone's size in bytes (`zone=name:10m`).
    #[serde(default = "default_zone_bytes")]
    pub zone_bytes: u64,
    /// The zone's key as the configuration writes it
    /// (`$binary_remote_addr`); the run keys on each message's key.
    #[serde(default = "default_key")]
    pub key: String,
}

pub(super) fn default_status() -> u16 {
    503
}

pub(super) fn default_zone_bytes() -> u64 {
    10 << 20
}

pub(super) fn default_key() -> String {
    "$binary_remote_addr".into()
}

/// The smallest zone nginx takes: eight pages.
pub const MIN_ZONE_BYTES: u64 = 32 << 10;
/// The largest zone taken here.
pub const MAX_ZONE_BYTES: u64 = 1 << 40;

impl NginxLimitReqSpec {
    /// `rate=Nr/s burst=B`, everything else as nginx leaves it.
    pub fn of(rate: u32, burst: u32) -> NginxLimitReqSpec {
        NginxLimitReqSpec {
            rate,
            per: Per::Second,
            burst,
            nodelay: false,
            delay: 0,
            status: default_status(),
            dry_run: false,
            zone_bytes: default_zone_bytes(),
            key: default_key(),
        }
    }

    /// `rate=` as the configuration writes it: `10r/s`.
    pub fn rate_text(&self) -> String {
        let per = match self.per {
            Per::Second => "r/s",
            Per::Minute => "r/m",
        };
        format!("{}{per}", self.rate)
    }

    /// What `limit_req` writes after its zone: ` burst=4 nodelay`.
    pub fn limit_args(&self) -> String {
        let mut text = String::new();
        if self.burst > 0 {
            text.push_str(&format!(" burst={}", self.burst));
        }
        if self.nodelay {
            text.push_str(" nodelay");
        } else if self.delay > 0 {
            text.push_str(&format!(" delay={}", self.delay));
        }
        text
    }

    /// As the configuration writes it: `nginx 10r/s burst=4 nodelay`.
    pub fn summary(&self) -> String {
        let dry = if self.dry_run { " dry run" } else { "" };
        format!("nginx {}{}{dry}", self.rate_text(), self.limit_args())
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.rate == 0 || self.rate > 1_000_000 {
            push_error(errors, format!("{path}.rate"), "must be from 1 to 1,000,000 requests");
        }
        if self.burst > 1_000_000 {
            push_error(errors, format!("{path}.burst"), "must be at most 1,000,000");
        }
        if self.delay > 1_000_000 {
            push_error(errors, format!("{path}.delay"), "must be at most 1,000,000");
        }
        if self.nodelay && self.delay > 0 {
            push_error(errors, format!("{path}.delay"), "cannot go with nodelay: nginx takes one of nodelay and delay=");
        }
        if !(400..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 400 to 599, as limit_req_status takes");
        }
        check_zone(path, self.zone_bytes, &self.key, errors);
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("rate")] => Some(NumberField::Whole32(&mut self.rate)),
            [Step::Key("burst")] => Some(NumberField::Whole32(&mut self.burst)),
            [Step::Key("delay")] => Some(NumberField::Whole32(&mut self.delay)),
            [Step::Key("zone_bytes")] => Some(NumberField::Whole64(&mut self.zone_bytes)),
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            _ => None,
        }
    }

    /// The rate as nginx stores it: thousandths of a request per second.
    pub fn milli_rate(&self) -> i64 {
        match self.per {
            Per::Second => i64::from(self.rate) * 1000,
            Per::Minute => i64::from(self.rate) * 1000 / 60,
        }
    }

    /// How many keys the zone holds: nginx's slab allocator gives a key of
    /// `$binary_remote_addr` (an IPv4 address, 84 bytes with its tree node)
    /// a 128-byte slot, 32 to a 4 KiB page, each page costing 4,120 bytes
    /// with its descriptor after about 700 bytes of the zone's own; one
    /// page goes to the zone's other slots. About 8,100 keys a MiB, as
    /// nginx's documentation says. Longer keys take more room: this is
    /// the figure for short ones.
    pub fn capacity(&self) -> usize {
        zone_capacity(self.zone_bytes, 32)
    }
}

/// How many keys a zone of `bytes` holds with `per_page` of its slots to a
/// 4 KiB page: each page costs 4,120 bytes with its descriptor, after
/// about 700 bytes of the zone's own, and one page goes to the zone's
/// other slots.
pub(super) fn zone_capacity(bytes: u64, per_page: u64) -> usize {
    let pages = bytes.saturating_sub(704) / 4120;
    usize::try_from((pages.saturating_sub(1) * per_page).saturating_sub(1).max(1)).unwrap_or(usize::MAX)
}

/// A zone's size and key, as nginx takes them: `zone_bytes` and `key` of
/// the block at `path`.
pub(super) fn check_zone(path: &str, zone_bytes: u64, key: &str, errors: &mut Vec<FieldError>) {
    if !(MIN_ZONE_BYTES..=MAX_ZONE_BYTES).contains(&zone_bytes) {
        push_error(errors, format!("{path}.zone_bytes"), "must be from 32 KiB (nginx's smallest zone) to 1 TiB");
    }
    if key.is_empty() || key.len() > 256 || key.chars().any(|c| c.is_control() || c.is_whitespace() || "\"';{}#".contains(c)) {
        push_error(errors, format!("{path}.key"), "must be one word of 1 to 256 characters, as nginx writes a key ($binary_remote_addr): no space, quote, ;, {, } or #");
    }
}

/// What `limit_req` decided for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Through now.
    Pass,
    /// Through after this many milliseconds.
    Delay(u64),
    /// Refused (over the burst, or the zone full).
    Reject,
}

/// A key's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    excess: i64,
    last: u64,
    /// Its place in the use order: higher is more recent.
    used: u64,
}

/// A `limit_req_zone`'s keys.
#[derive(Clone, Default)]
pub struct Zone {
    entries: HashMap<u32, Entry>,
    /// Keys by last use, least recent first.
    order: BTreeMap<u64, u32>,
    uses: u64,
}


/// `now - last` as the module clamps it.
fn elapsed(now: u64, last: u64) -> i64 {
    let ms = now.wrapping_sub(last) as i64;
    if ms < -60_000 {
        1
    } else {
        ms.max(0)
    }
}

/// `rate * ms / 1000`, what a key drained over `ms`, in thousandths.
fn drained(rate: i64, ms: i64) -> i64 {
    (i128::from(rate) * i128::from(ms) / 1000).min(i128::from(i64::MAX)) as i64
}

impl Zone {
    /// How many keys it keeps now.
    pub fn keys(&self) -> usize {
        self.entries.len()
    }

    /// Forgets the least recently used keys beyond `capacity` (a zone
    /// made smaller while running).
    pub fn shrink(&mut self, capacity: usize) {
        while self.entries.len() > capacity {
            let Some((used, key)) = self.order.pop_first() else { return };
            let _ = used;
            self.entries.remove(&key);
        }
    }

    fn touch(&mut self, key: u32) {
        if let Some(e) = self.entries.get_mut(&key) {
            self.order.remove(&e.used);
            self.uses += 1;
            e.used = self.uses;
            self.order.insert(e.used, key);
        }
    }

    /// The module's `ngx_http_limit_req_expire`: `forced` forgets the
    /// least recently used key whatever its state; then at most two more
    /// (two in all when not forced), each only if idle 60 s and drained.
    fn expire(&mut self, now: u64, rate: i64, forced: bool) {
        let mut n = if forced { 0 } else { 1 };
        while n < 3 {
            let Some((&used, &key)) = self.order.iter().next() else { return };
            let e = self.entries[&key];
            let conditional = n != 0;
            n += 1;
            if conditional {
                let ms = (now.wrapping_sub(e.last) as i64).abs();
                if ms < 60_000 || e.excess - drained(rate, ms) > 0 {
                    return;
                }
            }
            self.order.remove(&used);
            self.entries.remove(&key);
        }
    }

    /// The excess a request of `key` at millisecond `now` would bring, if
    /// the key is known.
    #[cfg(test)]
    pub fn excess(&self, spec: &NginxLimitReqSpec, key: u32, now: u64) -> Option<i64> {
        let e = self.entries.get(&key)?;
        Some((e.excess - drained(spec.milli_rate(), elapsed(now, e.last)) + 1000).max(0))
    }

    /// Decides a request of `key` at millisecond `now`, charging the key
    /// unless it is refused.
    pub fn decide(&mut self, spec: &NginxLimitReqSpec, key: u32, now: u64) -> Verdict {
        let rate = spec.milli_rate();
        let excess = match self.entries.get(&key).copied() {
            Some(e) => {
                self.touch(key);
                let ms = elapsed(now, e.last);
                let excess = (e.excess - drained(rate, ms) + 1000).max(0);
                if excess > i64::from(spec.burst) * 1000 {
                    return Verdict::Reject;
                }
                let entry = self.entries.get_mut(&key).expect("touched above");
                entry.excess = excess;
                if ms != 0 {
                    entry.last = now;
                }
                excess
            }
            None => {
                self.expire(now, rate, false);
                if self.entries.len() >= spec.capacity() {
                    self.expire(now, rate, true);
                    if self.entries.len() >= spec.capacity() {
                        return Verdict::Reject;
                    }
                }
                self.uses += 1;
                self.entries.insert(key, Entry { excess: 0, last: now, used: self.uses });
                self.order.insert(self.uses, key);
                0
            }
        };
        if spec.nodelay || excess <= i64::from(spec.delay) * 1000 {
            return Verdict::Pass;
        }
        let ms = (excess - i64::from(spec.delay) * 1000) * 1000 / rate;
        // A delay that rounds to no millisecond is no delay.
        if ms == 0 {
            Verdict::Pass
        } else {
            Verdict::Delay(ms as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rate: u32, per: Per, burst: u32, nodelay: bool, delay: u32) -> NginxLimitReqSpec {
        NginxLimitReqSpec { per, nodelay, delay, ..NginxLimitReqSpec::of(rate, burst) }
    }

    fn refused(spec: &NginxLimitReqSpec) -> Vec<String> {
        super::super::refused_fields(|path, errors| spec.validate(path, errors))
    }

    #[test]
    fn its_numbers_are_taken_to_their_edges_and_refused_past_them() {
        // Written with only its rate, it is nginx's defaults.
        let read: NginxLimitReqSpec = serde_json::from_value(serde_json::json!({"rate": 10})).unwrap();
        assert_eq!((read.key.as_str(), read.status, read.zone_bytes, read.burst), ("$binary_remote_addr", 503, 10 << 20, 0));
        assert!(refused(&read).is_empty());
        let edges = NginxLimitReqSpec { delay: 1_000_000, status: 599, ..NginxLimitReqSpec::of(1_000_000, 1_000_000) };
        assert!(refused(&edges).is_empty());
        assert!(refused(&NginxLimitReqSpec { status: 400, ..NginxLimitReqSpec::of(1, 0) }).is_empty());
        for (spec, field) in [
            (NginxLimitReqSpec::of(0, 0), "n.rate"),
            (NginxLimitReqSpec::of(1_000_001, 0), "n.rate"),
            (NginxLimitReqSpec::of(10, 1_000_001), "n.burst"),
            (NginxLimitReqSpec { delay: 1_000_001, ..edges.clone() }, "n.delay"),
            (NginxLimitReqSpec { nodelay: true, delay: 1, ..edges.clone() }, "n.delay"),
            (NginxLimitReqSpec { status: 399, ..edges.clone() }, "n.status"),
            (NginxLimitReqSpec { status: 600, ..edges.clone() }, "n.status"),
            (NginxLimitReqSpec { zone_bytes: 1 << 10, ..edges.clone() }, "n.zone_bytes"),
            (NginxLimitReqSpec { key: "$remote addr".into(), ..edges.clone() }, "n.key"),
        ] {
            assert_eq!(refused(&spec), [field], "{spec:?}");
        }
        // nodelay with no delay is nginx's own pair.
        assert!(refused(&NginxLimitReqSpec { nodelay: true, delay: 0, ..edges.clone() }).is_empty());
        // The zone from 32 KiB to 1 TiB; a key one word of 1 to 256
        // characters, none that would end or break the directive.
        for (zone_bytes, taken) in [(MIN_ZONE_BYTES, true), (MAX_ZONE_BYTES, true), (MIN_ZONE_BYTES - 1, false), (MAX_ZONE_BYTES + 1, false)] {
            assert_eq!(refused(&NginxLimitReqSpec { zone_bytes, ..edges.clone() }).is_empty(), taken, "zone of {zone_bytes} bytes");
        }
        let long = "k".repeat(256);
        let longer = "k".repeat(257);
        for (key, taken) in [("$http_x_api_key", true), (long.as_str(), true), ("", false), (longer.as_str(), false), ("$a;b", false), ("$a\u{7}", false), ("$a\"", false), ("{$a}", false), ("$a#b", false)] {
            assert_eq!(refused(&NginxLimitReqSpec { key: key.into(), ..edges.clone() }) == ["n.key"], !taken, "key {key:?}");
        }
    }

    #[test]
    fn a_clock_gone_back_more_than_a_minute_counts_a_millisecond_and_less_counts_none() {
        assert_eq!(elapsed(1_100, 1_000), 100);
        assert_eq!(elapsed(1_000, 1_000), 0);
        assert_eq!(elapsed(1_000, 61_000), 0, "back exactly a minute: none");
        assert_eq!(elapsed(1_000, 61_001), 1, "back more than a minute: one");
    }

    #[test]
    fn a_full_zone_forgets_at_most_two_keys_each_idle_a_minute_and_drained_before_forcing() {
        // 1 r/s with a burst of 60: key 1's 61 requests at once leave it
        // 60 requests of excess, drained in exactly a minute.
        let s = NginxLimitReqSpec { nodelay: true, zone_bytes: MIN_ZONE_BYTES, ..NginxLimitReqSpec::of(1, 60) };
        let capacity = s.capacity() as u32;
        let mut zone = Zone::default();
        assert!(burst_at(&mut zone, &s, 0, 61).iter().all(|v| *v == Verdict::Pass));
        for key in 2..=capacity {
            zone.decide(&s, key, 0);
        }
        assert_eq!(zone.keys(), capacity as usize);
        // A minute on, a new key: keys 1 (idle 60 s, its excess just
        // drained) and 2 are forgotten, no third, and nothing by force.
        assert_eq!(zone.decide(&s, capacity + 1, 60_000), Verdict::Pass);
        assert_eq!(zone.keys(), capacity as usize - 1);
        assert!(zone.excess(&s, 1, 60_000).is_none() && zone.excess(&s, 2, 60_000).is_none());
        assert!(zone.excess(&s, 3, 60_000).is_some(), "two at most");
        // A millisecond short of the minute, nobody idle enough: one key
        // is forgotten by force, the next only if idle a minute.
        let mut zone = Zone::default();
        for key in 0..capacity {
            zone.decide(&s, key, 0);
        }
        assert_eq!(zone.decide(&s, capacity, 59_999), Verdict::Pass);
        assert_eq!(zone.keys(), capacity as usize);
        assert!(zone.excess(&s, 0, 59_999).is_none() && zone.excess(&s, 1, 59_999).is_some());
    }

    #[test]
    fn a_zone_made_smaller_forgets_the_keys_used_longest_ago_a_refusal_counting_as_a_use() {
        let s = spec(1, Per::Second, 0, false, 0);
        let mut zone = Zone::default();
        for key in 1..=4 {
            assert_eq!(zone.decide(&s, key, 0), Verdict::Pass);
        }
        // Key 1 again, refused: it is now the most recently used.
        assert_eq!(zone.decide(&s, 1, 10), Verdict::Reject);
        zone.shrink(2);
        assert_eq!(zone.keys(), 2);
        assert!(zone.excess(&s, 1, 10).is_some() && zone.excess(&s, 4, 10).is_some(), "1 and 4 kept");
        assert!(zone.excess(&s, 2, 10).is_none() && zone.excess(&s, 3, 10).is_none(), "2 and 3 forgotten");
        zone.shrink(5);
        assert_eq!(zone.keys(), 2, "made larger, it forgets nothing");
        zone.shrink(1);
        assert!(zone.excess(&s, 1, 10).is_some() && zone.keys() == 1, "the key refused last is the one kept");
    }

    /// `n` requests of one key at millisecond `at`.
    fn burst_at(zone: &mut Zone, s: &NginxLimitReqSpec, at: u64, n: usize) -> Vec<Verdict> {
        (0..n).map(|_| zone.decide(s, 1, at)).collect()
    }

    #[test]
    fn burst_b_lets_b_plus_one_through_back_to_back_then_one_per_interval() {
        // rate=10r/s burst=4 nodelay: what Debian's nginx answered to ten
        // requests at once, then to twenty a second.
        let s = spec(10, Per::Second, 4, true, 0);
        let mut zone = Zone::default();
        let first = burst_at(&mut zone, &s, 1_000, 10);
        assert_eq!(first.iter().filter(|v| **v == Verdict::Pass).count(), 5);
        assert!(first[5..].iter().all(|v| *v == Verdict::Reject));
        // Every 50 ms from 1 s on: one in two gets through (100 ms each).
        let later: Vec<Verdict> = (1..=20).map(|k| zone.decide(&s, 1, 1_000 + 50 * k)).collect();
        let passed: Vec<usize> = (0..20).filter(|&k| later[k] == Verdict::Pass).collect();
        assert_eq!(passed.len(), 10, "{later:?}");
        assert!(passed.windows(2).all(|w| w[1] - w[0] == 2), "{passed:?}");
    }

    #[test]
    fn without_nodelay_the_burst_waits_a_hundredth_of_a_second_per_thousandth() {
        // rate=10r/s burst=4: the k-th request of a burst waits (k-1) * 100 ms.
        let s = spec(10, Per::Second, 4, false, 0);
        let mut zone = Zone::default();
        let v = burst_at(&mut zone, &s, 0, 6);
        assert_eq!(v, vec![Verdict::Pass, Verdict::Delay(100), Verdict::Delay(200), Verdict::Delay(300), Verdict::Delay(400), Verdict::Reject]);
        // delay=2: the first three go at once, the rest wait beyond them.
        let s = spec(10, Per::Second, 4, false, 2);
        let mut zone = Zone::default();
        let v = burst_at(&mut zone, &s, 0, 6);
        assert_eq!(v, vec![Verdict::Pass, Verdict::Pass, Verdict::Pass, Verdict::Delay(100), Verdict::Delay(200), Verdict::Reject]);
    }

    #[test]
    fn a_refused_request_changes_nothing_and_the_clock_is_milliseconds() {
        let s = spec(10, Per::Second, 0, true, 0);
        let mut zone = Zone::default();
        assert_eq!(zone.decide(&s, 1, 0), Verdict::Pass);
        // 99 ms later: excess 1000 - 990 + 1000 > 0 = burst: refused, and
        // the key still drains from 0.
        assert_eq!(zone.decide(&s, 1, 99), Verdict::Reject);
        assert_eq!(zone.excess(&s, 1, 99), Some(10));
        assert_eq!(zone.decide(&s, 1, 100), Verdict::Pass);
        // Another key is another state.
        assert_eq!(zone.decide(&s, 2, 100), Verdict::Pass);
        assert_eq!(zone.keys(), 2);
    }

    #[test]
    fn its_summary_is_the_configuration_in_a_few_words() {
        assert_eq!(spec(10, Per::Second, 4, true, 0).summary(), "nginx 10r/s burst=4 nodelay");
        assert_eq!(spec(30, Per::Minute, 12, false, 8).summary(), "nginx 30r/m burst=12 delay=8");
        assert_eq!(spec(5, Per::Second, 0, false, 0).summary(), "nginx 5r/s");
    }

    #[test]
    fn requests_per_minute_are_stored_rounded_down() {
        // 1r/m is 16 thousandths a second: one request per 62.5 s.
        let s = spec(1, Per::Minute, 0, true, 0);
        assert_eq!(s.milli_rate(), 16);
        let mut zone = Zone::default();
        assert_eq!(zone.decide(&s, 1, 0), Verdict::Pass);
        assert_eq!(zone.decide(&s, 1, 62_499), Verdict::Reject);
        assert_eq!(zone.decide(&s, 1, 62_500), Verdict::Pass);
        assert_eq!(spec(30, Per::Minute, 0, true, 0).milli_rate(), 500);
    }

    #[test]
    fn a_full_zone_forgets_the_least_recently_used_key() {
        let mut s = spec(10, Per::Second, 0, true, 0);
        s.zone_bytes = MIN_ZONE_BYTES;
        let cap = s.capacity();
        assert_eq!(cap, 191);
        let mut zone = Zone::default();
        for key in 1..=cap as u32 {
            assert_eq!(zone.decide(&s, key, 0), Verdict::Pass);
        }
        // Key 1 used again: key 2 is now the least recently used.
        assert_eq!(zone.decide(&s, 1, 10), Verdict::Reject);
        // A new key at 10 ms: no key is idle for 60 s, so key 2 is forced
        // out, and its state with it.
        assert_eq!(zone.decide(&s, 9_999, 10), Verdict::Pass);
        assert_eq!(zone.keys(), cap);
        assert_eq!(zone.excess(&s, 2, 10), None);
        assert_eq!(zone.decide(&s, 2, 20), Verdict::Pass, "a forgotten key starts afresh");
        // After a minute idle and drained, two old keys go for one new.
        assert_eq!(zone.decide(&s, 10_000, 70_000), Verdict::Pass);
        assert_eq!(zone.keys(), cap - 1);
        assert_eq!(s.capacity(), 191);
        assert_eq!(spec(1, Per::Second, 0, true, 0).capacity(), 81_375, "10m: about 8,100 keys a MiB");
    }
}
