//! TCP's flow control across a link (MECHANISMS.md §1): a slow reader makes
//! a write block as surely as a slow network, and "stop reading the client"
//! crosses a link to the client, whose writes then block and whose requests
//! wait in it, counted.

mod support;

use serde_json::{json, Value};
use sluice_engine::{Node, Simulation, State};
use support::*;

fn entered(sim: &Simulation, id: &str, state: State) -> usize {
    let node = idx(sim, id);
    sim.transitions().entries().filter(|t| t.node == node && t.to == state).count()
}

fn link_window(sim: &Simulation, id: &str) -> (u64, u64) {
    match &sim.nodes()[idx(sim, id)] {
        Node::Link(l) => l.window_used(),
        _ => panic!("{id} is a link"),
    }
}

/// stream → sender → socket → client, the socket fast (1 MB/s) and the
/// client reading one message each `read_s` with one worker.
fn slow_reader(read_s: f64, receive_buffer: Value) -> sluice_engine::Scenario {
    graph(
        vec![
            json!({"id": "stream", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 234},
                   "classes": [
                       {"name": "video", "weight": 15, "size": {"dist": "uniform", "min": 400, "max": 2000}, "droppable": true},
                       {"name": "audio", "weight": 5, "size": {"dist": "fixed", "value": 200}}],
                   "backpressure": "ignore"}),
            json!({"id": "sender", "kind": "queue", "soft_limit": {"messages": 50, "bytes": 65536},
                   "hard_limit": {"messages": 100, "bytes": 131072}}),
            json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": 1_000_000, "latency_s": 0.02,
                   "buffer": {"bytes": 16384}, "receive_buffer": receive_buffer}),
            json!({"id": "client", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": read_s}}),
        ],
        &[("stream", "sender"), ("sender", "socket"), ("socket", "client")],
    )
}

#[test]
fn a_slow_reader_makes_a_write_block_on_a_fast_network() {
    // The client reads 100 a second of the 234 sent; the network could
    // carry them all. Its receive window fills, the link stops sending,
    // the send buffer fills, and a write would block: the sender turns
    // Overloaded and thins, as it would on a slow network.
    let mut sim = Simulation::new(slow_reader(0.01, json!({"bytes": 65536})), 7).unwrap();
    run_checked(&mut sim, 60.0);
    assert!(entered(&sim, "sender", State::Overloaded) > 10, "the sender never saw a write block");
    let r = sim.report();
    assert!(r.nodes["sender"].dropped.get("thinned").copied().unwrap_or(0) > 2000, "{:?}", r.nodes["sender"]);
    // What the socket holds is bounded by its two buffers: 16 KiB to send
    // and 64 KiB unread, at least 200 bytes a message.
    let most = max_depth(&sim, "socket");
    assert!(most <= (16384 + 65536) / 200 + 2, "the socket held {most}");
    // The client still reads as fast as it can.
    let read = r.nodes["client"].departed as f64 / 60.0;
    assert!(read > 95.0, "{read}");
    // The window is never exceeded (an empty window takes any one message).
    let (msgs, bytes) = link_window(&sim, "socket");
    assert!(bytes <= 65536 + 2000 && msgs > 0, "{msgs} {bytes}");
}

#[test]
fn without_a_receive_window_a_slow_reader_never_blocks_a_write() {
    // The bound off (0): the link sends whatever the far end does, and the
    // unread messages pile up on the wire while the sender stays Ready.
    let mut sim = Simulation::new(slow_reader(0.01, json!({"bytes": 0})), 7).unwrap();
    run_checked(&mut sim, 60.0);
    assert_eq!(entered(&sim, "sender", State::Overloaded), 0);
    assert!(max_depth(&sim, "socket") > 5000);
}

