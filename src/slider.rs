//! One numeric parameter: a slider and a field side by side, with its unit,
//! a one-line explanation, and an inline error when a value is refused.

use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SliderProps {
    pub label: AttrValue,
    pub unit: AttrValue,
    pub help: AttrValue,
    pub min: f64,
    pub max: f64,
    pub step: f64,
    pub value: f64,
    /// The id used by tests and labels.
    pub name: AttrValue,
    pub on_change: Callback<f64>,
    #[prop_or_default]
    pub error: Option<String>,
}

#[function_component(Slider)]
pub fn slider(props: &SliderProps) -> Html {
    let emit = |on_change: Callback<f64>| {
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().trim().parse::<f64>() {
                if v.is_finite() {
                    on_change.emit(v);
                }
            }
        })
    };
    let id = format!("param-{}", props.name);
    html! {
        <div class={classes!("param", props.error.is_some().then_some("invalid"))}>
            <label for={id.clone()}>
                <span class="param-label">{ &props.label }</span>
                <span class="param-unit">{ &props.unit }</span>
            </label>
            <div class="param-inputs">
                <input type="range" id={id.clone()} data-testid={id.clone()}
                    min={props.min.to_string()} max={props.max.to_string()} step={props.step.to_string()}
                    value={props.value.to_string()} oninput={emit(props.on_change.clone())} />
                <input type="number" class="param-number" aria-label={format!("{} ({})", props.label, props.unit)}
                    data-testid={format!("{id}-number")}
                    min={props.min.to_string()} max={props.max.to_string()} step={props.step.to_string()}
                    value={props.value.to_string()} oninput={emit(props.on_change.clone())} />
            </div>
            <p class="param-help">{ &props.help }</p>
            if let Some(error) = &props.error {
                <p class="param-error" role="alert" data-testid={format!("{id}-error")}>{ error }</p>
            }
        </div>
    }
}
