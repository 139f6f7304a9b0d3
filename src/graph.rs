//! The canvas: nodes and edges as SVG. Each node shows its key figure and a
//! queue is coloured by its send-queue state.

use std::rc::Rc;

use yew::prelude::*;

use crate::snapshot::{state_colour, NodeView, Snapshot};

const NODE_W: f64 = 170.0;
const NODE_H: f64 = 104.0;

#[derive(Properties, PartialEq)]
pub struct GraphProps {
    pub snapshot: Rc<Snapshot>,
    pub selected: Option<usize>,
    pub on_select: Callback<Option<usize>>,
}

fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

fn capitalised(kind: &str) -> String {
    let mut c = kind.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// The words a screen reader says for a node, and the figure drawn in it.
fn describe(node: &NodeView) -> (String, String, String) {
    match node.kind {
        "queue" => {
            let state = node.state.unwrap_or("Ready");
            let status = if node.disconnected { format!("{state} · disconnected") } else { state.to_string() };
            let figure = format!("{} messages · {}", node.depth, human_bytes(node.depth_bytes));
            let label = format!("Queue {}, {}, {} messages", node.id, status, node.depth);
            (status, figure, label)
        }
        "producer" => {
            let status = if node.paused { "paused" } else { "producing" }.to_string();
            let figure = format!("{} made", node.arrived);
            let label = format!("Producer {}, {}, {} messages made", node.id, status, node.arrived);
            (status, figure, label)
        }
        _ => {
            let status = format!("{}/{} busy", node.in_service, node.workers);
            let figure = format!("{} delivered", node.departed);
            let label = format!("Consumer {}, {}, {} delivered", node.id, status, node.departed);
            (status, figure, label)
        }
    }
}

fn fill_bar(node: &NodeView) -> Html {
    // The bar spans up to the hard limit (or twice the soft one, or the depth).
    let soft = node.soft.messages as f64;
    let hard = node.hard.messages as f64;
    let full = [hard, soft * 2.0, node.depth as f64, 1.0].into_iter().fold(0.0, f64::max);
    let (x0, width) = (-NODE_W / 2.0 + 12.0, NODE_W - 24.0);
    let y = NODE_H / 2.0 - 16.0;
    let fill = width * (node.depth as f64 / full).min(1.0);
    let colour = state_colour(node.state.unwrap_or("Ready"));
    let mark = |at: f64, class: &'static str| {
        (at > 0.0).then(|| {
            let x = x0 + width * (at / full).min(1.0);
            html! { <line class={class} x1={x.to_string()} x2={x.to_string()} y1={(y - 3.0).to_string()} y2={(y + 11.0).to_string()} /> }
        })
    };
    html! {
        <g class="fill-bar">
            <rect class="bar-back" x={x0.to_string()} y={y.to_string()} width={width.to_string()} height="8" rx="3" />
            <rect x={x0.to_string()} y={y.to_string()} width={fill.to_string()} height="8" rx="3" fill={colour} />
            { mark(soft, "mark-soft") }
            { mark(hard, "mark-hard") }
        </g>
    }
}

/// The view box that shows every node with a margin, at least 800 × 240.
fn view_box(nodes: &[NodeView]) -> String {
    let margin = 40.0;
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for n in nodes {
        x0 = x0.min(n.x - NODE_W / 2.0);
        x1 = x1.max(n.x + NODE_W / 2.0);
        y0 = y0.min(n.y - NODE_H / 2.0);
        y1 = y1.max(n.y + NODE_H / 2.0 + 24.0);
    }
    if nodes.is_empty() {
        (x0, y0, x1, y1) = (0.0, 0.0, 800.0, 240.0);
    }
    let (w, h) = ((x1 - x0 + 2.0 * margin).max(800.0), (y1 - y0 + 2.0 * margin).max(240.0));
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    format!("{} {} {} {}", cx - w / 2.0, cy - h / 2.0, w, h)
}

#[function_component(Graph)]
pub fn graph(props: &GraphProps) -> Html {
    let snap = &props.snapshot;
    let on_background = props.on_select.reform(|_: MouseEvent| None);
    let edges = snap.edges.iter().map(|&(from, to)| {
        let (a, b) = (&snap.nodes[from], &snap.nodes[to]);
        let (x1, y1, x2, y2) = (a.x + NODE_W / 2.0, a.y, b.x - NODE_W / 2.0 - 6.0, b.y);
        html! {
            <line class="edge" x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} marker-end="url(#arrow)" />
        }
    });
    let nodes = snap.nodes.iter().map(|node| {
        let index = node.index;
        let (status, figure, label) = describe(node);
        let selected = props.selected == Some(index);
        let colour = match node.kind {
            "queue" => state_colour(node.state.unwrap_or("Ready")),
            "producer" if node.paused => state_colour("SoftLimit"),
            _ => "#495057",
        };
        let onclick = props.on_select.reform(move |e: MouseEvent| {
            e.stop_propagation();
            Some(index)
        });
        let onkeydown = {
            let on_select = props.on_select.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    on_select.emit(Some(index));
                }
            })
        };
        let dropped: u64 = node.dropped.iter().map(|(_, n)| n).sum();
        html! {
            <g class={classes!("node", node.kind, selected.then_some("selected"))}
               transform={format!("translate({},{})", node.x, node.y)}
               data-node={node.id.clone()} data-state={node.state.unwrap_or("")}
               data-paused={node.paused.to_string()}
               role="button" tabindex="0" aria-label={label} aria-pressed={selected.to_string()}
               {onclick} {onkeydown}>
                <rect class="body" x={(-NODE_W / 2.0).to_string()} y={(-NODE_H / 2.0).to_string()}
                      width={NODE_W.to_string()} height={NODE_H.to_string()} rx="10" style={format!("stroke: {colour}")} />
                <rect class="band" x={(-NODE_W / 2.0).to_string()} y={(-NODE_H / 2.0).to_string()}
                      width="8" height={NODE_H.to_string()} rx="4" fill={colour} />
                <text class="kind" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 18.0).to_string()}>{ capitalised(node.kind) }</text>
                <text class="id" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 38.0).to_string()}>{ &node.id }</text>
                <text class="status" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 57.0).to_string()} fill={colour}>{ status }</text>
                <text class="figure" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 76.0).to_string()}>{ figure }</text>
                if node.kind == "queue" {
                    { fill_bar(node) }
                }
                if dropped > 0 {
                    <text class="drops" x={(NODE_W / 2.0 - 10.0).to_string()} y={(NODE_H / 2.0 + 18.0).to_string()} text-anchor="end">{ format!("{dropped} dropped") }</text>
                }
            </g>
        }
    });
    html! {
        <svg class="graph" viewBox={view_box(&snap.nodes)} role="group" aria-label="Scenario canvas" onclick={on_background}>
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                </marker>
            </defs>
            { for edges }
            { for nodes }
        </svg>
    }
}
