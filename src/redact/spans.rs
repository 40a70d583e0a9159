//! Byte ranges sorted by start and disjoint, joined by one sweep over both lists.

use std::ops::Range;

/// Every byte in `a` or `b` (each sorted and disjoint), as sorted disjoint ranges; ranges that
/// touch are joined.
pub fn union(a: &[Range<usize>], b: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = if j == b.len() || (i < a.len() && a[i].start <= b[j].start) {
            i += 1;
            &a[i - 1]
        } else {
            j += 1;
            &b[j - 1]
        };
        match out.last_mut() {
            Some(last) if next.start <= last.end => last.end = last.end.max(next.end),
            _ => out.push(next.clone()),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // a list of one range is what is meant
mod tests {
    use super::*;

    #[test]
    fn union_joins_overlapping_and_touching_ranges() {
        assert_eq!(
            union(&[0..2, 5..7], &[1..3, 7..8, 10..11]),
            [0..3, 5..8, 10..11]
        );
        assert_eq!(union(&[], &[1..2]), [1..2]);
        assert_eq!(union(&[0..10], &[2..3, 4..5]), [0..10]);
    }
}
