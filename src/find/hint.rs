//! Why nothing matched, in one sentence the model can act on: a `matchBase`
//! pattern holding `/`, a top-level-only glob whose `**/` form would match,
//! or matches that exist only in places a rule skipped (gitignored, hidden,
//! excluded), named with the option that brings them back.

use super::{select, FindConfig};
use crate::cancel::Cancel;
use crate::entry::EntryKind;
use crate::error::Result;
use crate::filter::TypeFilter;
use crate::path_bytes::posix_string;
use crate::pattern::PatternMode;
use crate::source::{walk, Root};
use crate::walk::Entry;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// How many skipped places the hint names at most.
const NAMED_PLACES: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Skip {
    Gitignored,
    Hidden,
    Excluded,
}

impl Skip {
    fn describe(self) -> &'static str {
        match self {
            Skip::Gitignored => "ignored by .gitignore/.ignore; set `gitignore: false`",
            Skip::Hidden => "hidden; set `hidden: true`",
            Skip::Excluded => "matched by `exclude`; remove that glob",
        }
    }
}

fn noun(kind: TypeFilter, n: usize) -> &'static str {
    match (kind, n == 1) {
        (TypeFilter::File, true) => "file",
        (TypeFilter::File, false) => "files",
        (TypeFilter::Dir, true) => "folder",
        (TypeFilter::Dir, false) => "folders",
        (TypeFilter::Any, true) => "entry",
        (TypeFilter::Any, false) => "entries",
    }
}

/// Called only when a search matched nothing; walks again as needed.
pub fn explain_no_match(config: &FindConfig, root: &Root, cancel: &Cancel) -> Result<Option<String>> {
    if config.matcher.mode() == PatternMode::BaseGlob && config.pattern.contains('/') {
        return Ok(Some(format!(
            "`matchBase` tests only the file name, which never contains `/`, so '{}' cannot match; drop `matchBase` to match the path relative to the search directory.",
            config.pattern
        )));
    }
    let deep = config.matcher.deep_variant(config.case_sensitive);
    let skips = config.rules.skips_anything();
    if deep.is_none() && !skips {
        return Ok(None);
    }
    let probe = deep.as_ref().unwrap_or(&config.matcher);
    let keep = select(probe, &config.filters, config.filters.needs_meta());
    // First the cheapest answer to "is there anything at all": with every
    // skip turned off. Most empty searches stop here.
    let relaxed_matches = if skips {
        let found = walk(root, &config.rules.relaxed(), cancel, || {
            |rel: &Path, kind, entry: &Entry| keep(rel, kind, entry).map(|f| (f.path, kind == EntryKind::Dir))
        })?
        .found;
        if found.is_empty() {
            return Ok(None);
        }
        found
    } else {
        Vec::new()
    };
    // Then under the normal rules: what `**/` would match, and which folders are entered.
    let seen = walk(root, &config.rules.uncounted(), cancel, || {
        |rel: &Path, kind, entry: &Entry| {
            let matched = deep.is_some() && keep(rel, kind, entry).is_some();
            (matched || (skips && kind == EntryKind::Dir)).then(|| (posix_string(rel), matched))
        }
    })?
    .found;
    let mut deep_matches: Vec<&str> = seen.iter().filter(|(_, m)| *m).map(|(p, _)| p.as_str()).collect();
    if !deep_matches.is_empty() {
        deep_matches.sort_unstable();
        let n = deep_matches.len();
        return Ok(Some(format!(
            "'{}' matches only at the top level of the search directory (`*` does not cross `/`); '{}' matches {n} {} in subfolders, e.g. `{}`.",
            config.pattern,
            probe.normalized,
            noun(config.filters.kind, n),
            deep_matches[0]
        )));
    }
    if relaxed_matches.is_empty() {
        return Ok(None);
    }
    let walked: HashSet<&str> = seen.iter().map(|(p, _)| p.as_str()).collect();
    let hidden_matches = relaxed_matches;
    let excludes = &config.rules.exclude;
    let mut places: HashMap<(String, Skip, bool), usize> = HashMap::new();
    for (path, is_dir) in &hidden_matches {
        let (place, place_is_dir) = first_skipped(path, *is_dir, &walked);
        let name = place.rsplit('/').next().unwrap_or(place);
        let reason = if !config.rules.hidden && name.starts_with('.') {
            Skip::Hidden
        } else if excludes.is_excluded(Path::new(place), place_is_dir) {
            Skip::Excluded
        } else {
            Skip::Gitignored
        };
        *places.entry((place.to_string(), reason, place_is_dir)).or_default() += 1;
    }
    let mut ranked: Vec<_> = places.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total = hidden_matches.len();
    let named: Vec<String> = ranked
        .iter()
        .take(NAMED_PLACES)
        .map(|((place, reason, is_dir), count)| {
            let slash = if *is_dir { "/" } else { "" };
            format!("`{place}{slash}` ({count}, {})", reason.describe())
        })
        .collect();
    let more = if ranked.len() > NAMED_PLACES {
        format!(" and {} more places", ranked.len() - NAMED_PLACES)
    } else {
        String::new()
    };
    Ok(Some(format!(
        "{total} {} matching '{}' {} only where the search skipped them: {}{more}.",
        noun(config.filters.kind, total),
        probe.normalized,
        if total == 1 { "exists" } else { "exist" },
        named.join(", ")
    )))
}

/// The shallowest folder on `path` that the walk under the normal rules did
/// not enter, or `path` itself when every folder above it was entered.
fn first_skipped<'p>(path: &'p str, is_dir: bool, walked: &HashSet<&str>) -> (&'p str, bool) {
    for (at, _) in path.match_indices('/') {
        let ancestor = &path[..at];
        if !walked.contains(ancestor) {
            return (ancestor, true);
        }
    }
    (path, is_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_skipped_is_the_shallowest_unwalked_folder() {
        let walked: HashSet<&str> = ["src", "src/a"].into_iter().collect();
        assert_eq!(first_skipped("node_modules/x/y.js", false, &walked), ("node_modules", true));
        assert_eq!(first_skipped("src/a/.env", false, &walked), ("src/a/.env", false));
        assert_eq!(first_skipped("src/b/c/d.js", false, &walked), ("src/b", true));
    }

    #[test]
    fn nouns_follow_type_and_count() {
        assert_eq!(noun(TypeFilter::File, 1), "file");
        assert_eq!(noun(TypeFilter::Dir, 2), "folders");
        assert_eq!(noun(TypeFilter::Any, 3), "entries");
    }
}
