//! What a node costs in memory: a chain of 10,000 nodes (a producer, 9,998
//! queues, a consumer; 10 messages a second) built and run, its heap
//! measured by a counting allocator at each mark. Prints figures; `make
//! bench` runs it.
//!
//!   cargo run --release -p sluice-engine --example chain_memory [-- NODES]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use serde_json::json;
use sluice_engine::{Scenario, SimTime, Simulation};

/// The system allocator, counting the bytes live now and at most.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn chain(nodes: usize) -> Scenario {
    let ids: Vec<String> = (0..nodes)
        .map(|i| match i {
            0 => "source".to_string(),
            i if i == nodes - 1 => "sink".to_string(),
            i => format!("q{i}"),
        })
        .collect();
    let blocks: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| match i {
            0 => json!({"id": id, "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 10}}),
            i if i == nodes - 1 => json!({"id": id, "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.01}}),
            _ => json!({"id": id, "kind": "queue"}),
        })
        .collect();
    let edges: Vec<_> = ids.windows(2).map(|pair| json!({"from": pair[0], "to": pair[1]})).collect();
    Scenario::from_value(json!({"version": 1, "name": "chain", "nodes": blocks, "edges": edges})).expect("the chain is valid")
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let nodes: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).filter(|&n| n >= 3).unwrap_or(10_000);
    let scenario = chain(nodes);
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let mut sim = Simulation::new(scenario, 1).expect("the chain builds");
    println!("{nodes}-node chain (producer, {} queues, consumer; 10 messages a second), heap of the simulation:", nodes - 2);
    println!("{:>16} {:>12} {:>12} {:>14}", "simulated", "live MiB", "peak MiB", "peak per node");
    let mark = |label: &str| {
        let (live, peak) = (LIVE.load(Relaxed) - before, PEAK.load(Relaxed) - before);
        println!("{label:>16} {:>12.1} {:>12.1} {:>12.0} B", mib(live), mib(peak), peak as f64 / nodes as f64);
    };
    mark("built");
    for until in [1.0, 10.0, 100.0, 300.0] {
        sim.run_until(SimTime::from_secs_f64(until)).expect("the chain advances");
        mark(&format!("{until} s"));
    }
    // The whole process at its largest (Linux): the scenario's JSON, the
    // program and the allocator's own overhead as well.
    if let Some(peak_kib) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| status.lines().find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())))
        .flatten()
    {
        println!("process peak resident memory: {:.1} MiB", peak_kib / 1024.0);
    }
}
