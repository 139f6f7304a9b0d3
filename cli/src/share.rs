//! `sluice share`: the link that opens a scenario (at an instant of its
//! run, paused) or a lesson (at a step) in the page.

use std::io::{self, Write};

use sluice_engine::SimTime;

use crate::load;

/// The link that opens a scenario file, or a lesson at a step, in the page
/// served at `page`. A link longer than a QR code holds is said on
/// standard error (the link is printed all the same).
pub fn link(file: Option<&str>, lesson: Option<u32>, step: Option<u32>, at: Option<f64>, page: &str) -> Result<String, String> {
    use sluice_engine::share::{Link, QR_CODE_CHARS};
    let link = match (file, lesson) {
        (_, Some(number)) => {
            sluice_engine::lesson::linked(&sluice_engine::lesson::catalogue(), number, step).map_err(|e| e.to_string())?;
            Link::Lesson { number, step }
        }
        (Some(_), None) if step.is_some() => return Err("--step opens a step of a lesson: give --lesson N too".into()),
        (Some(file), None) => match at {
            Some(t) if !(0.0..=1e9).contains(&t) => return Err(format!("--at must be between 0 and 1e9 seconds, got {}", crate::given(t))),
            Some(t) => Link::scenario_at(&load(file)?, SimTime::from_secs_f64(t)),
            None => Link::scenario(&load(file)?),
        },
        (None, None) => return Err("give a scenario file or --lesson N".into()),
    };
    let link = format!("{page}{}", link.fragment());
    if link.len() > QR_CODE_CHARS {
        let _ = writeln!(io::stderr(), "sluice: the link is {} characters, more than a QR code holds ({QR_CODE_CHARS})", link.len());
    }
    Ok(format!("{link}\n"))
}
