//! The canvas: nodes and edges as SVG. Each node shows its key figure and a
//! queue is coloured by its send-queue state. Nodes are moved by dragging
//! them and connected by dragging from the output port (the dot on their
//! right edge) onto another node; the page decides whether that is allowed.

use std::rc::Rc;

use web_sys::Element;
use yew::prelude::*;

use crate::palette::kind_label;

use crate::snapshot::{state_colour, NodeView, Snapshot};

const NODE_W: f64 = 170.0;
const NODE_H: f64 = 104.0;

#[derive(Properties, PartialEq)]
pub struct GraphProps {
    pub snapshot: Rc<Snapshot>,
    pub selected: Option<usize>,
    pub on_select: Callback<Option<usize>>,
    /// A node dragged by (dx, dy) canvas units.
    pub on_move: Callback<(usize, f64, f64)>,
    /// A connection dragged from the first node's output to the second.
    pub on_connect: Callback<(usize, usize)>,
}

/// A pointer gesture under way on the canvas.
#[derive(Clone, Copy, PartialEq)]
enum Gesture {
    Move { node: usize, start: (f64, f64), at: (f64, f64) },
    Connect { from: usize, at: (f64, f64) },
}

/// Parses a `viewBox` attribute.
fn parse_view_box(text: &str) -> Option<(f64, f64, f64, f64)> {
    let v: Vec<f64> = text.split_whitespace().filter_map(|t| t.parse().ok()).collect();
    (v.len() == 4 && v[2] > 0.0 && v[3] > 0.0).then(|| (v[0], v[1], v[2], v[3]))
}

/// A point of the screen in the canvas's coordinates, if the canvas is
/// there (the SVG keeps its aspect ratio, centred: `xMidYMid meet`).
pub fn client_to_canvas(svg: &Element, x: f64, y: f64) -> Option<(f64, f64)> {
    let (vx, vy, vw, vh) = parse_view_box(&svg.get_attribute("viewBox")?)?;
    let rect = svg.get_bounding_client_rect();
    if rect.width() <= 0.0 || rect.height() <= 0.0 {
        return None;
    }
    let scale = (rect.width() / vw).min(rect.height() / vh);
    let left = rect.left() + (rect.width() - vw * scale) / 2.0;
    let top = rect.top() + (rect.height() - vh * scale) / 2.0;
    Some((vx + (x - left) / scale, vy + (y - top) / scale))
}

/// Whether a screen point falls on the canvas.
pub fn over_canvas(svg: &Element, x: f64, y: f64) -> bool {
    let r = svg.get_bounding_client_rect();
    x >= r.left() && x <= r.right() && y >= r.top() && y <= r.bottom()
}

/// The node drawn under a canvas point.
fn node_at(nodes: &[NodeView], (x, y): (f64, f64)) -> Option<usize> {
    nodes
        .iter()
        .rev()
        .find(|n| (x - n.x).abs() <= NODE_W / 2.0 + 8.0 && (y - n.y).abs() <= NODE_H / 2.0 + 8.0)
        .map(|n| n.index)
}

fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
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
        "consumer" | "dispatcher" => {
            let status = format!("{}/{} busy", node.in_service, node.workers);
            let figure = format!("{} done", node.departed);
            let label = format!("{} {}, {}, {} done", kind_label(node.kind), node.id, status, node.departed);
            (status, figure, label)
        }
        kind => {
            let level = match kind {
                "window" | "concurrency_limiter" => "in flight",
                "credit" => "credits",
                "resource_pool" => "busy",
                "link" => "on the link",
                _ => "held",
            };
            let status = format!("{} {level}", node.depth);
            let figure = format!("{} passed", node.departed);
            let label = format!("{} {}, {} {level}, {} passed", kind_label(kind), node.id, node.depth, node.departed);
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
    let gesture = use_state(|| None::<Gesture>);
    let svg_ref = use_node_ref();
    let to_canvas = {
        let svg_ref = svg_ref.clone();
        move |e: &PointerEvent| {
            svg_ref.cast::<Element>().and_then(|svg| client_to_canvas(&svg, e.client_x() as f64, e.client_y() as f64))
        }
    };
    // Where each node is drawn, the node being moved following the pointer.
    let offset = |index: usize| match *gesture {
        Some(Gesture::Move { node, start, at }) if node == index => (at.0 - start.0, at.1 - start.1),
        _ => (0.0, 0.0),
    };
    let place = |n: &NodeView| {
        let (dx, dy) = offset(n.index);
        (n.x + dx, n.y + dy)
    };

    // Pressing on the empty canvas clears the selection. (Not on click: the
    // canvas captures the pointer during a drag, so the click that ends a
    // drag on a node would land on the canvas.)
    let on_background = {
        let on_select = props.on_select.clone();
        Callback::from(move |e: PointerEvent| {
            if e.target() == e.current_target() {
                on_select.emit(None);
            }
        })
    };
    let onpointermove = {
        let gesture = gesture.clone();
        let to_canvas = to_canvas.clone();
        Callback::from(move |e: PointerEvent| {
            let Some(at) = to_canvas(&e) else { return };
            match *gesture {
                Some(Gesture::Move { node, start, .. }) => gesture.set(Some(Gesture::Move { node, start, at })),
                Some(Gesture::Connect { from, .. }) => gesture.set(Some(Gesture::Connect { from, at })),
                None => {}
            }
        })
    };
    let onpointerup = {
        let gesture = gesture.clone();
        let to_canvas = to_canvas.clone();
        let nodes = snap.nodes.clone();
        let (on_move, on_connect, on_select) = (props.on_move.clone(), props.on_connect.clone(), props.on_select.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(g) = *gesture else { return };
            gesture.set(None);
            let at = to_canvas(&e);
            match g {
                Gesture::Move { node, start, .. } => {
                    let at = at.unwrap_or(start);
                    let (dx, dy) = (at.0 - start.0, at.1 - start.1);
                    if dx.hypot(dy) > 3.0 {
                        on_move.emit((node, dx, dy));
                    }
                    on_select.emit(Some(node));
                }
                Gesture::Connect { from, .. } => {
                    if let Some(to) = at.and_then(|p| node_at(&nodes, p)).filter(|&to| to != from) {
                        on_connect.emit((from, to));
                    }
                }
            }
        })
    };
    let onpointercancel = {
        let gesture = gesture.clone();
        Callback::from(move |_: PointerEvent| gesture.set(None))
    };

    let edges = snap.edges.iter().map(|&(from, to)| {
        let ((ax, ay), (bx, by)) = (place(&snap.nodes[from]), place(&snap.nodes[to]));
        let (x1, y1, x2, y2) = (ax + NODE_W / 2.0, ay, bx - NODE_W / 2.0 - 6.0, by);
        html! {
            <line class="edge" x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} marker-end="url(#arrow)" />
        }
    });
    let pending = match *gesture {
        Some(Gesture::Connect { from, at }) => {
            let (ax, ay) = place(&snap.nodes[from]);
            Some(html! {
                <line class="edge pending" x1={(ax + NODE_W / 2.0).to_string()} y1={ay.to_string()}
                      x2={at.0.to_string()} y2={at.1.to_string()} />
            })
        }
        _ => None,
    };
    let nodes: Vec<Html> = snap.nodes.iter().map(|node| {
        let index = node.index;
        let (status, figure, label) = describe(node);
        let selected = props.selected == Some(index);
        let colour = match node.kind {
            "queue" => state_colour(node.state.unwrap_or("Ready")),
            "producer" if node.paused => state_colour("SoftLimit"),
            _ => "#495057",
        };
        let (x, y) = place(node);
        let onpointerdown = {
            let gesture = gesture.clone();
            let to_canvas = to_canvas.clone();
            let svg_ref = svg_ref.clone();
            Callback::from(move |e: PointerEvent| {
                if e.button() != 0 {
                    return;
                }
                let Some(at) = to_canvas(&e) else { return };
                if let Some(svg) = svg_ref.cast::<Element>() {
                    let _ = svg.set_pointer_capture(e.pointer_id());
                }
                gesture.set(Some(Gesture::Move { node: index, start: at, at }));
            })
        };
        let on_port = {
            let gesture = gesture.clone();
            let to_canvas = to_canvas.clone();
            let svg_ref = svg_ref.clone();
            Callback::from(move |e: PointerEvent| {
                e.stop_propagation();
                let Some(at) = to_canvas(&e) else { return };
                if let Some(svg) = svg_ref.cast::<Element>() {
                    let _ = svg.set_pointer_capture(e.pointer_id());
                }
                gesture.set(Some(Gesture::Connect { from: index, at }));
            })
        };
        let onkeydown = {
            let on_select = props.on_select.clone();
            let on_move = props.on_move.clone();
            Callback::from(move |e: KeyboardEvent| {
                let step = if e.shift_key() { 100.0 } else { 20.0 };
                let moved = match e.key().as_str() {
                    "Enter" => {
                        e.prevent_default();
                        on_select.emit(Some(index));
                        None
                    }
                    "ArrowLeft" => Some((-step, 0.0)),
                    "ArrowRight" => Some((step, 0.0)),
                    "ArrowUp" => Some((0.0, -step)),
                    "ArrowDown" => Some((0.0, step)),
                    _ => None,
                };
                if let Some((dx, dy)) = moved {
                    e.prevent_default();
                    on_move.emit((index, dx, dy));
                }
            })
        };
        let onfocus = props.on_select.reform(move |_: FocusEvent| Some(index));
        let dropped: u64 = node.dropped.iter().map(|(_, n)| n).sum();
        let takes_input = node.kind != "producer";
        html! {
            <g class={classes!("node", node.kind, selected.then_some("selected"))}
               transform={format!("translate({x},{y})")}
               data-node={node.id.clone()} data-state={node.state.unwrap_or("")}
               data-paused={node.paused.to_string()}
               role="button" tabindex="0" aria-label={label} aria-pressed={selected.to_string()}
               {onpointerdown} {onkeydown} {onfocus}>
                <rect class="body" x={(-NODE_W / 2.0).to_string()} y={(-NODE_H / 2.0).to_string()}
                      width={NODE_W.to_string()} height={NODE_H.to_string()} rx="10" style={format!("stroke: {colour}")} />
                <rect class="band" x={(-NODE_W / 2.0).to_string()} y={(-NODE_H / 2.0).to_string()}
                      width="8" height={NODE_H.to_string()} rx="4" fill={colour} />
                <text class="kind" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 18.0).to_string()}>{ kind_label(node.kind) }</text>
                <text class="id" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 38.0).to_string()}>{ &node.id }</text>
                <text class="status" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 57.0).to_string()} fill={colour}>{ status }</text>
                <text class="figure" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 76.0).to_string()}>{ figure }</text>
                if node.kind == "queue" {
                    { fill_bar(node) }
                }
                if dropped > 0 {
                    <text class="drops" x={(NODE_W / 2.0 - 10.0).to_string()} y={(NODE_H / 2.0 + 18.0).to_string()} text-anchor="end">{ format!("{dropped} dropped") }</text>
                }
                if takes_input {
                    <circle class="port in" cx={(-NODE_W / 2.0).to_string()} cy="0" r="6" aria-hidden="true" />
                }
                <circle class="port out" data-port={node.id.clone()} cx={(NODE_W / 2.0).to_string()} cy="0" r="9"
                        onpointerdown={on_port}>
                    <title>{"Drag to another block to connect"}</title>
                </circle>
            </g>
        }
    }).collect();
    html! {
        <svg class="graph" ref={svg_ref} viewBox={view_box(&snap.nodes)} role="group" aria-label="Scenario canvas"
             onpointerdown={on_background} {onpointermove} {onpointerup} {onpointercancel}>
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                </marker>
            </defs>
            { for edges }
            { for pending }
            { for nodes }
        </svg>
    }
}
