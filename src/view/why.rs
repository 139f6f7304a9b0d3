//! A cause chain as the page shows it: each link's instant, block and
//! sentence, the first the thing asked about.

use sluice_engine::explain::{Chain, Subject};

/// What the Why panel shows.
#[derive(Clone, Debug, PartialEq)]
pub struct WhyView {
    /// What was asked about, in a few words ("sender at 41.203 s").
    pub asked: String,
    pub links: Vec<WhyLink>,
}

/// One link: clicking it shows the run at `at_s` with `node` selected.
#[derive(Clone, Debug, PartialEq)]
pub struct WhyLink {
    pub at_s: f64,
    pub node: usize,
    pub node_id: String,
    pub text: String,
}

impl WhyView {
    pub fn of(subject: &Subject, chain: &Chain, node_id: &str) -> WhyView {
        let links = chain.links.iter().map(|l| WhyLink { at_s: l.at.as_secs_f64(), node: l.node, node_id: l.node_id.clone(), text: l.text.clone() }).collect();
        WhyView { asked: format!("{node_id} at {:.3} s", subject.at().as_secs_f64()), links }
    }
}
