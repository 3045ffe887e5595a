//! `maxTokens` on `searchFiles`: the model text is made to fit
//! `maxTokens × BYTES_PER_TOKEN` bytes. A content result that must be cut
//! (by `maxResults` or by the budget) shows matching lines spread across
//! files rather than the first file's many: every matching file gets its
//! first line before any gets a second, then each further line goes to the
//! file with the most matching lines not yet shown (ties in path order).
//! The lines are chosen from the counts alone, so each file is read once,
//! for as many lines as it was given; then the largest number of them
//! whose text fits is kept (found by halving, rendering each try). A file
//! list or count list keeps its first items that fit. Either way the
//! result says how many of how many it shows; it has no cursor (the lines
//! shown are not a start of the answer): to page, leave `maxTokens` out.

use super::content::Scan;
use super::matcher::ContentMatcher;
use super::pages::{lines_searcher, reread};
use super::render::render;
use super::select::Hit;
use super::{Context, LineMatch, SearchItems, SearchOutcome};
use crate::cancel::Cancel;
use crate::error::Result;
use crate::source::Root;

/// The lines a fair cut shows, as `(index in hits, how many)` in the order
/// they are given: first lines of every file, then one at a time to the
/// file with the most left; at most `max` in all.
fn fair_order(counts: &[u64], max: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..counts.len()).take(max).collect();
    let mut given: Vec<u64> = counts.iter().map(|&c| u64::from(c > 0)).collect();
    while order.len() < max {
        let next = (0..counts.len())
            .filter(|&i| counts[i] > given[i])
            .max_by(|&a, &b| (counts[a] - given[a]).cmp(&(counts[b] - given[b])).then(b.cmp(&a)));
        let Some(i) = next else { break };
        given[i] += 1;
        order.push(i);
    }
    order
}

/// Cuts `outcome` until its text fits `budget` bytes; `hits` are its files
/// in path order (content mode), `max` its `maxResults`.
#[allow(clippy::too_many_arguments)]
pub(super) fn fit(
    outcome: &mut SearchOutcome,
    hits: &[Hit],
    root: &Root,
    regex: Option<&ContentMatcher>,
    context: Context,
    max: usize,
    budget: usize,
    cancel: &Cancel,
) -> Result<()> {
    let fair = regex.is_some() && outcome.offset.is_none() && matches!(outcome.items, SearchItems::Matches(_));
    let cut_already = outcome.truncated;
    if !cut_already && render(outcome).len() <= budget {
        return Ok(());
    }
    outcome.cursor = None;
    outcome.truncated = true;
    if let (true, Some(regex)) = (fair, regex) {
        let counts: Vec<u64> = hits.iter().map(|h| h.count).collect();
        let order = fair_order(&counts, max);
        let mut quota = vec![0usize; hits.len()];
        for &i in &order {
            quota[i] += 1;
        }
        let lines = read_lines(hits, &quota, root, regex, context, cancel)?;
        let pick = |k: usize| {
            let mut taken = vec![0usize; hits.len()];
            for &i in &order[..k] {
                taken[i] += 1;
            }
            let matches: Vec<LineMatch> =
                lines.iter().zip(&taken).flat_map(|(file, &n)| file.iter().take(n).cloned()).collect();
            SearchItems::Matches(matches)
        };
        // Said in the text, so set before the text is measured.
        outcome.spread = true;
        outcome.items = largest_fitting(outcome, order.len(), budget, pick);
    } else {
        let all = std::mem::replace(&mut outcome.items, SearchItems::Files(Vec::new()));
        let n = match &all {
            SearchItems::Matches(m) => m.len(),
            SearchItems::Files(f) => f.len(),
            SearchItems::Counts(c) => c.len(),
        };
        let prefix = |k: usize| match &all {
            SearchItems::Matches(m) => SearchItems::Matches(m[..k].to_vec()),
            SearchItems::Files(f) => SearchItems::Files(f[..k].to_vec()),
            SearchItems::Counts(c) => SearchItems::Counts(c[..k].to_vec()),
        };
        outcome.items = largest_fitting(outcome, n, budget, prefix);
    }
    Ok(())
}

/// `items(k)` for the largest `k ≤ n` whose text fits (at least 0).
fn largest_fitting(
    outcome: &mut SearchOutcome,
    n: usize,
    budget: usize,
    items: impl Fn(usize) -> SearchItems,
) -> SearchItems {
    let fits = |outcome: &mut SearchOutcome, k: usize| {
        outcome.items = items(k);
        render(outcome).len() <= budget
    };
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(outcome, mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    items(lo)
}

/// Each file's first `quota[i]` matching lines (with their context).
fn read_lines(
    hits: &[Hit],
    quota: &[usize],
    root: &Root,
    regex: &ContentMatcher,
    context: Context,
    cancel: &Cancel,
) -> Result<Vec<Vec<LineMatch>>> {
    let mut searcher = lines_searcher(context, 1);
    let mut out = Vec::with_capacity(hits.len());
    for (hit, &n) in hits.iter().zip(quota) {
        if n == 0 {
            out.push(Vec::new());
            continue;
        }
        cancel.check()?;
        let found = reread(root, hit, &mut searcher, regex, Scan::Lines(n), cancel)?;
        out.push(found.lines);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::fair_order;

    #[test]
    fn every_file_first_then_the_fullest() {
        // Files with 5, 1 and 3 matching lines, 6 lines to give.
        assert_eq!(fair_order(&[5, 1, 3], 6), vec![0, 1, 2, 0, 0, 0]);
        assert_eq!(fair_order(&[5, 1, 3], 7), vec![0, 1, 2, 0, 0, 0, 2]);
        // Fewer lines than files: the first files in path order.
        assert_eq!(fair_order(&[5, 1, 3], 2), vec![0, 1]);
        // More to give than there are lines: every line once.
        assert_eq!(fair_order(&[2, 1], 10), vec![0, 1, 0]);
    }
}
