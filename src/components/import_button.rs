//! "Import…": a button that opens the browser's file chooser and hands the
//! chosen file on.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ImportButtonProps {
    pub on_file: Callback<web_sys::File>,
}

/// "Import…": a button that opens the browser's file chooser.
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
            <button data-testid="import" title="Open a scenario file (JSON)" onclick={open}>{"⤒ Import…"}</button>
            <input ref={input} type="file" accept=".json,application/json" class="hidden-file" data-testid="import-file"
                aria-label="Scenario file to import" tabindex="-1" onchange={chosen} />
        </>
    }
}
