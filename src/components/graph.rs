//! The canvas: nodes and edges as SVG (the dots moving along the edges are
//! on the flow layer over it, `flow_layer.rs`). Each node shows its key figure and a
//! queue is coloured by its send-queue state. Nodes are moved by dragging
//! them and connected by dragging from the output port (the dot on their
//! right edge) onto another node; the page decides whether that is allowed.
//!
//! The view fits every node until the user pans (drag the empty canvas) or
//! zooms (the wheel, or the + and − buttons); "Fit" returns to fitting. On a
//! screen too narrow to fit every node at a readable size (a phone), the
//! view opens on the top left of the scenario at that size instead; "Fit"
//! shows every block there too. Drawn small, a block's words are drawn
//! larger and fewer (`node_face::Compact`), never under 12 px (16 in
//! presentation mode) down to the overview's scale. A block just added
//! and selected is brought wholly into view, and one selected elsewhere
//! (the event log) that the view does not reach at all, the view's size
//! kept. Only what
//! the view shows is drawn, and from far out (a large scenario fitted)
//! blocks are plain shapes: thousands of blocks stay responsive.
//! Shift- or Ctrl-click adds a node to the selection or takes it out;
//! dragging a selected node moves the whole selection.

use std::rc::Rc;

use gloo_events::{EventListener, EventListenerOptions};
use sluice_engine::scenario::{Kind, Scenario};
use sluice_engine::State;
use wasm_bindgen::JsCast;
use web_sys::{Element, WheelEvent};
use yew::prelude::*;

use crate::view::words::{kind_label, three_figures, theory_summary};

use crate::browser::resize::SizeWatch;
use crate::components::flow_layer::{FlowGeometry, FlowKey, FlowLayer};
use crate::components::view_box::{bring_into_view, fit_view, readable, zoom, ViewBox, ZOOM_STEP};
use crate::components::node_face::{describe, fill_bar, spaced, squeeze, Compact, FIGURE_EM, ID_EM, SMALLEST_UNITS, STATUS_EM, TEXT_X};
use crate::view::colours::state_colour;
use crate::view::selection::Select;
use crate::view::snapshot::{NodeView, Snapshot, TheoryView};

pub(crate) const NODE_W: f64 = 170.0;
pub(crate) const NODE_H: f64 = 104.0;

/// Below this many screen pixels per canvas unit a block's words would be
/// under 4 px: blocks are drawn as plain shapes in their colour (an
/// overview), and no dots move along the edges.
const OVERVIEW_SCALE: f64 = 0.3;

/// The smallest a block's words are drawn on screen, in CSS pixels; and in
/// presentation mode, for a room to read them from afar.
const LEAST_PX: f64 = 12.0;
const PRESENT_PX: f64 = 16.0;

#[derive(Properties, PartialEq)]
pub struct GraphProps {
    pub snapshot: Rc<Snapshot>,
    /// Per node, whether it is dropping now (it flashes). The dots on the
    /// edges come by context to the flow layer (`FlowLayer`), so that they
    /// move without this canvas being drawn again.
    #[prop_or_default]
    pub dropping: Rc<Vec<bool>>,
    /// The selected nodes; the last is the one the inspector shows.
    pub selected: Vec<usize>,
    pub on_select: Callback<Select>,
    /// Nodes dragged by (dx, dy) canvas units.
    pub on_move: Callback<(Vec<usize>, f64, f64)>,
    /// A connection dragged from the first node's output to the second.
    pub on_connect: Callback<(usize, usize)>,
    /// Only watched (variant B of a comparison): nodes can be selected,
    /// not moved or connected.
    #[prop_or_default]
    pub readonly: bool,
    /// Presentation mode: a block's words at least `PRESENT_PX`.
    #[prop_or_default]
    pub present: bool,
    /// What a screen reader calls the canvas, when not the editing one.
    #[prop_or_default]
    pub label: Option<AttrValue>,
    /// The edge a block dragged from the palette would go on (by the ids
    /// of its ends): drawn marked.
    #[prop_or_default]
    pub drop_edge: Option<(String, String)>,
}

