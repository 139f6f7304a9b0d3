//! Halving a bounded history: neighbours merged pairwise, so that a series
//! of fixed length covers twice the time at half the resolution. The depth
//! series, the state strips and the page's samples all halve this way.

/// `items` with each neighbouring pair merged into one by `merge` (the
/// first and second of the pair, in order); an odd last item is kept as
/// it is.
pub fn merge_pairs<T: Copy>(items: &[T], merge: impl Fn(T, T) -> T) -> Vec<T> {
    items
        .chunks(2)
        .map(|pair| match *pair {
            [a, b] => merge(a, b),
            [a] => a,
            _ => unreachable!("chunks(2) yields one or two"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_merge_in_order_and_an_odd_last_one_stays() {
        assert_eq!(merge_pairs(&[1, 2, 3, 4, 5], |a, b| a + b), vec![3, 7, 5]);
        assert_eq!(merge_pairs(&[1, 2, 3, 4], |a, _| a), vec![1, 3]);
        assert_eq!(merge_pairs::<u8>(&[], |a, _| a), Vec::<u8>::new());
    }
}
