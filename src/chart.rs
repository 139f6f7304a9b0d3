//! The depth chart of one node, drawn with plotters on a canvas, with the
//! soft and hard thresholds as lines.

use std::rc::Rc;

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::snapshot::{state_colour, DepthSeries};

#[derive(Properties, PartialEq)]
pub struct DepthChartProps {
    pub series: Rc<DepthSeries>,
}

fn rgb(hex: &str) -> RGBColor {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

fn draw(canvas: HtmlCanvasElement, series: &DepthSeries) -> Result<(), Box<dyn std::error::Error>> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    let points = &series.points;
    let t_max = points.last().map_or(1.0, |p| p.t_s).max(1.0);
    let peak = points.iter().map(|p| p.max).max().unwrap_or(0);
    let y_max = [peak, series.soft_messages, series.hard_messages, 10].into_iter().max().unwrap_or(10) as f64 * 1.1;

    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(44)
        .y_label_area_size(62)
        .build_cartesian_2d(0f64..t_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc("simulation time (s)")
        .y_desc("messages")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .x_label_formatter(&|t| format!("{t:.1}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(RGBColor(241, 243, 245))
        .draw()?;

    let band = rgb("#a5d8ff");
    chart.draw_series(points.iter().map(|p| {
        Rectangle::new([(p.t_s, p.min as f64), (p.t_s, p.max as f64)], band.stroke_width(2))
    }))?;
    chart
        .draw_series(LineSeries::new(points.iter().map(|p| (p.t_s, p.last as f64)), rgb("#1c7ed6").stroke_width(2)))?
        .label(format!("depth of {}", series.node))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], rgb("#1c7ed6").stroke_width(2)));

    for (limit, name, colour) in [
        (series.soft_messages, "soft limit", state_colour("SoftLimit")),
        (series.hard_messages, "hard limit", state_colour("HardLimit")),
    ] {
        if limit == 0 {
            continue;
        }
        let c = rgb(colour);
        chart
            .draw_series(DashedLineSeries::new(
                vec![(0.0, limit as f64), (t_max, limit as f64)],
                8,
                5,
                c.stroke_width(2),
            ))?
            .label(format!("{name} ({limit})"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(206, 212, 218))
        .label_font(("sans-serif", 13))
        .draw()?;
    root.present()?;
    Ok(())
}

#[function_component(DepthChart)]
pub fn depth_chart(props: &DepthChartProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let series = props.series.clone();
        use_effect_with(series, move |series| {
            if let Some(element) = canvas.cast::<HtmlCanvasElement>() {
                if let Err(e) = draw(element, series) {
                    web_sys::console::warn_1(&format!("depth chart: {e}").into());
                }
            }
        });
    }
    html! {
        <figure class="chart">
            <figcaption>{ format!("Depth of {} over time", props.series.node) }</figcaption>
            <canvas ref={canvas} width="780" height="260" data-testid="depth-chart"
                role="img" aria-label={format!("Chart of the depth of {} with its soft and hard thresholds", props.series.node)} />
        </figure>
    }
}
