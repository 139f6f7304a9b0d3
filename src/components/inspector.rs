//! The inspector: every parameter of the selected node (the table in
//! `fields.rs`), each with its unit, a one-line explanation and a control,
//! changed live while the simulation runs.
//!
//! A number goes to the engine's editor as it is, with the field's path
//! (`Command::SetNumber`: set in place, typed, no JSON between); any other
//! value is written into the block's JSON at the field's path and the whole
//! block goes to the editor. The editor validates it in its scenario. A
//! refused value shows its reason inline and the last valid value stays in
//! force (the field keeps what was typed, so it can be corrected).

use serde_json::{json, Value};
use sluice_engine::scenario::choices::{kind_name, product_examples, router_examples};
use sluice_engine::sweep::NodeField;
use sluice_engine::{BlockSpec, FieldPath, NodeSpec};
use sluice_engine::units::{self, Quantity};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::config_export::ConfigExport;
use crate::components::connections::Connections;
use sluice_engine::scenario::fields::{self, Control, Unit};
use crate::components::scenario_details::ScenarioDetails;
use crate::view::long_trace;
use sluice_engine::set_at;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub spec: Option<NodeSpec>,
    /// The ids of the nodes the selected one feeds, in edge order.
    pub outputs: Vec<String>,
    /// A block's new parameters, and whether they continue the change just
    /// before (a slider still being dragged, a number still being typed):
    /// such a run of changes is one edit for Undo.
    pub on_reconfigure: Callback<(String, BlockSpec, bool), Result<(), String>>,
    /// A number for one field of a block (id, field, value, whether it
    /// continues the change before): the reason when refused.
    pub on_number: Callback<(String, FieldPath, f64, bool), Result<(), String>>,
    /// "Sweep this" on a numeric field: its `NODE.FIELD`.
    pub on_sweep: Callback<NodeField>,
    pub on_close: Callback<()>,
    /// With no block selected, the inspector shows the scenario's name and
    /// description, which it hands on changed.
    pub name: AttrValue,
    pub description: AttrValue,
    pub on_describe: Callback<(String, String)>,
    /// Blocks the selected one could feed ("Connect to…").
    pub candidates: std::rc::Rc<Vec<String>>,
    /// Connects the selected block to the one named, or disconnects it.
    pub on_connect_to: Callback<String>,
    pub on_disconnect: Callback<String>,
    /// The field of this block a lesson step asks the learner to change:
    /// pointed out, and given the focus.
    #[prop_or_default]
    pub asked: Option<FieldPath>,
    /// What the step asks, in words, beside the field.
    #[prop_or_default]
    pub asked_words: AttrValue,
    /// "Do it for me", beside the field asked for.
    #[prop_or_default]
    pub on_do_it: Callback<()>,
}

/// A parameter's new value, or why what was typed is not one.
type Typed = Result<Option<Value>, String>;

/// A number typed or slid into the field at a path (a nested parameter's
/// own), or why what was typed is not a number.
type TypedNumber = (FieldPath, Result<f64, String>);

