//! Credit: paired flow control, after Exon's credit-based scheme.
//!
//! Guarantees:
//! - The sender keeps state per peer (`per_destination`: one per message
//!   destination; `shared`: one for all). A message passes only while its
//!   peer holds at least one credit, and spends one.
//! - The receiver grants credit as it processes: every `grant_batch`
//!   messages processed (or dropped, which returns their credit) send a
//!   grant of that many credits, which arrives `grant_latency_s` later. A
//!   batch larger than `initial_credit` is refused: a peer never has more
//!   than its credit in flight, so the batch would never fill.
//! - First contact: with `implicit_single_credit`, a peer without state is
//!   assumed to hold one credit; the first message creates the state with 0
//!   credits, and processing it brings a grant of `initial_credit`. Without
//!   it, first contact sends a CONNECT and waits for the CONNACK carrying
//!   `initial_credit`: a round trip, the CONNECT's way to the receiver and
//!   the CONNACK's way back, each as long as a grant's
//!   (`grant_latency_s`), so the CONNACK comes `2 × grant_latency_s` after
//!   the CONNECT.
//! - With `close_after_idle_s`, a peer with nothing in flight for that long
//!   closes: its state is released, and its next message is a first contact
//!   again.
//! - When credit arrives, the link wakes its senders.

use serde::{Deserialize, Serialize};

