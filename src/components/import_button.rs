//! A button that opens the browser's file chooser and hands the chosen
//! file on: "Import…" (a scenario), or "Log…" (an access log to replay).

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ImportButtonProps {
    pub on_file: Callback<web_sys::File>,
    #[prop_or("⤒ Import…")]
    pub label: &'static str,
    #[prop_or("Open a scenario file (JSON)")]
    pub title: &'static str,
    #[prop_or(".json,application/json")]
    pub accept: &'static str,
    /// The button's test id; its file input's is this with `-file`.
    #[prop_or("import")]
    pub test_id: &'static str,
    #[prop_or("Scenario file to import")]
    pub file_label: &'static str,
}

/// A button that opens the browser's file chooser.
#[function_component(ImportButton)]
pub fn import_button(props: &ImportButtonProps) -> Html {
    let input = use_node_ref();
    let open = {
        let input = input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = input.cast::<web_sys::HtmlInputElement>() {
                input.click();
            }
        })
    };
    let chosen = {
        let on_file = props.on_file.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                on_file.emit(file);
            }
            // Choosing the same file again must fire another change.
            input.set_value("");
        })
    };
    html! {
        <>
            <button data-testid={props.test_id} title={props.title} onclick={open}>{props.label}</button>
            <input ref={input} type="file" accept={props.accept} class="hidden-file" data-testid={format!("{}-file", props.test_id)}
                aria-label={props.file_label} tabindex="-1" onchange={chosen} />
        </>
    }
}
