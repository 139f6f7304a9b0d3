//! A queue's request to pause, carried to the producers behind it through
//! the blocks that hold nothing, and its lifting; the links met on the way
//! are not told (the queue stops reading them: `take_here` refuses what
//! they bring while it asks), and are woken when it lifts.

use super::*;

impl Simulation {
    /// Passes a queue's pause request to the producers that feed it.
    #[inline(always)]
    pub(super) fn signal_inputs(&mut self, node: usize, signal: PauseSignal) {
        if let Some(pause) = signal {
            self.pause_inputs(node, pause);
        }
    }

    /// Tells each producer that feeds `node`, directly or through blocks
    /// that hold nothing (a router, a window, a limiter), once; on a lift,
    /// wakes `node`'s inputs if links are among them, so that they offer
    /// what was left unread.
    #[cold]
    pub(super) fn pause_inputs(&mut self, node: usize, pause: bool) {
        let targets = match self.pause_targets[node].take() {
            Some(found) => found,
            None => self.find_pause_targets(node),
        };
        let mut links = false;
        for &input in targets.iter() {
            let input = input as usize;
            match &mut self.nodes[input] {
                Node::Producer(p) => p.on_backpressure(pause, &mut ctx!(self, input)),
                Node::Link(_) => links = true,
                _ => {}
            }
        }
        self.pause_targets[node] = Some(targets);
        if links && !pause {
            // Reading resumes: the links offer what they kept unread.
            self.wake_inputs(node);
        }
    }

    /// The producers a pause asked by `node` reaches: its inputs, and the
    /// inputs of blocks that hold nothing, upstream until a block that
    /// holds messages; and the links met on the way, which the queue stops
    /// reading (TCP's flow control then carries the pause to what is behind
    /// them). Each once, in the order of their indices.
    pub(super) fn find_pause_targets(&self, node: usize) -> Box<[u32]> {
        let mut seen = std::collections::BTreeSet::new();
        let mut producers = Vec::new();
        let mut stack: Vec<usize> = self.inputs[node].clone();
        while let Some(input) = stack.pop() {
            if !seen.insert(input) {
                continue;
            }
            match &self.nodes[input] {
                Node::Producer(_) | Node::Link(_) => producers.push(input as u32),
                n if n.passes_through() => stack.extend_from_slice(&self.inputs[input]),
                _ => {}
            }
        }
        producers.sort_unstable();
        producers.into_boxed_slice()
    }
}