/// A pointer gesture under way on the canvas.
#[derive(Clone, Copy, PartialEq)]
enum Gesture {
    /// `node` was pressed; `group` says whether the whole selection moves.
    Move { node: usize, group: bool, toggle: bool, start: (f64, f64), at: (f64, f64) },
    Connect { from: usize, at: (f64, f64) },
    /// The empty canvas dragged: `start` in screen pixels.
    Pan { start: (f64, f64), view: ViewBox },
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
/// How near an edge, in canvas units, a block dropped there lands on it.
const ON_EDGE: f64 = 24.0;

/// The edge a block dropped at canvas point `at` lands on, as drawn (from
/// the port on the right of one block to the left of the next), if any:
/// within `ON_EDGE` of its line and not on a block.
pub fn edge_under(scenario: &Scenario, (x, y): (f64, f64)) -> Option<(String, String)> {
    let position = |i: usize| scenario.nodes[i].position.unwrap_or(sluice_engine::scenario::default_position(i));
    let on_a_block = (0..scenario.nodes.len()).any(|i| {
        let p = position(i);
        (x - p.x).abs() <= NODE_W / 2.0 && (y - p.y).abs() <= NODE_H / 2.0
    });
    if on_a_block {
        return None;
    }
    let distance = |(ax, ay): (f64, f64), (bx, by): (f64, f64)| {
        let (dx, dy) = (bx - ax, by - ay);
        let length2 = dx * dx + dy * dy;
        let t = if length2 > 0.0 { (((x - ax) * dx + (y - ay) * dy) / length2).clamp(0.0, 1.0) } else { 0.0 };
        ((x - ax - t * dx).powi(2) + (y - ay - t * dy).powi(2)).sqrt()
    };
    scenario
        .edge_ends()
        .into_iter()
        .zip(&scenario.edges)
        .filter_map(|((from, to), e)| {
            let (a, b) = (position(from?), position(to?));
            let d = distance((a.x + NODE_W / 2.0, a.y), (b.x - NODE_W / 2.0 - 6.0, b.y));
            (d <= ON_EDGE).then(|| (d, (e.from.clone(), e.to.clone())))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, ends)| ends)
}

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

/// Pixels per canvas unit on screen (`xMidYMid meet`).
fn screen_scale(svg: &Element, view: ViewBox) -> f64 {
    let rect = svg.get_bounding_client_rect();
    (rect.width() / view.2).min(rect.height() / view.3).max(1e-9)
}

#[function_component(Graph)]
pub fn graph(props: &GraphProps) -> Html {
    let snap = &props.snapshot;
    let gesture = use_state(|| None::<Gesture>);
    // "Several" on: a tap adds a block to the selection or takes it out,
    // as Shift-click does (a touch screen has no Shift).
    let several = use_state(|| false);
    // The view the user panned or zoomed to; `None` fits every node.
    let view = use_state(|| None::<ViewBox>);
    let svg_ref = use_node_ref();
    // The canvas's size in CSS pixels, as a ResizeObserver reports it.
    let pixels = use_state(|| None::<(f64, f64)>);
    {
        let (svg_ref, pixels) = (svg_ref.clone(), pixels.clone());
        use_effect_with((), move |_| {
            let watch = svg_ref.cast::<Element>().and_then(|svg| SizeWatch::new(&svg, move |w, h| pixels.set(Some((w, h)))));
            move || drop(watch)
        });
    }
    // Every block; on a narrow screen the readable part of it opens.
    let fit_all = fit_view(&snap.nodes);
    let fit = readable(fit_all, *pixels);
    // Blocks added where the fitted view already showed them keep that
    // view: a block dropped at a spot stays there on screen rather than
    // the whole canvas shifting to fit it (and the next drop landing
    // elsewhere than aimed).
    let last_fit = use_mut_ref(|| (snap.nodes.iter().map(|n| n.id.clone()).collect::<Vec<String>>(), fit));
    let kept = {
        let (ids, before) = &*last_fit.borrow();
        let grew = snap.nodes.len() > ids.len() && snap.nodes.iter().zip(ids).all(|(n, id)| n.id == *id);
        let inside = |n: &NodeView| {
            n.x - NODE_W / 2.0 >= before.0 && n.x + NODE_W / 2.0 <= before.0 + before.2 && n.y - NODE_H / 2.0 >= before.1 && n.y + NODE_H / 2.0 <= before.1 + before.3
        };
        (view.is_none() && grew && snap.nodes.iter().all(inside)).then_some(*before)
    };
    if let Some(before) = kept {
        view.set(Some(before));
    }
    {
        // The ids are copied again only when the blocks may have changed
        // (not on every frame of a large scenario).
        let mut last = last_fit.borrow_mut();
        let same = last.0.len() == snap.nodes.len() && last.0.first() == snap.nodes.first().map(|n| &n.id) && last.0.last() == snap.nodes.last().map(|n| &n.id);
        if !same {
            last.0 = snap.nodes.iter().map(|n| n.id.clone()).collect();
        }
        last.1 = kept.unwrap_or(fit);
    }
    let shown = kept.or(*view).unwrap_or(fit);
    // A block just added and selected is brought wholly into view; one
    // selected elsewhere, when the view does not reach it at all.
    {
        let selected_id = props.selected.last().and_then(|&i| snap.nodes.get(i)).map(|n| n.id.clone());
        let last_selected = use_mut_ref(|| (None::<String>, snap.nodes.len()));
        let (before, count) = last_selected.borrow().clone();
        if before != selected_id || count != snap.nodes.len() {
            *last_selected.borrow_mut() = (selected_id.clone(), snap.nodes.len());
            let added = snap.nodes.len() > count;
            let node = selected_id.as_ref().filter(|_| before != selected_id).and_then(|id| snap.nodes.iter().find(|n| &n.id == id));
            if let Some(moved) = node.and_then(|n| bring_into_view(shown, (n.x, n.y), added)) {
                view.set(Some(moved));
            }
        }
    }
    // The views as of this render, for the wheel listener installed once.
    let views = use_mut_ref(|| (shown, fit));
    *views.borrow_mut() = (shown, fit);
    {
        let (svg_ref, views, view) = (svg_ref.clone(), views.clone(), view.clone());
        use_effect_with((), move |_| {
            // Not Yew's `onwheel`: that listener is passive, and the page
            // must not scroll while the wheel zooms the canvas.
            let listener = svg_ref.cast::<Element>().map(|svg| {
                let target = svg.clone();
                EventListener::new_with_options(&svg, "wheel", EventListenerOptions::enable_prevent_default(), move |event| {
                    let Some(e) = event.dyn_ref::<WheelEvent>() else { return };
                    e.prevent_default();
                    let (shown, fit) = *views.borrow();
                    let Some(at) = client_to_canvas(&target, e.client_x() as f64, e.client_y() as f64) else { return };
                    let lines = if e.delta_mode() == WheelEvent::DOM_DELTA_PIXEL { e.delta_y() / 40.0 } else { e.delta_y() };
                    view.set(Some(zoom(shown, fit, ZOOM_STEP.powf(lines.clamp(-5.0, 5.0) / 3.0), at)));
                })
            });
            move || drop(listener)
        });
    }
    let to_canvas = {
        let svg_ref = svg_ref.clone();
        move |e: &PointerEvent| {
            svg_ref.cast::<Element>().and_then(|svg| client_to_canvas(&svg, e.client_x() as f64, e.client_y() as f64))
        }
    };
    let selected = props.selected.clone();
    // Where each node is drawn, the nodes being moved following the pointer.
    let offset = |index: usize| match *gesture {
        Some(Gesture::Move { node, group, start, at, .. }) if node == index || (group && selected.contains(&index)) => {
            (at.0 - start.0, at.1 - start.1)
        }
        _ => (0.0, 0.0),
    };
    let place = |n: &NodeView| {
        let (dx, dy) = offset(n.index);
        (n.x + dx, n.y + dy)
    };

    // Pressing on the empty canvas clears the selection (unless Shift or
    // Ctrl is held) and starts a pan. (Not on click: the canvas captures
    // the pointer during a drag, so the click that ends a drag on a node
    // would land on the canvas.)
    let several_now = *several;
    let on_background = {
        let on_select = props.on_select.clone();
        let (gesture, svg_ref) = (gesture.clone(), svg_ref.clone());
        Callback::from(move |e: PointerEvent| {
            // Only the canvas itself, not a node on it. (Compared with the
            // element rather than `current_target`: Yew delegates events.)
            let svg = svg_ref.cast::<Element>();
            let on_canvas = e.target().and_then(|t| t.dyn_into::<Element>().ok()).is_some_and(|t| Some(&t) == svg.as_ref());
            if !on_canvas || e.button() != 0 {
                return;
            }
            if !(e.shift_key() || e.ctrl_key() || e.meta_key() || several_now) {
                on_select.emit(Select::Clear);
            }
            if let Some(svg) = svg {
                let _ = svg.set_pointer_capture(e.pointer_id());
            }
            gesture.set(Some(Gesture::Pan { start: (e.client_x() as f64, e.client_y() as f64), view: shown }));
        })
    };
    let onpointermove = {
        let gesture = gesture.clone();
        let to_canvas = to_canvas.clone();
        let (svg_ref, view) = (svg_ref.clone(), view.clone());
        Callback::from(move |e: PointerEvent| {
            if let Some(Gesture::Pan { start, view: from }) = *gesture {
                let Some(svg) = svg_ref.cast::<Element>() else { return };
                let scale = screen_scale(&svg, from);
                let (dx, dy) = ((e.client_x() as f64 - start.0) / scale, (e.client_y() as f64 - start.1) / scale);
                if dx.hypot(dy) * scale > 2.0 {
                    view.set(Some((from.0 - dx, from.1 - dy, from.2, from.3)));
                }
                return;
            }
            let Some(at) = to_canvas(&e) else { return };
            match *gesture {
                Some(Gesture::Move { node, group, toggle, start, .. }) => {
                    gesture.set(Some(Gesture::Move { node, group, toggle, start, at }))
                }
                Some(Gesture::Connect { from, .. }) => gesture.set(Some(Gesture::Connect { from, at })),
                _ => {}
            }
        })
    };
    let onpointerup = {
        let gesture = gesture.clone();
        let to_canvas = to_canvas.clone();
        let nodes = snap.nodes.clone();
        let selected = props.selected.clone();
        let (on_move, on_connect, on_select) = (props.on_move.clone(), props.on_connect.clone(), props.on_select.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(g) = *gesture else { return };
            gesture.set(None);
            let at = to_canvas(&e);
            match g {
                Gesture::Move { node, group, toggle, start, .. } => {
                    let at = at.unwrap_or(start);
                    let (dx, dy) = (at.0 - start.0, at.1 - start.1);
                    let moved = dx.hypot(dy) > 3.0;
                    if moved {
                        on_move.emit((if group { selected.clone() } else { vec![node] }, dx, dy));
                    }
                    if toggle && !moved {
                        on_select.emit(Select::Toggle(node));
                    } else if !(group && moved) {
                        on_select.emit(Select::Only(node));
                    }
                }
                Gesture::Connect { from, .. } => {
                    if let Some(to) = at.and_then(|p| node_at(&nodes, p)).filter(|&to| to != from) {
                        on_connect.emit((from, to));
                    }
                }
                Gesture::Pan { .. } => {}
            }
        })
    };
    let onpointercancel = {
        let gesture = gesture.clone();
        Callback::from(move |_: PointerEvent| gesture.set(None))
    };