#[test]
fn a_window_smaller_than_the_path_limits_throughput_to_window_over_round_trip() {
    // A window of 10 messages over a path whose round trip is 0.2 s (0.1 s
    // each way, the window update coming back one latency after the
    // read): at most 10 / 0.2 = 50 messages a second, however fast the
    // network and the reader. The producer offers 200 a second and holds
    // what the send buffer refuses.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 200},
                   "classes": [{"name": "m", "size": {"dist": "fixed", "value": 1000}}]}),
            json!({"id": "link", "kind": "link", "latency_s": 0.1, "buffer": {"messages": 4},
                   "receive_buffer": {"messages": 10}}),
            json!({"id": "c", "kind": "consumer", "workers": 100, "service_time": {"dist": "fixed", "value": 0}}),
        ],
        &[("p", "link"), ("link", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 100.0);
    let rate = sim.report().nodes["c"].departed as f64 / 100.0;
    assert!((rate - 50.0).abs() < 1.0, "{rate} a second, window / round trip is 50");
    // Ten times the window: ten times the rate, up to what is offered.
    let mut doc = serde_json::to_value(sim.scenario()).unwrap();
    doc["nodes"][1]["receive_buffer"] = json!({"messages": 30});
    let mut sim = Simulation::new(sluice_engine::Scenario::from_value(doc).unwrap(), 1).unwrap();
    run_checked(&mut sim, 100.0);
    let rate = sim.report().nodes["c"].departed as f64 / 100.0;
    assert!((rate - 150.0).abs() < 2.0, "{rate} a second, window / round trip is 150");
}

/// The media server's connection both ways: the stream and the replies go
/// down `socket` to the client; the client's requests, ping requests and
/// ping replies come up `uplink` (40 kB/s) and a router sends each class
/// where the server handles it: a request becomes a reply in the sender
/// queue, a ping request a pong there, a ping reply is read by `server`.
fn connection(socket_bytes_per_s: f64) -> sluice_engine::Scenario {
    graph(
        vec![
            json!({"id": "stream", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 210},
                   "classes": [
                       {"name": "video", "weight": 15, "size": {"dist": "uniform", "min": 400, "max": 2000}, "droppable": true},
                       {"name": "audio", "weight": 5, "size": {"dist": "fixed", "value": 200}},
                       {"name": "control", "weight": 1, "size": {"dist": "fixed", "value": 100}}],
                   "backpressure": "ignore"}),
            json!({"id": "client", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 30},
                   "classes": [
                       {"name": "reply", "weight": 20, "size": {"dist": "fixed", "value": 2000}, "destination": "sender"},
                       {"name": "pong", "weight": 5, "size": {"dist": "fixed", "value": 100}, "destination": "sender"},
                       {"name": "ping_reply", "weight": 5, "size": {"dist": "fixed", "value": 100}, "destination": "server"}]}),
            json!({"id": "uplink", "kind": "link", "bandwidth_bytes_per_s": 40_000, "latency_s": 0.02,
                   "buffer": {"bytes": 16384}, "receive_buffer": {"bytes": 16384}}),
            json!({"id": "read", "kind": "router", "policy": "by_destination"}),
            json!({"id": "server", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0}}),
            json!({"id": "sender", "kind": "queue", "soft_limit": {"messages": 50, "bytes": 65536},
                   "hard_limit": {"messages": 100, "bytes": 131072}}),
            json!({"id": "socket", "kind": "link", "bandwidth_bytes_per_s": socket_bytes_per_s, "latency_s": 0.02,
                   "buffer": {"bytes": 16384}}),
            json!({"id": "viewer", "kind": "consumer", "workers": 4, "service_time": {"dist": "exponential", "mean": 0.001}}),
        ],
        &[
            ("stream", "sender"),
            ("client", "uplink"),
            ("uplink", "read"),
            ("read", "sender"),
            ("read", "server"),
            ("sender", "socket"),
            ("socket", "viewer"),
        ],
    )
}

#[test]
fn stopping_reading_crosses_the_uplink_and_the_clients_requests_wait_in_it() {
    // The socket down to the client takes 40 kB/s: the sender reaches its
    // soft limit again and again and stops reading the uplink.
    let mut sim = Simulation::new(connection(40_000.0), 42).unwrap();
    let client = idx(&sim, "client");
    let mut most_held = 0;
    let until = secs(60.0);
    while sim.next_event_time().is_some_and(|t| t <= until) {
        sim.step();
        sim.check_invariants().unwrap();
        if let Node::Producer(p) = &sim.nodes()[client] {
            most_held = most_held.max(p.holds());
        }
    }
    sim.run_until(until).unwrap();
    let r = sim.report();
    assert!(entered(&sim, "sender", State::SoftLimit) > 5);
    // Stopping reading is enough: nobody is disconnected.
    assert_eq!(r.nodes["sender"].disconnects, Some(0), "{:?}", r.nodes["sender"]);
    // The client's writes blocked, and what it made meanwhile waited in it:
    // nothing it made was dropped anywhere.
    assert!(most_held > 20, "the client never held more than {most_held}");
    assert_eq!(r.nodes["client"].dropped_total, 0);
    assert_eq!(r.nodes["uplink"].dropped_total, 0);
    // Every request made is accounted for: sent on, or held in the client.
    let made = r.nodes["client"].arrived;
    let held = match &sim.nodes()[client] {
        Node::Producer(p) => p.holds(),
        _ => unreachable!(),
    };
    assert_eq!(made, r.nodes["client"].departed + held);
    // The client made what its process made due: 30 a second.
    assert!((made as f64 / 60.0 - 30.0).abs() < 3.0, "{made}");
}

