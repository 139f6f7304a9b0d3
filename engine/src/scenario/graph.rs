//! The checks only the whole graph shows: cycles, edges that lead
//! nowhere, gates and zero-time loops along the paths, and the ties that
//! name other nodes (priorities, hosts, links, supervisors, receipts,
//! requeues, routes).

use super::*;

impl Scenario {
    /// Checks what needs the whole graph: no cycle, and routers whose
    /// settings fit their outputs.
    /// Checks what needs the whole graph. In a draft (`gaps` given), what
    /// the next edit is expected to fill in goes there rather than into
    /// `errors`.
    pub(super) fn validate_graph(
        &self,
        index: &HashMap<&str, usize>,
        errors: &mut Vec<FieldError>,
        mut gaps: Option<&mut Vec<FieldError>>,
        classes_known: bool,
    ) {
        let outputs = self.outputs();
        // Kahn's algorithm: whatever is never freed of incoming edges is on
        // or behind a cycle.
        let mut indegree = vec![0usize; self.nodes.len()];
        for outs in &outputs {
            for &t in outs {
                indegree[t] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..self.nodes.len()).filter(|&i| indegree[i] == 0).collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some(n) = ready.pop() {
            order.push(n);
            for &t in &outputs[n] {
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.push(t);
                }
            }
        }
        // Known only when the edges form no cycle (a cycle is refused
        // anyway).
        let acyclic = order.len() == self.nodes.len();
        let fed_by_queue = if acyclic { self.fed_by_queue(&outputs, &order) } else { vec![true; self.nodes.len()] };
        if acyclic {
            super::paths::check_gates(self, &outputs, &order, errors);
            super::paths::check_zero_time_loops(self, &outputs, errors);
        } else {
            let on_cycle: Vec<String> = (0..self.nodes.len())
                .filter(|&i| indegree[i] > 0)
                .map(|i| format!("\"{}\"", self.nodes[i].id))
                .collect();
            push_error(
                errors,
                "edges",
                format!("the edges form a cycle through {}; messages must flow one way", on_cycle.join(", ")),
            );
        }
        let class_names: BTreeSet<&str> = self.class_names().collect();
        // Said once, however many windows make receipts.
        if self.makes_receipts() {
            for (k, n) in self.nodes.iter().enumerate() {
                if let BlockSpec::Producer(p) = &n.block {
                    if let Some(c) = p.classes.iter().position(|c| c.name == crate::blocks::window::RECEIPT_CLASS) {
                        push_error(errors, format!("nodes[{k}].classes[{c}].name"), "\"receipt\" is the class of a window's receipts; name this class otherwise");
                    }
                }
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let priorities = match &node.block {
                BlockSpec::Queue(q) => &q.message_priorities[..],
                BlockSpec::Dispatcher(d) => &d.message_priorities[..],
                _ => &[],
            };
            for (k, p) in priorities.iter().enumerate() {
                let path = format!("nodes[{i}].message_priorities[{k}]");
                if p.class.is_none() && p.destination.is_none() && p.source.is_none() {
                    push_error(errors, path.clone(), "names no class, destination or source, so it sets nothing");
                }
                if let Some(c) = p.class.as_deref().filter(|c| classes_known && !class_names.contains(c)) {
                    push_error(errors, format!("{path}.class"), format!("no producer has a class {}", quoted(c)));
                }
                if let Some(d) = p.destination.as_deref().filter(|d| !index.contains_key(d)) {
                    push_error(errors, format!("{path}.destination"), format!("no node has the id {}", quoted(d)));
                }
                if let Some(src) = p.source.as_deref() {
                    let is_producer = index.get(src).is_some_and(|&n| matches!(self.nodes[n].block, BlockSpec::Producer(_)));
                    if !is_producer {
                        push_error(errors, format!("{path}.source"), format!("no producer has the id {}", quoted(src)));
                    }
                }
            }
            if let BlockSpec::Dispatcher(d) = &node.block {
                self.check_dispatcher_names(i, d, classes_known.then_some(&class_names), index, errors);
            }
            let consumer_at = |id: &str| index.get(id).copied().filter(|&n| matches!(self.nodes[n].block, BlockSpec::Consumer(_)));
            if let Some(server) = match &node.block {
                BlockSpec::Producer(p) => p.linked_to.as_deref(),
                _ => None,
            } {
                if consumer_at(server).is_none() {
                    push_error(errors, format!("nodes[{i}].linked_to"), format!("no consumer has the id {}", quoted(server)));
                }
            }
            if let Some(sup) = match &node.block {
                BlockSpec::Consumer(c) => c.lifecycle.as_ref().and_then(|l| l.supervisor.as_deref()),
                _ => None,
            } {
                let path = format!("nodes[{i}].lifecycle.supervisor");
                match consumer_at(sup) {
                    None => push_error(errors, path, format!("no consumer has the id {}", quoted(sup))),
                    Some(s) if s == i => push_error(errors, path, "a consumer cannot supervise itself"),
                    Some(_) => {
                        // Up the ownership tree: it must reach a top.
                        let supervisor_of = |n: usize| match &self.nodes[n].block {
                            BlockSpec::Consumer(c) => c.lifecycle.as_ref().and_then(|l| l.supervisor.as_deref()).and_then(consumer_at),
                            _ => None,
                        };
                        let mut at = i;
                        for _ in 0..self.nodes.len() {
                            match supervisor_of(at) {
                                Some(up) if up == i => {
                                    push_error(errors, path, "the supervisors form a cycle back to this consumer");
                                    break;
                                }
                                Some(up) => at = up,
                                None => break,
                            }
                        }
                    }
                }
            }
            if let BlockSpec::Consumer(c) = &node.block {
                if c.on_timeout == crate::blocks::consumer::OnTimeout::Requeue && !fed_by_queue[i] {
                    // A draft may still lack the edge from its queue.
                    push_error(
                        gaps.as_deref_mut().unwrap_or(errors),
                        format!("nodes[{i}].on_timeout"),
                        "requeue sends a timed-out job back to its job queue, but no queue comes before this consumer (through limiters, windows or routers)",
                    );
                }
            }
            if let BlockSpec::Window(w) = &node.block {
                if let Some(r) = &w.receipts {
                    let path = format!("nodes[{i}].receipts.to");
                    match index.get(r.to.as_str()).copied() {
                        None => push_error(errors, path, format!("no node has the id {}", quoted(&r.to))),
                        Some(t) if !matches!(self.nodes[t].block, BlockSpec::Queue(_) | BlockSpec::Dispatcher(_) | BlockSpec::Consumer(_)) => {
                            push_error(errors, path, format!("{} is a {}; receipts wait in a queue, dispatcher or consumer", quoted(&r.to), self.nodes[t].block.kind()))
                        }
                        Some(t) => {
                            // A receipt passing through its own window would
                            // be counted in flight by it.
                            let mut seen = vec![false; self.nodes.len()];
                            let mut stack = vec![t];
                            while let Some(n) = stack.pop() {
                                if n == i {
                                    push_error(errors, path.clone(), "receipts would pass back through this window");
                                    break;
                                }
                                if !std::mem::replace(&mut seen[n], true) {
                                    stack.extend(outputs[n].iter().copied());
                                }
                            }
                        }
                    }
                }
            }
            if let BlockSpec::Dispatcher(d) = &node.block {
                for (k, down) in d.hosts_down.iter().enumerate() {
                    if !index.contains_key(down.host.as_str()) {
                        push_error(errors, format!("nodes[{i}].hosts_down[{k}].host"), format!("no node has the id {}", quoted(&down.host)));
                    }
                }
            }
            let BlockSpec::Router(router) = &node.block else { continue };
            let path = format!("nodes[{i}]");
            match router {
                // Weights and edges are edited one at a time, so in a draft
                // one may run ahead of the other for a while.
                RouterSpec::ByWeight { weights } if weights.len() != outputs[i].len() => push_error(
                    gaps.as_deref_mut().unwrap_or(errors),
                    format!("{path}.weights"),
                    format!("has {} weight(s) for {} outgoing edge(s)", weights.len(), outputs[i].len()),
                ),
                RouterSpec::ByClass { classes, default } => {
                    let is_output = |id: &str| index.get(id).is_some_and(|t| outputs[i].contains(t));
                    for (class, target) in classes {
                        if !is_output(target) {
                            push_error(
                                errors,
                                format!("{path}.classes.{class}"),
                                format!("{} is not a node this router has an edge to", quoted(target)),
                            );
                        }
                    }
                    if let Some(d) = default.as_deref().filter(|d| !is_output(d)) {
                        push_error(errors, format!("{path}.default"), format!("{} is not a node this router has an edge to", quoted(d)));
                    }
                }
                _ => {}
            }
        }
    }

    /// A dispatcher's settings name demand queues and classes that must
    /// exist: `queue_priorities` by its queues' names (a node's id for
    /// queues per sender or destination, not only one connected yet, as a
    /// draft may name a sender before its edge is drawn; a class; or
    /// `shared`, as `queues` says), and netsendq's `windows`, `one_shot`
    /// and `queueable_if_down` by class.
    fn check_dispatcher_names(
        &self,
        i: usize,
        d: &crate::blocks::DispatcherSpec,
        class_names: Option<&BTreeSet<&str>>,
        index: &HashMap<&str, usize>,
        errors: &mut Vec<FieldError>,
    ) {
        use crate::blocks::dispatcher::QueueKey;
        let path = format!("nodes[{i}]");
        for name in d.queue_priorities.keys() {
            let (known, what) = match d.queues {
                QueueKey::PerInput => (index.contains_key(name.as_str()), "a sender's id (queues per_input)"),
                QueueKey::PerDestination => (index.contains_key(name.as_str()), "a destination's id (queues per_destination)"),
                QueueKey::PerClass => (class_names.is_none_or(|c| c.contains(name.as_str())), "a class (queues per_class)"),
                QueueKey::Shared => (name == "shared", "\"shared\" (one shared queue)"),
            };
            if !known {
                push_error(errors, format!("{path}.queue_priorities.{name}"), format!("no demand queue is named {}: a queue's name is {what}", quoted(name)));
            }
        }
        let unknown = |class: &str| class_names.is_some_and(|c| !c.contains(class));
        for class in d.windows.keys() {
            if unknown(class) {
                push_error(errors, format!("{path}.windows.{class}"), format!("no producer has a class {}", quoted(class)));
            }
        }
        for (field, list) in [("one_shot", &d.one_shot), ("queueable_if_down", &d.queueable_if_down)] {
            for (k, class) in list.iter().enumerate() {
                if unknown(class) {
                    push_error(errors, format!("{path}.{field}[{k}]"), format!("no producer has a class {}", quoted(class)));
                }
            }
        }
    }

    /// For each node, whether a queue comes before it through blocks that
    /// hold nothing, worked out once in the order of the edges (`order`
    /// lists every node, each after all that feed it).
    fn fed_by_queue(&self, outputs: &[Vec<usize>], order: &[usize]) -> Vec<bool> {
        let mut fed = vec![false; self.nodes.len()];
        for &from in order {
            let passes = match &self.nodes[from].block {
                BlockSpec::Queue(_) => true,
                b => b.holds_nothing() && fed[from],
            };
            if passes {
                for &to in &outputs[from] {
                    fed[to] = true;
                }
            }
        }
        fed
    }
}