use crate::plumbing::field_path::Step;
use crate::plumbing::number_field::NumberField;
use crate::blocks::window::{scope_key, PendingAcks, Scope};
use crate::context::Context;
use crate::message::Message;
use crate::plumbing::validate::{check_range, push_error, FieldError};
use crate::time::SimDuration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreditSpec {
    pub initial_credit: u64,
    #[serde(default)]
    pub implicit_single_credit: bool,
    #[serde(default = "one")]
    pub grant_batch: u64,
    #[serde(default)]
    pub grant_latency_s: f64,
    #[serde(default = "per_destination")]
    pub scope: CreditScope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_after_idle_s: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreditScope {
    Shared,
    PerDestination,
}

fn one() -> u64 {
    1
}
fn per_destination() -> CreditScope {
    CreditScope::PerDestination
}

impl CreditSpec {
    pub(crate) fn validate(&self, path: &str, errors: &mut Vec<FieldError>) {
        if self.initial_credit == 0 || self.initial_credit > 1 << 32 {
            push_error(errors, format!("{path}.initial_credit"), "must be between 1 and 2^32");
        }
        if self.grant_batch == 0 || self.grant_batch > 1 << 32 {
            push_error(errors, format!("{path}.grant_batch"), "must be between 1 and 2^32");
        } else if self.grant_batch > self.initial_credit && self.initial_credit > 0 {
            // A peer never has more than its credit in flight, so it could
            // never be processed up to a batch: no grant would ever come.
            push_error(
                errors,
                format!("{path}.grant_batch"),
                format!(
                    "must not exceed initial_credit ({} > {}): the receiver grants after a whole batch is processed, and a peer never has more than its credit in flight, so no grant would ever come",
                    self.grant_batch, self.initial_credit
                ),
            );
        }
        check_range(errors, format!("{path}.grant_latency_s"), self.grant_latency_s, 0.0, 1e6);
        if let Some(t) = self.close_after_idle_s {
            check_range(errors, format!("{path}.close_after_idle_s"), t, 1e-9, 1e9);
        }
    }

    fn window_scope(&self) -> Scope {
        match self.scope {
            CreditScope::Shared => Scope::Shared,
            CreditScope::PerDestination => Scope::PerDestination,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum PeerState {
    /// Never contacted.
    #[default]
    Unknown,
    /// CONNECT sent, CONNACK not yet back.
    Connecting,
    /// State exists on both sides.
    Connected,
}

#[derive(Clone, Copy, Debug, Default)]
struct Peer {
    state: PeerState,
    credits: u64,
    /// Processed since the last grant.
    processed: u64,
    /// The first message went on the implicit credit and its grant of
    /// `initial_credit` is still to come.
    awaiting_first_grant: bool,
    /// Sent and not yet processed.
    in_flight: u64,
    /// Bumped on every send: a close scheduled before it is stale.
    activity: u64,
}

#[derive(Clone)]
pub struct Credit {
    spec: CreditSpec,
    peers: Vec<Peer>,
    grants: PendingAcks,
    /// Idle peers to close, with the activity count they were idle at.
    closes: PendingAcks,
    closed: u64,
}

impl Credit {
    pub fn new(spec: CreditSpec) -> Self {
        Credit { spec, peers: Vec::new(), grants: PendingAcks::default(), closes: PendingAcks::default(), closed: 0 }
    }

    pub fn spec(&self) -> &CreditSpec {
        &self.spec
    }

    pub fn reconfigure(&mut self, spec: CreditSpec) {
        self.spec = spec;
    }

    fn key(&self, msg: &Message) -> usize {
        scope_key(self.spec.window_scope(), msg)
    }

    fn peer(&mut self, key: usize) -> &mut Peer {
        if self.peers.len() <= key {
            self.peers.resize(key + 1, Peer::default());
        }
        &mut self.peers[key]
    }

    /// Credits held, all peers together.
    pub fn credits(&self) -> u64 {
        self.peers.iter().map(|p| p.credits).sum()
    }

    /// Peers with state.
    pub fn peers(&self) -> usize {
        self.peers.iter().filter(|p| p.state != PeerState::Unknown).count()
    }

    /// Whether `msg` may pass now. A first contact without the implicit
    /// credit starts the handshake.
    pub fn admits(&mut self, msg: &Message, ctx: &mut Context) -> bool {
        let key = self.key(msg);
        let implicit = self.spec.implicit_single_credit;
        // CONNECT there, CONNACK back: a round trip.
        let connect_after = SimDuration::from_secs_f64(2.0 * self.spec.grant_latency_s);
        let initial = self.spec.initial_credit;
        let peer = self.peer(key);
        match peer.state {
            PeerState::Unknown if implicit => true,
            PeerState::Unknown => {
                peer.state = PeerState::Connecting;
                // The CONNACK carries the initial credit.
                self.grants.add(ctx.core.now + connect_after, key, initial, ctx);
                false
            }
            PeerState::Connecting => false,
            PeerState::Connected => peer.credits > 0,
        }
    }

    /// The next block took `msg`: one credit spent.
    pub fn sent(&mut self, msg: &Message, ctx: &mut Context) {
        let key = self.key(msg);
        let peer = self.peer(key);
        if peer.state == PeerState::Unknown {
            // The receiver creates the state with 0 credits.
            peer.state = PeerState::Connected;
            peer.credits = 0;
            peer.awaiting_first_grant = true;
        } else {
            peer.credits = peer.credits.saturating_sub(1);
        }
        peer.in_flight += 1;
        peer.activity += 1;
        ctx.stats.arrived += 1;
        ctx.stats.departed += 1;
        self.record(ctx);
    }

    /// The receiver processed (or lost) `msg`: credit may be granted.
    pub fn processed(&mut self, msg: &Message, ctx: &mut Context) {
        let key = self.key(msg);
        let (batch, initial) = (self.spec.grant_batch, self.spec.initial_credit);
        let latency = SimDuration::from_secs_f64(self.spec.grant_latency_s);
        let close_after = self.spec.close_after_idle_s.map(SimDuration::from_secs_f64);
        let peer = self.peer(key);
        peer.in_flight = peer.in_flight.saturating_sub(1);
        if let (0, Some(after)) = (peer.in_flight, close_after) {
            let activity = peer.activity;
            self.closes.add(ctx.core.now + after, key, activity, ctx);
        }
        let peer = self.peer(key);
        let grant = if peer.awaiting_first_grant {
            peer.awaiting_first_grant = false;
            initial
        } else {
            peer.processed += 1;
            if peer.processed < batch {
                return;
            }
            std::mem::take(&mut peer.processed)
        };
        self.grants.add(ctx.core.now + latency, key, grant, ctx);
    }

    /// Peers closed for being idle.
    pub fn closed(&self) -> u64 {
        self.closed
    }

    /// Grants arrive and idle peers close. Returns whether credit became
    /// available (or a closed peer may make first contact again).
    pub fn on_grant_due(&mut self, ctx: &mut Context) -> bool {
        let mut opened = false;
        for (key, activity) in self.closes.take_due(ctx) {
            let peer = self.peer(key);
            if peer.in_flight == 0 && peer.activity == activity && peer.state == PeerState::Connected {
                *peer = Peer::default();
                self.closed += 1;
                opened = true;
            }
        }
        let due = self.grants.take_due(ctx);
        for &(key, amount) in &due {
            let peer = self.peer(key);
            if peer.state == PeerState::Unknown {
                // A grant for a peer closed meanwhile is void.
                continue;
            }
            peer.state = PeerState::Connected;
            peer.credits += amount;
        }
        if !due.is_empty() || opened {
            self.record(ctx);
        }
        opened || !due.is_empty()
    }

    fn record(&self, ctx: &mut Context) {
        ctx.stats.set_depth(ctx.core.now, self.credits(), 0);
    }
}

impl CreditSpec {
    /// Its number field at `steps` (a slider's, a sweep's).
    pub(crate) fn number_mut(&mut self, steps: &[Step]) -> Option<NumberField<'_>> {
        match steps {
            [Step::Key("initial_credit")] => Some(NumberField::Whole64(&mut self.initial_credit)),
            [Step::Key("grant_batch")] => Some(NumberField::Whole64(&mut self.grant_batch)),
            [Step::Key("grant_latency_s")] => Some(NumberField::Real(&mut self.grant_latency_s)),
            [Step::Key("close_after_idle_s")] => Some(NumberField::MaybeReal(&mut self.close_after_idle_s)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::bench::Bench;

    fn credit(spec: serde_json::Value) -> Credit {
        Credit::new(crate::plumbing::json_read::from_value(&spec).unwrap())
    }

    fn pass(c: &mut Credit, b: &mut Bench, msg: Message) -> bool {
        let admitted = c.admits(&msg, &mut b.ctx());
        if admitted {
            c.sent(&msg, &mut b.ctx());
        }
        admitted
    }

    #[test]
    fn first_contact_waits_a_round_trip_then_spends_exactly_the_initial_credit() {
        let mut b = Bench::new();
        let mut c = credit(json!({"initial_credit": 3, "grant_latency_s": 0.1}));
        let m: Vec<Message> = (0..5).map(|_| b.message(100, 0)).collect();
        assert!(!pass(&mut c, &mut b, m[0]), "CONNECT sent");
        b.at(0.1999);
        assert!(!c.on_grant_due(&mut b.ctx()) && !pass(&mut c, &mut b, m[0]));
        b.at(0.2);
        assert!(c.on_grant_due(&mut b.ctx()), "the CONNACK arrives a round trip later");
        assert_eq!(c.credits(), 3);
        assert!((0..3).all(|k| pass(&mut c, &mut b, m[k])));
        assert!(!pass(&mut c, &mut b, m[3]), "no credit left");
        assert_eq!(c.credits(), 0);
    }

    #[test]
    fn credit_comes_back_in_batches_of_grant_batch_after_the_grant_latency() {
        let mut b = Bench::new();
        let mut c = credit(json!({"initial_credit": 4, "grant_batch": 2, "grant_latency_s": 0.5, "implicit_single_credit": true}));
        let m: Vec<Message> = (0..8).map(|_| b.message(100, 0)).collect();
        // The implicit credit: one message, whose processing brings the initial credit.
        assert!(pass(&mut c, &mut b, m[0]));
        assert!(!pass(&mut c, &mut b, m[1]));
        c.processed(&m[0], &mut b.ctx());
        b.at(0.5);
        c.on_grant_due(&mut b.ctx());
        assert_eq!(c.credits(), 4);
        assert!((1..5).all(|k| pass(&mut c, &mut b, m[k])));
        // One processed: no grant yet; two: a grant of two, 0.5 s later.
        b.at(1.0);
        c.processed(&m[1], &mut b.ctx());
        b.at(2.0);
        assert!(!c.on_grant_due(&mut b.ctx()));
        c.processed(&m[2], &mut b.ctx());
        assert!(!c.on_grant_due(&mut b.ctx()));
        b.at(2.5);
        assert!(c.on_grant_due(&mut b.ctx()));
        assert_eq!(c.credits(), 2, "exactly grant_batch");
    }

    #[test]
    fn peers_per_destination_hold_credit_of_their_own() {
        let mut b = Bench::new();
        let mut c = credit(json!({"initial_credit": 1, "implicit_single_credit": true}));
        let to = |b: &mut Bench, destination: u16| Message { destination, ..b.message(100, 0) };
        let (a1, a2, b1) = (to(&mut b, 5), to(&mut b, 5), to(&mut b, 6));
        assert!(pass(&mut c, &mut b, a1));
        assert!(!pass(&mut c, &mut b, a2));
        assert!(pass(&mut c, &mut b, b1), "another destination's first contact");
        assert_eq!(c.peers(), 2);
    }

    /// A credit and a batch of 1 to 2^32 are taken, 0 and more refused; a
    /// batch larger than the credit is refused (no grant would ever come),
    /// one equal to it taken.
    #[test]
    fn credit_and_batch_are_from_1_to_2_to_the_32_and_the_batch_within_the_credit() {
        let refused = |initial_credit: u64, grant_batch: u64| {
            let spec: CreditSpec = crate::plumbing::json_read::from_value(&json!({"initial_credit": initial_credit, "grant_batch": grant_batch})).unwrap();
            let mut errors = Vec::new();
            spec.validate("nodes[1]", &mut errors);
            errors.iter().map(|e| e.path.clone()).collect::<Vec<_>>()
        };
        let top = 1u64 << 32;
        assert!(refused(1, 1).is_empty() && refused(top, top).is_empty() && refused(top, 1).is_empty());
        assert!(refused(5, 5).is_empty(), "a batch of the whole credit");
        assert_eq!(refused(5, 6), ["nodes[1].grant_batch"]);
        assert_eq!(refused(0, 1), ["nodes[1].initial_credit"]);
        assert_eq!(refused(top + 1, 1), ["nodes[1].initial_credit"]);
        assert_eq!(refused(4, 0), ["nodes[1].grant_batch"]);
        assert_eq!(refused(top, top + 1), ["nodes[1].grant_batch"]);
    }

    /// Changed while running, the credit link grants by its new parameters:
    /// a peer's first contact after the change gets the new initial credit.
    #[test]
    fn a_live_change_grants_the_new_credit() {
        let mut b = Bench::new();
        let mut c = credit(json!({"initial_credit": 3, "grant_latency_s": 0.1}));
        c.reconfigure(crate::plumbing::json_read::from_value(&json!({"initial_credit": 5, "grant_latency_s": 0.1})).unwrap());
        let m: Vec<Message> = (0..6).map(|_| b.message(100, 0)).collect();
        assert!(!pass(&mut c, &mut b, m[0]), "CONNECT sent");
        b.at(0.2);
        assert!(c.on_grant_due(&mut b.ctx()));
        assert_eq!(c.credits(), 5);
        assert!((0..5).all(|k| pass(&mut c, &mut b, m[k])));
        assert!(!pass(&mut c, &mut b, m[5]));
    }
}