#[test]
fn ping_replies_are_read_while_requests_are_not() {
    // While the sender stops reading requests, ping replies still reach the
    // server through the same uplink: requests wait unread in its receive
    // buffer, the replies behind them are read.
    let mut sim = Simulation::new(connection(40_000.0), 42).unwrap();
    let (uplink, server) = (idx(&sim, "uplink"), idx(&sim, "server"));
    let unread = |sim: &Simulation| matches!(&sim.nodes()[uplink], Node::Link(l) if l.has_unread());
    let until = secs(60.0);
    let (mut read_meanwhile, mut periods, mut since) = (0, 0, None);
    while sim.next_event_time().is_some_and(|t| t <= until) {
        sim.step();
        sim.check_invariants().unwrap();
        let now_read = sim.stats(server).departed;
        match (unread(&sim), since) {
            (true, None) => since = Some(now_read),
            (false, Some(start)) => {
                read_meanwhile += now_read - start;
                periods += 1;
                since = None;
            }
            _ => {}
        }
    }
    assert!(periods > 5, "requests were kept unread {periods} times");
    assert!(read_meanwhile > 20, "{read_meanwhile} ping replies read while requests waited unread");
    // Nothing the client sent was lost on the way.
    assert_eq!(sim.report().totals.dropped, sim.report().nodes["sender"].dropped_total);
}

#[test]
fn requests_due_while_paused_are_made_and_wait() {
    // Wired straight to the queue, a paused client makes every request its
    // process makes due, keeps them, and sends them when reading resumes:
    // 50 a second made, none skipped, none dropped.
    let scenario = graph(
        vec![
            json!({"id": "stream", "kind": "producer", "arrivals": {"process": "constant", "rate_per_s": 190},
                   "backpressure": "ignore"}),
            json!({"id": "requests", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 50}}),
            json!({"id": "sender", "kind": "queue", "soft_limit": {"messages": 20}}),
            json!({"id": "out", "kind": "consumer", "workers": 1, "service_time": {"dist": "fixed", "value": 0.005}}),
        ],
        &[("stream", "sender"), ("requests", "sender"), ("sender", "out")],
    );
    let mut sim = Simulation::new(scenario, 3).unwrap();
    run_checked(&mut sim, 200.0);
    let r = sim.report();
    assert!(entered(&sim, "sender", State::SoftLimit) > 10);
    let made = r.nodes["requests"].arrived as f64 / 200.0;
    assert!((made - 50.0).abs() < 2.0, "{made} a second made, 50 due");
    assert_eq!(r.nodes["requests"].dropped_total, 0);
    assert!(max_depth(&sim, "requests") > 10, "the paused client never held a backlog");
}

#[test]
fn a_queue_flipping_its_pause_with_every_message_costs_the_link_no_extra_timers() {
    // A link into a queue whose soft limit is one message: it stops and
    // resumes reading the link with nearly every message, and each resume
    // wakes the link. The wakes must not pile up arrival timers (each of
    // which set another): events stay a few per message.
    let scenario = graph(
        vec![
            json!({"id": "p", "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 650}}),
            json!({"id": "wire", "kind": "link", "latency_s": 0.04, "buffer": {"bytes": 0}}),
            json!({"id": "q", "kind": "queue", "soft_limit": {"messages": 1}, "hard_limit": {"messages": 2}}),
            json!({"id": "c", "kind": "consumer", "service_time": {"dist": "uniform", "min": 0, "max": 0.004}}),
        ],
        &[("p", "wire"), ("wire", "q"), ("q", "c")],
    );
    let mut sim = Simulation::new(scenario, 1).unwrap();
    run_checked(&mut sim, 6.0);
    let made = sim.report().nodes["p"].arrived.max(1);
    let per_message = sim.events() as f64 / made as f64;
    assert!(per_message < 20.0, "{per_message} events per message made");
}
