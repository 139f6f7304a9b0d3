//! nginx's `limit_conn`, transcribed from nginx 1.22.1
//! (`src/http/modules/ngx_http_limit_conn_module.c`, tag `release-1.22.1`;
//! the decision is unchanged since 1.17.6): one `limit_conn_zone` and the
//! `limit_conn` that uses it.
//!
//! Guarantees, as the module decides:
//! - State per key: `conn`, the requests of the key let through and not
//!   yet finished. A key has an entry only while `conn` is above 0.
//! - A request is refused (`limit_conn_status`, 503 unless set) when its
//!   key's `conn` is already `conn` or more; otherwise its key's `conn`
//!   grows by one, and shrinks by one when the request is finished (a
//!   consumer completed it, or it was dropped further on). Nothing waits:
//!   `limit_conn` has no queue.
//! - A new key in a full zone (`capacity` keys) is refused: nothing is
//!   forgotten to make room, unlike `limit_req`.
//! - `dry_run`: decided the same, but a request over the limit passes,
//!   recorded `rejected_dry_run`, and is not counted.
//!
//! Not modelled: several `limit_conn` of one location (nginx counts a
//! request in each zone, undoing the counts when one refuses), a request
//! counted while nginx still sends its response or closes its connection
//! (here it is finished when the consumer completes it), and `limit_req`
//! running first when both are in one location (place the `limit_req`
//! block before this one, as `sluice import nginx` does).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::nginx::{check_zone, default_key, default_status, default_zone_bytes, zone_capacity};
use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::plumbing::validate::{push_error, FieldError};

/// One `limit_conn_zone` and the `limit_conn` that uses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NginxLimitConnSpec {
    /// `limit_conn zone N`: requests of one key at once, at most.
    pub conn: u32,
    /// `limit_conn_status`.
    #[serde(default = "default_status")]
    pub status: u16,
    /// `limit_conn_dry_run on`.
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

impl NginxLimitConnSpec {
    /// `limit_conn zone N`, everything else as nginx leaves it.
    pub fn of(conn: u32) -> NginxLimitConnSpec {
        NginxLimitConnSpec { conn, status: default_status(), dry_run: false, zone_bytes: default_zone_bytes(), key: default_key() }
    }

    /// As the configuration writes it: `nginx limit_conn 10`.
    pub fn summary(&self) -> String {
        let dry = if self.dry_run { " dry run" } else { "" };
        format!("nginx limit_conn {}{dry}", self.conn)
    }

    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if !(1..=65535).contains(&self.conn) {
            push_error(errors, format!("{path}.conn"), "must be from 1 to 65535, as limit_conn takes");
        }
        if !(400..=599).contains(&self.status) {
            push_error(errors, format!("{path}.status"), "must be from 400 to 599, as limit_conn_status takes");
        }
        check_zone(path, self.zone_bytes, &self.key, errors);
    }

    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("conn")] => Some(NumberField::Whole32(&mut self.conn)),
            [Step::Key("zone_bytes")] => Some(NumberField::Whole64(&mut self.zone_bytes)),
            [Step::Key("status")] => Some(NumberField::Whole16(&mut self.status)),
            _ => None,
        }
    }

    /// How many keys the zone holds: a key of `$binary_remote_addr` takes
    /// 40 bytes with its tree node, a 64-byte slot, 64 to a page: about
    /// 16,000 keys a MiB, as nginx's documentation says.
    pub fn capacity(&self) -> usize {
        zone_capacity(self.zone_bytes, 64)
    }
}

/// What `limit_conn` decided for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Through, and counted.
    Pass,
    /// Over the limit (or the zone full) in a dry run: through, not
    /// counted.
    DryRun,
    /// Refused.
    Reject,
}

/// A `limit_conn_zone`'s keys and their requests in progress.
#[derive(Clone, Default)]
pub struct Zone {
    conn: HashMap<u32, u32>,
    /// Requests counted, over every key.
    total: u64,
}

impl Zone {
    /// Keys with a request in progress.
    pub fn keys(&self) -> usize {
        self.conn.len()
    }

    /// Requests in progress, over every key.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Requests of `key` in progress.
    #[cfg(test)]
    pub fn conn(&self, key: u32) -> u32 {
        self.conn.get(&key).copied().unwrap_or(0)
    }

    /// Decides a request of `key`, counting it if it passes.
    pub fn decide(&mut self, spec: &NginxLimitConnSpec, key: u32) -> Verdict {
        let over = match self.conn.get(&key) {
            Some(&n) => n >= spec.conn,
            None => self.conn.len() >= spec.capacity(),
        };
        match (over, spec.dry_run) {
            (true, true) => Verdict::DryRun,
            (true, false) => Verdict::Reject,
            (false, _) => {
                *self.conn.entry(key).or_insert(0) += 1;
                self.total += 1;
                Verdict::Pass
            }
        }
    }

    /// A request of `key` that was counted finished.
    pub fn finished(&mut self, key: u32) {
        if let Some(n) = self.conn.get_mut(&key) {
            *n -= 1;
            self.total -= 1;
            if *n == 0 {
                self.conn.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_has_at_most_conn_requests_in_progress_and_others_keys_are_apart() {
        let spec = NginxLimitConnSpec::of(2);
        let mut z = Zone::default();
        assert_eq!(z.decide(&spec, 7), Verdict::Pass);
        assert_eq!(z.decide(&spec, 7), Verdict::Pass);
        assert_eq!(z.decide(&spec, 7), Verdict::Reject, "the third at once is refused");
        assert_eq!(z.decide(&spec, 8), Verdict::Pass, "another key has its own count");
        z.finished(7);
        assert_eq!(z.decide(&spec, 7), Verdict::Pass, "a finished request frees its place");
        z.finished(7);
        z.finished(7);
        z.finished(8);
        assert_eq!(z.keys(), 0, "a key with nothing in progress has no entry");
        z.finished(9);
        assert_eq!(z.keys(), 0, "finishing an unknown key changes nothing");
    }

    #[test]
    fn a_dry_run_lets_through_what_it_would_refuse_without_counting_it() {
        let mut spec = NginxLimitConnSpec::of(1);
        spec.dry_run = true;
        let mut z = Zone::default();
        assert_eq!(z.decide(&spec, 1), Verdict::Pass);
        assert_eq!(z.decide(&spec, 1), Verdict::DryRun);
        assert_eq!(z.conn(1), 1, "the dry run's pass is not counted");
    }

    /// nginx's documentation: "One megabyte zone can keep about 32
    /// thousand 32-byte states or about 16 thousand 64-byte states"; a new
    /// key in a full zone is refused, none forgotten.
    #[test]
    fn a_zone_of_a_mebibyte_holds_about_16_000_keys_and_refuses_a_new_one_when_full() {
        let mut spec = NginxLimitConnSpec::of(1);
        spec.zone_bytes = 1 << 20;
        let cap = spec.capacity();
        assert!((15_500..16_400).contains(&cap), "{cap}");
        spec.zone_bytes = 32 << 10;
        let cap = spec.capacity();
        let mut z = Zone::default();
        for k in 0..cap as u32 {
            assert_eq!(z.decide(&spec, k), Verdict::Pass);
        }
        assert_eq!(z.decide(&spec, u32::MAX), Verdict::Reject, "full: a new key is refused");
        z.finished(0);
        assert_eq!(z.decide(&spec, u32::MAX), Verdict::Pass, "a key gone makes room");
    }
}
