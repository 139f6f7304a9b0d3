//! One event at a time: the clock moves to the next event and the block it
//! is for handles it; then the notices and wakes it raised are settled.

use super::*;

impl Simulation {
    /// Processes one event. Returns false when nothing is left to happen,
    /// or when the watchdog has stopped the simulation (`stopped`).
    #[inline]
    pub fn step(&mut self) -> bool {
        self.stop.is_none() && self.handle_next()
    }

    /// `step` of a run the watchdog has not stopped.
    pub(super) fn handle_next(&mut self) -> bool {
        let Some(event) = self.core.scheduler.pop() else {
            return false;
        };
        self.events += 1;
        // The watchdog: a mask test per event, the rest cold.
        if self.events & self.watch_mask == 0 && self.watch(event) {
            self.events -= 1;
            return false;
        }
        self.core.now = event.time();
        self.core.event = self.events;
        let i = event.node();
        match event.kind() {
            EventKind::Arrival => {
                if let Node::Producer(p) = &mut self.nodes[i] {
                    let (action, next) = p.on_arrival(event.data, &mut ctx!(self, i));
                    if let ProducerAction::Offer(msg) = action {
                        self.send_from_producer(i, msg);
                    }
                    if let Some(next) = next {
                        self.core.scheduler.push(next);
                    }
                }
            }
            EventKind::Retry => {
                if let Node::Producer(p) = &mut self.nodes[i] {
                    if let ProducerAction::Offer(msg) = p.on_retry(event.data, &mut ctx!(self, i)) {
                        self.send_from_producer(i, msg);
                    }
                }
            }
            EventKind::ServiceDone => {
                self.service_done(i, event.data);
                if self.supervision.is_some() {
                    self.follow_phase(i);
                }
            }
            EventKind::Reconnect => {
                if let Node::Queue(q) = &mut self.nodes[i] {
                    let signal = q.on_reconnect(&mut ctx!(self, i));
                    self.signal_inputs(i, signal);
                }
            }
            EventKind::Expire => {
                if let Node::Queue(q) = &mut self.nodes[i] {
                    let signal = q.on_expiry(&mut ctx!(self, i));
                    self.signal_inputs(i, signal);
                    self.wake_inputs(i);
                }
            }
            EventKind::AckDue => {
                let opened = match &mut self.nodes[i] {
                    Node::Window(w) => {
                        let opened = w.on_ack_due(&mut ctx!(self, i));
                        self.offer_receipts(i);
                        opened
                    }
                    Node::Credit(c) => c.on_grant_due(&mut ctx!(self, i)),
                    Node::ResourcePool(r) => r.on_created(&mut ctx!(self, i)),
                    Node::Link(l) => {
                        // A window update: the send buffer frees room only
                        // once the message it lets go is on the wire.
                        l.on_window_update(&mut ctx!(self, i));
                        false
                    }
                    _ => false,
                };
                if opened {
                    self.wake_inputs(i);
                }
            }
            EventKind::RateOpen => {
                if let Node::RateLimiter(r) = &mut self.nodes[i] {
                    r.on_open(&mut ctx!(self, i));
                    self.wake_inputs(i);
                }
            }
            EventKind::Transmitted => {
                if let Node::Link(l) = &mut self.nodes[i] {
                    if l.on_transmitted(event.data, &mut ctx!(self, i)) {
                        self.wake_inputs(i);
                    }
                }
            }
            EventKind::Propagated => {
                if let Node::Link(l) = &mut self.nodes[i] {
                    if l.current(event.data) {
                        l.on_arrival_timer(self.core.now);
                        if !l.is_blocked() {
                            self.pump_link(i);
                        } else {
                            self.copies_arrive(i);
                            if let Node::Link(l) = &mut self.nodes[i] {
                                l.arm_next_arrival(&mut ctx!(self, i));
                            }
                        }
                    }
                }
            }
            EventKind::LinkState => match &mut self.nodes[i] {
                Node::Link(l) => l.set_up(event.data == 1, &mut ctx!(self, i)),
                Node::Dispatcher { demands: d, .. } => {
                    d.host_state((event.data >> 1) as usize, event.data & 1 == 1, &mut ctx!(self, i));
                    self.dispatch(i);
                    self.wake_inputs(i);
                }
                _ => {}
            },
            EventKind::Release => {
                if let Node::ProductLimiter(_) = &self.nodes[i] {
                    self.pump_limiter(i);
                }
            }
            EventKind::ClientTimer => {
                if let Node::Producer(p) = &mut self.nodes[i] {
                    let given_up = p.on_client_timer(&mut ctx!(self, i));
                    if !given_up.sent.is_empty() {
                        self.tell_breakers(&given_up.sent);
                    }
                    if given_up.cancel {
                        for &copy in &given_up.sent {
                            self.cancel_in_service(copy);
                        }
                    }
                    for msg in given_up.resend {
                        if let Node::Producer(p) = &mut self.nodes[i] {
                            if let ProducerAction::Offer(msg) = p.resend(msg, &mut ctx!(self, i)) {
                                self.send_from_producer(i, msg);
                            }
                        }
                    }
                }
            }
            EventKind::ConsumerPhase => {
                if let Node::Consumer(c) = &mut self.nodes[i] {
                    if c.on_phase(event.data, &mut ctx!(self, i)) {
                        self.wake_inputs(i);
                    }
                }
                self.follow_phase(i);
            }
        }
        self.settle();
        true
    }
}
