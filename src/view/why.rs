//! A cause chain as the page shows it: each link's instant, block and
//! sentence, the first the thing asked about.

use sluice_engine::explain::{Chain, Divergence, Subject};

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

    /// Where A and B part: A's chain, then B's, each line saying whose,
    /// every block by its index in A (`index_in_a`, by id).
    pub fn parted(d: &Divergence, index_in_a: impl Fn(&str) -> Option<usize>) -> WhyView {
        let mut links = Vec::new();
        for (run, chain) in [("A", &d.a), ("B", &d.b)] {
            for l in chain.iter().flat_map(|c| &c.links) {
                if let Some(node) = index_in_a(&l.node_id) {
                    links.push(WhyLink { at_s: l.at.as_secs_f64(), node, node_id: l.node_id.clone(), text: format!("{run}: {}", l.text) });
                }
            }
        }
        WhyView { asked: format!("A and B part at {:.3} s, at {}: {}", d.at.as_secs_f64(), d.id, d.says), links }
    }
}
