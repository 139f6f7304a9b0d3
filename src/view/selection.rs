//! A change of the selection, asked for by position where the blocks are
//! drawn (the canvas, the event log, variant B's canvas) in the same words.
//! The page keeps the selection by block id and makes each change to it
//! through the positions of the blocks now (`app/editing.rs`); the last one
//! selected is the one the inspector shows.

/// A change of the selection asked for on the canvas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Select {
    /// This node alone.
    Only(usize),
    /// This node added to the selection, or taken out of it.
    Toggle(usize),
    /// Nothing.
    Clear,
}

impl Select {
    /// `selected` with this change made.
    pub fn applied_to(self, selected: &[usize]) -> Vec<usize> {
        let mut next = selected.to_vec();
        match self {
            Select::Only(i) => next = vec![i],
            Select::Toggle(i) => match next.iter().position(|&j| j == i) {
                Some(k) => {
                    next.remove(k);
                }
                None => next.push(i),
            },
            Select::Clear => next.clear(),
        }
        next
    }

    /// The same change with its node mapped by `to` (none: the node has no
    /// counterpart, and nothing changes).
    pub fn map(self, to: impl Fn(usize) -> Option<usize>) -> Option<Select> {
        match self {
            Select::Only(i) => to(i).map(Select::Only),
            Select::Toggle(i) => to(i).map(Select::Toggle),
            Select::Clear => Some(Select::Clear),
        }
    }
}