    // Only what the view shows is drawn: a scenario of thousands of blocks
    // costs the blocks on screen, and far out, plain shapes.
    let scale = pixels.map_or(1.0, |(w, h)| (w / shown.2).min(h / shown.3));
    let overview = scale < OVERVIEW_SCALE;
    // Drawn small, a block's words are drawn large and fewer.
    let compact = Compact::at(scale, if props.present { PRESENT_PX } else { LEAST_PX });
    // What is written below a block: the theory's tag, the drops.
    let below_font = compact.map_or(SMALLEST_UNITS, |c| c.font);
    let below = below_font * 1.5;
    // The large face's font, written once for every block's words.
    let large_font = compact.map(|c| AttrValue::from(format!("font-size: {}px", c.font)));
    let in_view = |(x0, y0, x1, y1): (f64, f64, f64, f64)| {
        let margin = NODE_W;
        x1 >= shown.0 - margin && x0 <= shown.0 + shown.2 + margin && y1 >= shown.1 - margin && y0 <= shown.1 + shown.3 + margin
    };
    let node_in_view = |n: &NodeView| {
        let (x, y) = place(n);
        in_view((x - NODE_W / 2.0, y - NODE_H / 2.0, x + NODE_W / 2.0, y + NODE_H / 2.0))
    };
    // Where the flow layer draws: the edges' lines and the blocks' areas,
    // following a block while it is dragged. An edge not drawn has no
    // line there (NaN: no dot, and no reach).
    let mut geometry = FlowGeometry { view: shown, ..FlowGeometry::default() };
    let edges: Vec<Html> = snap
        .edges
        .iter()
        .filter_map(|&(from, to)| {
            let ((ax, ay), (bx, by)) = (place(&snap.nodes[from]), place(&snap.nodes[to]));
            let (x1, y1, x2, y2) = (ax + NODE_W / 2.0, ay, bx - NODE_W / 2.0 - 6.0, by);
            let shown = in_view((x1.min(x2), y1.min(y2), x1.max(x2), y1.max(y2)));
            geometry.segments.push(if shown && !overview { (x1, y1, x2, y2) } else { (f64::NAN, f64::NAN, f64::NAN, f64::NAN) });
            let name = format!("edge-{}-{}", snap.nodes[from].id, snap.nodes[to].id);
            let target = props.drop_edge.as_ref().is_some_and(|(a, b)| *a == snap.nodes[from].id && *b == snap.nodes[to].id);
            shown.then(|| html! {
                <line class={classes!("edge", target.then_some("drop-target"))} data-testid={name} x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()}
                    marker-end={(!overview).then_some("url(#arrow)")} />
            })
        })
        .collect();
    // Ties beside the edges, dashed and named at their middle.
    let relations: Vec<Html> = snap
        .relations
        .iter()
        .filter(|(a, b, _)| a.max(b) < &snap.nodes.len() && !overview && (node_in_view(&snap.nodes[*a]) || node_in_view(&snap.nodes[*b])))
        .map(|&(from, to, what)| {
            let ((ax, ay), (bx, by)) = (place(&snap.nodes[from]), place(&snap.nodes[to]));
            let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
            html! {
                <g class="relation" data-relation={what}>
                    <line x1={ax.to_string()} y1={ay.to_string()} x2={bx.to_string()} y2={by.to_string()} />
                    <text x={mx.to_string()} y={(my - 4.0).to_string()} text-anchor="middle">{ what }</text>
                </g>
            }
        })
        .collect();
    geometry.covers = snap
        .nodes
        .iter()
        .filter(|n| !overview && node_in_view(n))
        .map(|n| {
            let (x, y) = place(n);
            // The body and both ports.
            (x - NODE_W / 2.0 - 7.0, y - NODE_H / 2.0 - 2.0, NODE_W + 17.0, NODE_H + 4.0)
        })
        .collect();
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
    let nodes: Vec<Html> = snap.nodes.iter().filter(|node| node_in_view(node)).map(|node| {
        let index = node.index;
        let (status, figure, more) = describe(node);
        let is_selected = props.selected.contains(&index);
        let colour = match node.kind {
            Kind::Queue => state_colour(node.state.unwrap_or(State::Ready)),
            Kind::ProductLimiter if node.state.is_some() => state_colour(node.state.unwrap_or(State::Closed)),
            Kind::Producer if node.paused => state_colour(State::SoftLimit),
            _ => "#495057",
        };
        let (x, y) = place(node);
        // Both gestures that start on a node capture the pointer, so that
        // the canvas hears where it goes.
        let start = |make: fn(usize, bool, bool, (f64, f64)) -> Gesture| {
            let (gesture, to_canvas, svg_ref) = (gesture.clone(), to_canvas.clone(), svg_ref.clone());
            Callback::from(move |e: PointerEvent| {
                e.stop_propagation();
                if e.button() != 0 {
                    return;
                }
                let Some(at) = to_canvas(&e) else { return };
                if let Some(svg) = svg_ref.cast::<Element>() {
                    let _ = svg.set_pointer_capture(e.pointer_id());
                }
                gesture.set(Some(make(index, is_selected, e.shift_key() || e.ctrl_key() || e.meta_key() || several_now, at)));
            })
        };
        let onpointerdown = if props.readonly {
            let on_select = props.on_select.clone();
            Callback::from(move |e: PointerEvent| {
                e.stop_propagation();
                if e.button() == 0 {
                    on_select.emit(if e.shift_key() || e.ctrl_key() || e.meta_key() || several_now { Select::Toggle(index) } else { Select::Only(index) });
                }
            })
        } else {
            start(|node, in_selection, toggle, at| Gesture::Move { node, group: in_selection, toggle, start: at, at })
        };
        if overview {
            // Far out: the block's shape in its colour, still to be
            // selected and moved; its name as a tooltip.
            return html! {
                <rect class={classes!("node-shape", is_selected.then_some("selected"), node.held.then_some("held"))} data-node={node.id.clone()}
                    x={(x - NODE_W / 2.0).to_string()} y={(y - NODE_H / 2.0).to_string()} width={NODE_W.to_string()} height={NODE_H.to_string()}
                    rx="10" fill={colour} {onpointerdown}>
                    <title>{ format!("{} {}", kind_label(node.kind), node.id) }</title>
                </rect>
            };
        }
        let on_port = start(|from, _, _, at| Gesture::Connect { from, at });
        let readonly = props.readonly;
        let onkeydown = {
            let selected_all = props.selected.clone();
            let on_select = props.on_select.clone();
            let on_move = props.on_move.clone();
            Callback::from(move |e: KeyboardEvent| {
                let step = if e.shift_key() { 100.0 } else { 20.0 };
                let moved = match e.key().as_str() {
                    // Pressed like a button: Tab only passes over blocks,
                    // so every block's parameters can be reached.
                    "Enter" | " " => {
                        e.prevent_default();
                        on_select.emit(if e.shift_key() { Select::Toggle(index) } else { Select::Only(index) });
                        None
                    }
                    "ArrowLeft" => Some((-step, 0.0)),
                    "ArrowRight" => Some((step, 0.0)),
                    "ArrowUp" => Some((0.0, -step)),
                    "ArrowDown" => Some((0.0, step)),
                    _ => None,
                };
                if let (Some((dx, dy)), false) = (moved, readonly) {
                    e.prevent_default();
                    on_move.emit((if is_selected { selected_all.clone() } else { vec![index] }, dx, dy));
                }
            })
        };
        let dropped: u64 = node.dropped.iter().map(|(_, n)| n).sum();
        // A queue the formulas describe says beneath it what they predict
        // beside what was measured (the tooltip and the screen reader get
        // all three figures).
        let theory_tag = match &node.theory {
            Some(Ok(TheoryView { prediction, measured, .. })) => Some(match &prediction.steady {
                Some(steady) => (
                    format!("{}: {} waiting · theory {}", prediction.name, three_figures(measured.mean_waiting), three_figures(steady.mean_waiting)),
                    theory_summary(prediction, measured, steady),
                ),
                None => {
                    let why = format!("{}: ρ ≥ 1, no steady state", prediction.name);
                    (why.clone(), why)
                }
            }),
            _ => None,
        };
        // The accessible name begins with every word drawn, in order (each
        // drawn text ends in a space that SVG does not show, so that the
        // words do not run together when read as one).
        // Drawn large and fewer: where a word was cut or a line left out,
        // the words drawn come first as drawn (the visible text is part of
        // the name), then the kind and what was not drawn whole.
        let drawn = compact.map(|c| c.lines(node.kind, &node.id, &status, &figure));
        let whole = format!("{} {}, {status}, {figure}", kind_label(node.kind), node.id);
        let mut label = match &drawn {
            Some(lines) if lines.iter().map(|(_, t, _)| t.as_str()).ne([node.id.as_str(), status.as_str(), figure.as_str()]) => {
                let shown: Vec<&str> = lines.iter().map(|(_, text, _)| text.trim_end_matches('…')).collect();
                let kind = kind_label(node.kind);
                let rest = [node.id.as_str(), status.as_str(), figure.as_str()].into_iter().filter(|t| !shown.contains(t));
                format!("{}: {}", shown.join(", "), std::iter::once(kind.as_str()).chain(rest).collect::<Vec<_>>().join(", "))
            }
            _ => whole,
        };
        if let Some((tag, summary)) = &theory_tag {
            label += &format!("; {tag}");
            if summary != tag {
                label += &format!(" ({summary})");
            }
        }
        if dropped > 0 {
            label += &format!("; {dropped} dropped");
        }
        if let Some(more) = &more {
            label += &format!(": {more}");
        }
        let takes_input = node.kind.takes_input();
        let editable = !props.readonly;
        html! {
            <g class={classes!("node", node.kind.as_str(), is_selected.then_some("selected"), node.held.then_some("held"))}
               transform={format!("translate({x},{y})")}
               data-node={node.id.clone()} data-state={node.state.map_or("", State::as_str)}
               data-paused={node.paused.to_string()}
               role="button" tabindex="0" aria-label={label} aria-pressed={is_selected.to_string()}
               {onpointerdown} {onkeydown}>
                if props.dropping.get(index).copied().unwrap_or(false) {
                    <rect class="drop-flash" x={(-NODE_W / 2.0 - 7.0).to_string()} y={(-NODE_H / 2.0 - 7.0).to_string()}
                          width={(NODE_W + 14.0).to_string()} height={(NODE_H + 14.0).to_string()} rx="15" />
                }
                <rect class="shadow" x={(-NODE_W / 2.0 + 1.0).to_string()} y={(-NODE_H / 2.0 + 2.0).to_string()}
                      width={NODE_W.to_string()} height={NODE_H.to_string()} rx="10" />
                <rect class="body" x={(-NODE_W / 2.0).to_string()} y={(-NODE_H / 2.0).to_string()}
                      width={NODE_W.to_string()} height={NODE_H.to_string()} rx="10" style={format!("stroke: {colour}")} />
                <rect class="band" x={(-NODE_W / 2.0).to_string()} y={(-NODE_H / 2.0).to_string()}
                      width="8" height={NODE_H.to_string()} rx="4" fill={colour} />
                if let (Some(compact), Some(lines)) = (compact, drawn) {
                    for (class, text, y) in lines {
                        <text class={classes!(class, "large")} x={TEXT_X.to_string()} y={y.to_string()} style={large_font.clone()}
                              fill={(class == "status").then_some(colour)} textLength={compact.squeeze(&text)} lengthAdjust="spacingAndGlyphs">{ spaced(&text) }</text>
                    }
                } else {
                    <text class="kind" x={(-NODE_W / 2.0 + 16.0).to_string()} y={(-NODE_H / 2.0 + 18.0).to_string()}>{ spaced(&kind_label(node.kind)) }</text>
                    <text class="id" x={TEXT_X.to_string()} y={(-NODE_H / 2.0 + 38.0).to_string()}
                          textLength={squeeze(&node.id, ID_EM)} lengthAdjust="spacingAndGlyphs">{ spaced(&node.id) }</text>
                    <text class="status" x={TEXT_X.to_string()} y={(-NODE_H / 2.0 + 57.0).to_string()} fill={colour}
                          textLength={squeeze(&status, STATUS_EM)} lengthAdjust="spacingAndGlyphs">{ spaced(&status) }</text>
                    <text class="figure" x={TEXT_X.to_string()} y={(-NODE_H / 2.0 + 76.0).to_string()}
                          textLength={squeeze(&figure, FIGURE_EM)} lengthAdjust="spacingAndGlyphs">{ spaced(&figure) }</text>
                }
                if node.kind == Kind::Queue {
                    { fill_bar(node) }
                }
                if let Some((tag, summary)) = &theory_tag {
                    <g class="theory-tag-group">
                        <title>{ summary }</title>
                        <text class="theory-tag" data-testid={format!("theory-tag-{}", node.id)} x={(-NODE_W / 2.0 + 4.0).to_string()} y={(NODE_H / 2.0 + below).to_string()} style={large_font.clone()}>
                            { spaced(&compact.map_or_else(|| tag.to_string(), |c| c.cut(tag))) }
                        </text>
                    </g>
                }
                if dropped > 0 {
                    <text class="drops" x={(NODE_W / 2.0 - 10.0).to_string()} y={(NODE_H / 2.0 + if theory_tag.is_some() { 2.0 * below } else { below }).to_string()} text-anchor="end" style={large_font.clone()}>{ format!("{dropped} dropped ") }</text>
                }
                if takes_input {
                    <circle class="port in" cx={(-NODE_W / 2.0).to_string()} cy="0" r="6" aria-hidden="true" />
                }
                if editable {
                    // A finger needs more than the drawn dot: an unseen
                    // circle 44 units across takes the press.
                    <circle class="port-hit" cx={(NODE_W / 2.0).to_string()} cy="0" r="22" aria-hidden="true" onpointerdown={on_port.clone()} />
                    <circle class="port out" data-port={node.id.clone()} cx={(NODE_W / 2.0).to_string()} cy="0" r="9"
                            onpointerdown={on_port}>
                        <title>{"Drag to another block to connect"}</title>
                    </circle>
                }
            </g>
        }
    }).collect();
    let zoom_by = |factor: f64| {
        let view = view.clone();
        Callback::from(move |_: MouseEvent| {
            let centre = (shown.0 + shown.2 / 2.0, shown.1 + shown.3 / 2.0);
            view.set(Some(zoom(shown, fit, factor, centre)));
        })
    };
    let on_fit = {
        let view = view.clone();
        Callback::from(move |_: MouseEvent| view.set((fit != fit_all).then_some(fit_all)))
    };
    let fitted = view.map_or(fit == fit_all, |v| v == fit_all);
    let panning = matches!(*gesture, Some(Gesture::Pan { .. }));
    html! {
      <div class="canvas">
        <div class="view-controls" role="toolbar" aria-label="View">
            <button data-testid="zoom-in" aria-label="Zoom in" title="Zoom in (or the mouse wheel)" onclick={zoom_by(1.0 / ZOOM_STEP)}>{"+"}</button>
            <button data-testid="zoom-out" aria-label="Zoom out" title="Zoom out" onclick={zoom_by(ZOOM_STEP)}>{"−"}</button>
            <button data-testid="fit" aria-label="Fit to view" title="Show every block" aria-pressed={fitted.to_string()} onclick={on_fit}>{"Fit"}</button>
            <button data-testid="several" aria-pressed={several.to_string()} title="A tap adds a block to the selection or takes it out (as Shift-click does)"
                onclick={let several = several.clone(); Callback::from(move |_: MouseEvent| several.set(!*several))}>{"Several"}</button>
        </div>
        <div class="canvas-stage">
        <svg class={classes!("graph", panning.then_some("panning"))} ref={svg_ref}
             viewBox={format!("{} {} {} {}", shown.0, shown.1, shown.2, shown.3)} role="group"
             aria-label={props.label.clone().unwrap_or_else(|| "Scenario canvas: drag the background to pan, the wheel or the buttons zoom; Shift-click, or Several then a tap, selects several blocks".into())}
             onpointerdown={on_background} {onpointermove} {onpointerup} {onpointercancel}>
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                </marker>
            </defs>
            { for relations }
            { for edges }
            { for pending }
            { for nodes }
        </svg>
        <FlowLayer geometry={Rc::new(geometry)} />
        </div>
        <FlowKey />
      </div>
    }
}
