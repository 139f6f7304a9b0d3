//! The common case in fewer steps: each shortcut does exactly what the
//! general path would (the same draws, events, counters and levels in the
//! same order), and a fuzz test compares the two.

use super::*;

impl Simulation {
    /// The common case of `service_done`, taken when it is exactly what the
    /// general path would do: a sink consumer whose only input is a queue
    /// sending to it, with a message waiting, no offer under way and no
    /// wake pending. The worker releases its message and the queue's send
    /// loop gives it the next, as through `forward_served`, the wake and
    /// `pump_queue`: the same draws, events, counters and levels in the
    /// same order. What differs is where the processor meets the draw:
    /// first, before the bookkeeping, with the new event scheduled last.
    /// The event's time decides the event heap's order, a branch the
    /// processor guesses wrong about half the time; when the logarithm
    /// behind that time is long done by the time the heap compares, a wrong
    /// guess is found out at once. In M/M/1/K this took about 3% of the
    /// cycles off (`docs/performance.md`). Returns whether it took the case.
    #[inline]
    pub(super) fn serve_next_first(&mut self, c: usize, slot: u32) -> bool {
        if self.flows.is_some() || self.offer_depth != 0 || !self.wakes.is_empty() || !self.outputs[c].is_empty() {
            return false;
        }
        let [q] = self.inputs[c][..] else { return false };
        if self.outputs[q].first() != Some(&c) {
            return false;
        }
        let Some((Node::Queue(queue), Node::Consumer(consumer))) = pair_mut(&mut self.nodes, q, c) else { return false };
        if !consumer.ends_plainly(slot) || !queue.head_is_plain() {
            return false;
        }
        let Some((queue_stats, consumer_stats)) = pair_mut(&mut self.stats, q, c) else { return false };
        let Some(entry) = queue.take_head() else { return false };
        // From here on nothing can fail: the general path is no longer an
        // option once the draw is made.
        let core = &mut self.core;
        let attempt = consumer.draw_attempt(&mut core.rngs[c], &entry.msg);
        core.whys.taken(q, core.now);
        queue.on_wake();
        consumer.serve_next(slot, entry.msg, attempt, &mut Context { core, node: c, stats: consumer_stats });
        queue.sent(entry, &mut Context { core, node: q, stats: queue_stats });
        consumer.schedule_end(slot, attempt, &mut Context { core, node: c, stats: consumer_stats });
        self.pump_queue_from(q, 1);
        true
    }

    /// The send loop of queue `q` into consumer `to`, while neither gates
    /// nor flow counting ask for `accept`'s bookkeeping: the same offers,
    /// counters and states as the general loop, with both blocks looked up
    /// once instead of once per message. Returns whether the loop ended
    /// refused, or `None` where the general loop must go on (`to` is not a
    /// consumer, or the head is counted by a gate); `sent` counts what left.
    #[inline]
    pub(super) fn send_to_plain_consumer(&mut self, q: usize, to: usize, sent: &mut u64) -> Option<bool> {
        let (Node::Queue(queue), Node::Consumer(consumer)) = pair_mut(&mut self.nodes, q, to)? else { return None };
        let (queue_stats, consumer_stats) = pair_mut(&mut self.stats, q, to)?;
        let core = &mut self.core;
        loop {
            if !consumer.has_room() {
                // A busy consumer refuses any message: no offer is built.
                let refused = !queue.is_empty();
                if refused {
                    core.whys.refused(q, to, core.now, false);
                }
                return Some(refused);
            }
            let Some(entry) = queue.take_head() else { return Some(false) };
            if !entry.msg.gates.is_empty() {
                queue.put_back(entry);
                return None;
            }
            if !consumer.offer(entry.msg, &mut Context { core, node: to, stats: consumer_stats }) {
                queue.put_back(entry);
                core.whys.refused(q, to, core.now, false);
                return Some(true);
            }
            core.whys.taken(q, core.now);
            queue.sent(entry, &mut Context { core, node: q, stats: queue_stats });
            *sent += 1;
        }
    }
}
