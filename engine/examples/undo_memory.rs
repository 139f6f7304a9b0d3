//! What the editor's undo history costs in memory at 6,000 blocks: the
//! scenario the page's large-import test opens (2,000 producers, queues
//! and consumers), then runs of 200 edits of one kind each, the heap held
//! by the editor measured by a counting allocator after each run. Prints
//! figures; `make bench` runs it.
//!
//!   cargo run --release -p sluice-engine --example undo_memory

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use serde_json::json;
use sluice_engine::editor::{Editor, HISTORY_ITEMS, HISTORY_LIMIT};
use sluice_engine::scenario::{Kind, Position};
use sluice_engine::Scenario;

/// The system allocator, counting the bytes live now.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
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

fn six_thousand() -> Scenario {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for k in 0..2000 {
        let (x, y) = (120 + 760 * (k % 20), 120 + 160 * (k / 20));
        nodes.push(json!({"id": format!("p{k}"), "kind": "producer", "arrivals": {"process": "poisson", "rate_per_s": 2}, "position": {"x": x, "y": y}}));
        nodes.push(json!({"id": format!("q{k}"), "kind": "queue", "position": {"x": x + 240, "y": y}}));
        nodes.push(json!({"id": format!("c{k}"), "kind": "consumer", "service_time": {"dist": "exponential", "mean": 0.3}, "position": {"x": x + 480, "y": y}}));
        edges.push(json!({"from": format!("p{k}"), "to": format!("q{k}")}));
        edges.push(json!({"from": format!("q{k}"), "to": format!("c{k}")}));
    }
    Scenario::from_value(json!({"version": 1, "name": "six thousand", "nodes": nodes, "edges": edges})).expect("valid")
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let base = LIVE.load(Relaxed);
    let scenario = six_thousand();
    let one = LIVE.load(Relaxed) - base;
    println!("6,000 blocks, 4,000 edges: the scenario alone holds {:.1} MiB", mib(one));
    println!("history: at most {HISTORY_LIMIT} edits and {HISTORY_ITEMS} nodes' and edges' copies");
    println!("the editor's heap beyond the scenario it holds (its undo history, mostly):");
    println!("{:>44} {:>12} {:>16}", "after 200 edits of each kind, in turn", "MiB", "in scenarios");
    let before = LIVE.load(Relaxed);
    let mut editor = Editor::new(scenario).expect("a sound draft");
    let ids: Vec<String> = editor.scenario().nodes.iter().map(|n| n.id.clone()).collect();
    let mark = |label: &str| {
        let held = LIVE.load(Relaxed) - before;
        println!("{label:>44} {:>12.1} {:>15.1}×", mib(held), held as f64 / one as f64);
    };
    mark("opened");
    for k in 0..200 {
        editor.move_by(&ids[k * 7 % ids.len()..][..1], 5.0, 0.0).expect("moves");
    }
    mark("one block moved");
    for k in 0..200 {
        let id = format!("q{}", k * 13 % 2000);
        let mut block = editor.scenario().nodes[editor.scenario().node_index(&id).unwrap()].block.clone();
        if let sluice_engine::BlockSpec::Queue(q) = &mut block {
            q.capacity.messages = 40 + k as u64;
        }
        editor.set_block(&id, block).expect("sets");
    }
    mark("one queue's capacity set");
    for k in 0..200 {
        editor.add_node(Kind::Queue, Position { x: 100.0 * k as f64, y: -300.0 }).expect("adds");
    }
    mark("one block added");
    let all: Vec<String> = editor.scenario().nodes.iter().map(|n| n.id.clone()).collect();
    for _ in 0..200 {
        editor.move_by(&all, 1.0, 1.0).expect("moves all");
    }
    mark("every block moved");
    let mut undone = 0;
    while editor.undo() {
        undone += 1;
    }
    mark(&format!("{undone} edits undone"));
}