#[function_component(Inspector)]
pub fn inspector(props: &InspectorProps) -> Html {
    // The field whose last change was refused, and why.
    let error = use_state(|| None::<(String, String)>);
    // A field is being changed: its next value continues the same edit.
    let adjusting = use_mut_ref(|| false);
    {
        let error = error.clone();
        let id = props.spec.as_ref().map(|s| s.id.clone());
        use_effect_with(id, move |_| error.set(None));
    }
    let Some(spec) = props.spec.clone() else {
        return html! {
            <section class="panel inspector" aria-label="Inspector">
                <h2>{"Inspector"}</h2>
                <p class="hint">{"Select a block on the canvas to see and change its parameters while it runs."}</p>
                <ScenarioDetails name={props.name.clone()} description={props.description.clone()} on_describe={props.on_describe.clone()} />
            </section>
        };
    };
    // A long trace (a log replayed) is shown, and edited, in words.
    let block = long_trace::shown(&spec.block);

    // A field reports each value it passes through (`input`) and then that
    // it is done (`change`, which bubbles here): the values between are one
    // change. What the editor says of a value is shown at the field (a
    // nested parameter's at the field it belongs to).
    let settle = {
        let (adjusting, error) = (adjusting.clone(), error.clone());
        move |key: String, outcome: Result<(), String>| match outcome {
            Ok(()) => {
                *adjusting.borrow_mut() = true;
                error.set(None)
            }
            Err(why) => error.set(Some((key, why))),
        }
    };
    // Writes a field's new value into the block's JSON and hands the whole
    // block to the editor (`None` for the path: the value is the block).
    let change = {
        let (settle, adjusting, on_reconfigure, id, block) =
            (settle.clone(), adjusting.clone(), props.on_reconfigure.clone(), spec.id.clone(), block.clone());
        let original = spec.block.clone();
        move |field: &FieldPath, at: Option<FieldPath>| {
            let (settle, adjusting, on_reconfigure, id, block) = (settle.clone(), adjusting.clone(), on_reconfigure.clone(), id.clone(), block.clone());
            let original = original.clone();
            let key = field.slug();
            Callback::from(move |typed: Typed| {
                let outcome = typed.and_then(|new| {
                    let next = match &at {
                        Some(path) => {
                            let mut next = block.clone();
                            set_at(&mut next, path, new).map_err(|why| why.to_string())?;
                            next
                        }
                        None => new.unwrap_or_default(),
                    };
                    let parsed = long_trace::read(&next, &original)?;
                    let continues = *adjusting.borrow();
                    on_reconfigure.emit((id.clone(), parsed, continues))
                });
                settle(key.clone(), outcome)
            })
        }
    };
    // Hands a number to the editor with its field's path.
    let number = {
        let (settle, adjusting, on_number, id) = (settle.clone(), adjusting.clone(), props.on_number.clone(), spec.id.clone());
        move |field: &FieldPath| {
            let (settle, adjusting, on_number, id) = (settle.clone(), adjusting.clone(), on_number.clone(), id.clone());
            let key = field.slug();
            Callback::from(move |(path, typed): TypedNumber| {
                let outcome = typed.and_then(|v| {
                    let continues = *adjusting.borrow();
                    on_number.emit((id.clone(), path, v, continues))
                });
                settle(key.clone(), outcome)
            })
        }
    };

    let rows = fields::fields(spec.block.kind())
        .iter()
        .filter(|field| field.shown_in(&block))
        .map(|field| {
            let path = field.path();
            let key = path.slug();
            let err = error.as_ref().filter(|(k, _)| *k == key).map(|(_, m)| m.clone());
            let on_change = match field.control {
                // A router's policy decides its other fields: choosing one
                // replaces the router with a working router of it.
                Control::Policy => {
                    let outputs = props.outputs.clone();
                    change(&path, None).reform(move |typed: Typed| {
                        let choice = typed?.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                        let router = router_examples(&outputs).into_iter().map(|(r, _)| r).find(|r| kind_name(r) == choice);
                        Ok(router.map(|r| sluice_engine::to_value(&BlockSpec::Router(r))))
                    })
                }
                // So does a product limiter's product.
                Control::Product => change(&path, None).reform(move |typed: Typed| {
                    let choice = typed?.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                    let limiter = product_examples().into_iter().map(|(p, _)| p).find(|p| kind_name(p) == choice);
                    Ok(limiter.map(|p| sluice_engine::to_value(&BlockSpec::ProductLimiter(p))))
                }),
                _ => change(&path, Some(path.clone())),
            };
            // The row holding the field asked for (itself, or the process
            // or distribution it is a parameter of).
            let asked = props.asked.as_ref().filter(|a| a.is_within(&path)).map(FieldPath::slug);
            let asked_tag = asked.as_ref().map(|_| {
                let on_do_it = props.on_do_it.reform(|_: MouseEvent| ());
                html! {
                    <p class="asked-tag" id="asked-tag" data-testid="asked-field">
                        { props.asked_words.clone() }
                        <button class="small" data-testid="asked-do-it" onclick={on_do_it}>{"Do it for me"}</button>
                    </p>
                }
            });
            let sweep = {
                let (id, on_sweep) = (spec.id.clone(), props.on_sweep.clone());
                Callback::from(move |field: FieldPath| on_sweep.emit(NodeField { node: id.clone(), field }))
            };
            // Keyed by block too: what one block's field holds half-typed
            // is not shown in another's.
            html! {
                <ParamRow key={format!("{}/{key}", spec.id)} id={key.clone()} label={field.label} unit={field.unit} help={field.help}
                    control={field.control} value={block.pointer(&path.pointer()).cloned()} error={err} {on_change}
                    on_number={number(&path)} path={path.clone()} {sweep} {asked} asked_tag={asked_tag.unwrap_or_default()} />
            }
        });

    let on_close = props.on_close.reform(|_: MouseEvent| ());
    // A field is done changing (its own handler, if any, ran first).
    let done = Callback::from(move |_: Event| *adjusting.borrow_mut() = false);
    html! {
        <section class="panel inspector" aria-label="Inspector" data-testid="inspector" onchange={done}>
            <div class="panel-head">
                <h2>{ format!("{} ", spec.id) }<span class="muted">{ crate::view::words::kind_label(spec.block.kind()) }</span></h2>
                <button class="icon" onclick={on_close} aria-label="Close the inspector">{"×"}</button>
            </div>
            <p class="hint">{ crate::view::words::describe_kind(spec.block.kind()) }</p>
            <Connections id={spec.id.clone()} outputs={props.outputs.clone()} max_outputs={spec.block.outputs().1}
                candidates={props.candidates.clone()} on_connect={props.on_connect_to.clone()} on_disconnect={props.on_disconnect.clone()} />
            { for rows }
            if spec.block.kind() == sluice_engine::scenario::Kind::ProductLimiter {
                <ConfigExport node={spec.clone()} />
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ParamRowProps {
    id: String,
    label: AttrValue,
    unit: Unit,
    help: AttrValue,
    control: Control,
    value: Option<Value>,
    #[prop_or_default]
    error: Option<String>,
    on_change: Callback<Typed>,
    /// A number, with the path of the field it is for.
    on_number: Callback<TypedNumber>,
    /// The field's place in its block, and "Sweep this", which gets the
    /// path (a nested field's own).
    path: FieldPath,
    #[prop_or_default]
    sweep: Option<Callback<FieldPath>>,
    /// A lesson step asks the learner to change this field (or one of
    /// its parameters): the slug of the field asked for.
    #[prop_or_default]
    asked: Option<String>,
    /// What is asked, and "Do it for me", shown above it.
    #[prop_or_default]
    asked_tag: Html,
}

/// One parameter: its label and unit, its control, its explanation, and
/// the reason its last value was refused.
#[function_component(ParamRow)]
fn param_row(props: &ParamRowProps) -> Html {
    let id = format!("param-{}", props.id);
    // Asked for, the field's control takes the focus (after the page has
    // drawn it), so the keyboard is where the change is made.
    let row = use_node_ref();
    use_effect_with(props.asked.clone(), {
        let row = row.clone();
        move |asked| {
            if let Some(slug) = asked.clone() {
                gloo_timers::callback::Timeout::new(60, move || {
                    let Some(row) = row.cast::<web_sys::Element>() else { return };
                    let own = row.query_selector(&format!("[id=\"param-{slug}\"]")).ok().flatten();
                    let control = own.or_else(|| row.query_selector("input, select, textarea").ok().flatten());
                    // What is asked is read with the control.
                    if let Some(control) = &control {
                        let _ = control.set_attribute("aria-describedby", "asked-tag");
                    }
                    // Not on a phone: the focus would raise its keyboard.
                    let narrow = gloo_utils::window().inner_width().ok().and_then(|w| w.as_f64()).is_some_and(|w| w <= 800.0);
                    if narrow {
                        return;
                    }
                    if let Some(control) = control.and_then(|c| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(c).ok()) {
                        let _ = control.focus();
                    }
                })
                .forget();
            }
        }
    });
    let label = html! {
        <label for={id.clone()}>
            <span class="param-label">{ &props.label }</span>
            <span class="param-unit">{ props.unit.label() }</span>
        </label>
    };
    let aria = match props.unit {
        Unit::None => props.label.to_string(),
        unit => format!("{} ({})", props.label, unit.label()),
    };
    let sweep_label = format!("Sweep this: {aria}");
    let quantity = props.unit.quantity();
    let body = match props.control {
        Control::Number { min, max, step } | Control::Whole { min, max, step } => {
            number_inputs(&id, &aria, min, max, step, quantity, &props.value, &props.path, &props.on_number)
        }
        Control::Optional { none_is } => {
            let shown = props
                .value
                .as_ref()
                .and_then(Value::as_f64)
                .filter(|v| none_is != Some(*v))
                .map(|v| v.to_string())
                .unwrap_or_default();
            let on_change = props.on_change.reform(move |e: InputEvent| {
                let text = e.target_unchecked_into::<HtmlInputElement>().value();
                match text.trim() {
                    "" => Ok(None),
                    t => read_number(t, quantity).map(|v| Some(json!(v))),
                }
            });
            html! {
                <div class="param-inputs">
                    <input type={input_type(quantity)} inputmode="decimal" class="param-number wide" id={id.clone()} data-testid={format!("{id}-number")}
                        aria-label={aria} placeholder="none" value={shown} oninput={on_change} />
                </div>
            }
        }
        Control::Text => {
            let shown = props.value.as_ref().and_then(Value::as_str).unwrap_or_default().to_string();
            let on_change = props.on_change.reform(|e: Event| {
                let text = e.target_unchecked_into::<HtmlInputElement>().value();
                Ok((!text.trim().is_empty()).then(|| json!(text.trim())))
            });
            html! {
                <div class="param-inputs">
                    <input type="text" class="param-text" id={id.clone()} data-testid={id.clone()} aria-label={aria}
                        placeholder="none" value={shown} onchange={on_change} />
                </div>
            }
        }
        Control::Choice(menu) => {
            // A field the file leaves out holds its default.
            let current = props.value.as_ref().and_then(Value::as_str).map(str::to_string).or_else(|| menu.default());
            choice(&id, &aria, &menu.entries(), current.as_deref(), props.on_change.clone())
        }
        Control::Policy => {
            let menu: Vec<(String, &str)> = router_examples(&[]).iter().map(|(r, label)| (kind_name(r), *label)).collect();
            choice(&id, &aria, &menu, props.value.as_ref().and_then(Value::as_str), props.on_change.clone())
        }
        Control::Product => {
            let menu: Vec<(String, &str)> = product_examples().iter().map(|(p, label)| (kind_name(p), *label)).collect();
            choice(&id, &aria, &menu, props.value.as_ref().and_then(Value::as_str), props.on_change.clone())
        }
        Control::Toggle => {
            let on = props.value.as_ref().and_then(Value::as_bool).unwrap_or(false);
            let on_change = props.on_change.reform(|e: Event| Ok(Some(json!(e.target_unchecked_into::<HtmlInputElement>().checked()))));
            html! {
                <div class="param-inputs">
                    <input type="checkbox" id={id.clone()} data-testid={id.clone()} aria-label={aria} checked={on} onchange={on_change} />
                    <span class="param-unit">{ if on { "yes" } else { "no" } }</span>
                </div>
            }
        }
        Control::Json => json_area(&id, &aria, &props.value, &props.on_change),
        Control::Distribution | Control::Arrivals => {
            let kinds = match props.control {
                Control::Distribution => fields::distribution_kinds(props.value.as_ref()),
                _ => fields::arrival_kinds(props.value.as_ref()),
            };
            variant(&props.id, &aria, kinds, props.unit, &props.value, &props.on_change, &props.on_number, &props.path, &props.sweep)
        }
    };
    // A distribution or an arrival process explains itself before its own
    // parameters; others after their control.
    let nested = matches!(props.control, Control::Distribution | Control::Arrivals);
    let help = (!props.help.is_empty()).then(|| html! { <p class="param-help">{ &props.help }</p> });
    // Any number can be swept.
    let sweepable = matches!(props.control, Control::Number { .. } | Control::Whole { .. });
    let sweep = props.sweep.clone().filter(|_| sweepable).map(|sweep| {
        let path = props.path.clone();
        html! {
            <button class="link sweep-this" data-testid={format!("{id}-sweep")} aria-label={sweep_label}
                onclick={Callback::from(move |_: MouseEvent| sweep.emit(path.clone()))}>{ "Sweep this" }</button>
        }
    });
    let (help_first, help_last) = if nested { (help, None) } else { (None, help) };
    html! {
        <div class={classes!("param", props.error.is_some().then_some("invalid"), nested.then_some("nested"), props.asked.is_some().then_some("asked"))}
            data-param={props.id.clone()} ref={row}>
            { props.asked_tag.clone() }
            { label }
            { help_first }
            { body }
            { for sweep }
            { help_last }
            if let Some(error) = &props.error {
                <p class="param-error" role="alert" data-testid={format!("{id}-error")}>{ error }</p>
            }
        </div>
    }
}

/// A field taking a suffix is a text field (a number field would refuse
/// the letters); the others keep the browser's number field.
fn input_type(quantity: Option<Quantity>) -> &'static str {
    if quantity.is_some() {
        "text"
    } else {
        "number"
    }
}

/// Reads a typed number, with a unit suffix where the field takes one.
fn read_number(text: &str, quantity: Option<Quantity>) -> Result<f64, String> {
    match quantity {
        Some(q) => units::parse(text, q).map_err(|why| why.to_string()),
        None => text.parse().map_err(|_| format!("\"{text}\" is not a number")),
    }
}

/// A slider and a number field side by side. What the field takes (a
/// whole number, a finite one) is the engine's to say.
#[allow(clippy::too_many_arguments)]
fn number_inputs(
    id: &str,
    aria: &str,
    min: f64,
    max: f64,
    step: f64,
    quantity: Option<Quantity>,
    value: &Option<Value>,
    path: &FieldPath,
    on_number: &Callback<TypedNumber>,
) -> Html {
    let current = value.as_ref().and_then(Value::as_f64).unwrap_or(0.0);
    let path = path.clone();
    let emit = on_number.reform(move |e: InputEvent| {
        let text = e.target_unchecked_into::<HtmlInputElement>().value();
        (path.clone(), read_number(text.trim(), quantity))
    });
    html! {
        <div class="param-inputs">
            <input type="range" id={id.to_string()} data-testid={id.to_string()} aria-label={format!("{aria}, slider")}
                min={min.to_string()} max={max.to_string()} step={step.to_string()}
                value={current.to_string()} oninput={emit.clone()} />
            <input type={input_type(quantity)} inputmode="decimal" class="param-number" aria-label={aria.to_string()} data-testid={format!("{id}-number")}
                step={step.to_string()} value={current.to_string()} oninput={emit} />
        </div>
    }
}

/// A menu of `options` (each a name as the file writes it, and its words).
fn choice(id: &str, aria: &str, options: &[(String, &'static str)], current: Option<&str>, on_change: Callback<Typed>) -> Html {
    let on_change = on_change.reform(|e: Event| Ok(Some(json!(e.target_unchecked_into::<HtmlSelectElement>().value()))));
    html! {
        <select id={id.to_string()} data-testid={id.to_string()} aria-label={aria.to_string()} onchange={on_change}>
            { for options.iter().map(|(value, label)| html! {
                <option value={value.clone()} selected={current == Some(value.as_str())}>{ *label }</option>
            }) }
        </select>
    }
}

/// A list or map as JSON text, applied when the field loses focus.
fn json_area(id: &str, aria: &str, value: &Option<Value>, on_change: &Callback<Typed>) -> Html {
    // A list too long to edit here is said in words (`long_trace`).
    if let Some(Value::String(words)) = value {
        return html! { <p class="param-words" id={id.to_string()} data-testid={id.to_string()}>{ words }</p> };
    }
    let text = value.as_ref().map(|v| serde_json::to_string(v).unwrap_or_default()).unwrap_or_default();
    html! { <JsonArea id={id.to_string()} aria={aria.to_string()} {text} on_change={on_change.clone()} /> }
}

#[derive(Properties, PartialEq)]
struct JsonAreaProps {
    id: String,
    aria: String,
    /// The value in force, as JSON text.
    text: String,
    on_change: Callback<Typed>,
}

/// The text area of [`json_area`]. What is typed stays as typed (a draft)
/// until the value in force changes: neither a redraw of the running
/// page nor a refusal takes it from under the hand that is mending it.
#[function_component(JsonArea)]
fn json_area_field(props: &JsonAreaProps) -> Html {
    let (shown, typed) = crate::browser::draft::use_draft(props.text.clone());
    let on_input = typed.reform(|e: InputEvent| e.target_unchecked_into::<HtmlTextAreaElement>().value());
    let on_change = props.on_change.reform(|e: Event| {
        let text = e.target_unchecked_into::<HtmlTextAreaElement>().value();
        if text.trim().is_empty() {
            return Ok(None);
        }
        serde_json::from_str::<Value>(&text).map(Some).map_err(|e| format!("not valid JSON: {e}"))
    });
    let rows = (shown.len() / 38 + 1).clamp(1, 8).to_string();
    html! {
        <textarea class="param-json" id={props.id.clone()} data-testid={props.id.clone()} aria-label={props.aria.clone()}
            rows={rows} spellcheck="false" placeholder="none" value={shown} oninput={on_input} onchange={on_change} />
    }
}

/// A tagged value (a distribution, an arrival process): a menu of its
/// kinds, and a row for each parameter of the chosen one. Choosing another
/// kind starts from its working example with about the same mean or rate
/// (`fields::Kinds`).
#[allow(clippy::too_many_arguments)]
fn variant(
    key: &str,
    aria: &str,
    kinds: fields::Kinds,
    unit: Unit,
    value: &Option<Value>,
    on_change: &Callback<Typed>,
    on_number: &Callback<TypedNumber>,
    path: &FieldPath,
    sweep: &Option<Callback<FieldPath>>,
) -> Html {
    let fields::Kinds { current, menu, examples, params } = kinds;
    let switch = {
        let names: Vec<String> = menu.iter().map(|(name, _)| name.clone()).collect();
        on_change.reform(move |typed: Typed| {
            let kind = typed?.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            Ok(names.iter().position(|name| *name == kind).map(|i| examples[i].clone()))
        })
    };
    let id = format!("param-{key}");
    let rows = params.iter().map(|param| {
        let sub_path = path.child(param.name);
        let sub_key = sub_path.slug();
        let on_change = {
            let value = value.clone();
            let name = param.name;
            on_change.reform(move |typed: Typed| {
                let mut whole = value.clone().unwrap_or_else(|| json!({}));
                set_at(&mut whole, &FieldPath::of(name), typed?).map_err(|why| why.to_string())?;
                Ok(Some(whole))
            })
        };
        let sub_value = value.as_ref().and_then(|v| v.get(param.name)).cloned();
        // Sliders inside a distribution scale with the value (seconds for a
        // service, bytes for a size).
        let control = match param.control {
            Control::Number { min, max, step: _ } if param.scales => {
                let v = sub_value.as_ref().and_then(Value::as_f64).unwrap_or(0.0).abs();
                let top = if v <= 0.0 { max } else { nice_ceiling(4.0 * v) };
                Control::Number { min, max: top, step: top / 1000.0 }
            }
            other => other,
        };
        // A distribution's parameter is in the unit of what it draws.
        let unit = if param.unit == Unit::None { unit } else { param.unit };
        html! {
            <div class="sub-param">
                <ParamRow key={sub_key.clone()} id={sub_key.clone()} label={param.label} unit={unit} help={param.help}
                    control={control} value={sub_value} {on_change} on_number={on_number.clone()}
                    path={sub_path} sweep={sweep.clone()} />
            </div>
        }
    });
    html! {
        <>
            { choice(&id, aria, &menu, Some(&current), switch) }
            { for rows }
        </>
    }
}

/// The smallest 1, 2 or 5 times a power of ten at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|c| *c >= v).unwrap_or(10.0 * power)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(0.3), 0.5);
        assert_eq!(nice_ceiling(1.0), 1.0);
        assert_eq!(nice_ceiling(4800.0), 5000.0);
        assert_eq!(nice_ceiling(0.0), 1.0);
    }
}
