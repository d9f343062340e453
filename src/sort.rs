//! One compiled sort for the crate's small sorts.
//!
//! Every `slice::sort_by` call with a closure of its own is a copy of the standard library's
//! stable sort in the binary (about 7 kB of wasm each; thirty of them were 0.22 MB of the
//! release wasm: BENCHMARKS.md, "Size of the plugin"). These functions sort a list of positions
//! with one comparator type, through the one copy compiled here, then move the items into that
//! order. They cost an indirect call per comparison, so they are for lists a search, a listing
//! or a save sorts once (hits, paths, checkpoints), not for inner loops.
//!
//! The same goes for `collect` into a `BTreeMap`, a `BTreeSet` or a `serde_json::Map`: it sorts a
//! buffer first, with a copy of the sort per call site, so small ones are built by
//! [`by_insertion`].

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal items in their order, as `slice::sort_by` does.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` by `key`, keeping equal items in their order, as `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `ranges` sorted by their start, those that overlap or touch made one (highlights of words
/// found in a text: CJK bigrams `录音` + `音机` are one).
pub fn merged_ranges(mut ranges: Vec<std::ops::Range<usize>>) -> Vec<std::ops::Range<usize>> {
    sort_by_key(&mut ranges, |r| r.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Sorts `items` in ascending order, keeping equal items in their order, as `slice::sort` does.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// A `BTreeMap`, `BTreeSet` or `serde_json::Map` of `items`, inserted one by one: what `collect`
/// gives (the last value of a repeated key wins), without the sort `collect` runs first.
pub fn by_insertion<C: Default + Extend<T>, T>(items: impl IntoIterator<Item = T>) -> C {
    let mut built = C::default();
    built.extend(items);
    built
}

/// The positions `0..len` in the order `compare` puts the items there: the one instantiation of
/// the standard library's sort behind every function above.
fn stable_order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves `items[order[i]]` to position `i`, following each cycle of the permutation once.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut at = start;
        loop {
            let from = std::mem::replace(&mut order[at], DONE);
            // The cycle closes: `at` already holds what was at `start` (or nothing moves).
            if from == start || from == DONE {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_library_does_and_keeps_ties_in_order() {
        // Pairs with many equal keys: a stable sort keeps their second fields in input order.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for len in [0usize, 1, 2, 3, 7, 20, 64, 257, 1000] {
            let items: Vec<(u8, u32)> = (0..len as u32)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ((state % 5) as u8, i)
                })
                .collect();
            let (mut ours, mut expected) = (items.clone(), items.clone());
            sort_by_key(&mut ours, |p| p.0);
            expected.sort_by_key(|p| p.0);
            assert_eq!(ours, expected, "by key, {len} items");

            let (mut ours, mut expected) = (items.clone(), items.clone());
            sort_by(&mut ours, |a, b| b.0.cmp(&a.0));
            expected.sort_by_key(|p| std::cmp::Reverse(p.0));
            assert_eq!(ours, expected, "descending, {len} items");

            let (mut ours, mut expected) = (items.clone(), items);
            sort(&mut ours);
            expected.sort();
            assert_eq!(ours, expected, "whole items, {len} items");
        }
    }

    #[test]
    fn moves_items_that_are_not_copy() {
        let mut names: Vec<String> = ["pear", "apple", "fig", "banana", "apple"].map(String::from).to_vec();
        sort(&mut names);
        assert_eq!(names, ["apple", "apple", "banana", "fig", "pear"]);
    }
}
