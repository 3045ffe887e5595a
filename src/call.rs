//! What every call (`find`, `searchFiles`, `explain`) does before its walk,
//! and the parts of the answer they share: the search folder opened in its
//! backend (sandbox and policy already passed), git scoping joined to it
//! (the walk's rules narrowed to the changed files, the status letters and
//! the sentence a result carries), and the sentences of a result joined.

use crate::calls_in_flight::CallInFlight;
use crate::cancel::Cancel;
use crate::git_scope;
use crate::git_status::{ChangedPaths, GitAsk};
use crate::sandbox::Scope;
use crate::source::{Root, Source};
use crate::walk::WalkRules;
use std::borrow::Cow;

/// The options of a call that its preparation reads, and a copy of them
/// with other walk rules.
pub trait CallOptions: Clone {
    fn source(&self) -> &Source;
    fn scope(&self) -> &Scope;
    fn rules(&self) -> &WalkRules;
    fn with_rules(&self, rules: WalkRules) -> Self;
}

/// A call ready to walk.
pub struct Prepared<'c, C: CallOptions> {
    /// The options, with the walk rules git scoping narrowed.
    pub options: Cow<'c, C>,
    pub root: Root,
    /// With `gitStatus`: the changed files, whose letters the result shows.
    pub status: Option<ChangedPaths>,
    /// The sentence the result carries about git scoping, if any.
    pub git_note: Option<String>,
    /// Counted until the answer is made: background work waits meanwhile.
    pub in_flight: Option<CallInFlight>,
}

/// Opens the search folder of `options` and applies `git` to it.
pub fn prepare<'c, C: CallOptions>(
    options: &'c C,
    git: &GitAsk,
    cancel: &Cancel,
) -> crate::error::Result<Prepared<'c, C>> {
    cancel.check()?;
    // A host's storage is read by JS, not by this process's cores: not counted.
    let in_flight = (!matches!(options.source(), Source::Storage(_))).then(CallInFlight::begin);
    let root = options.source().open(options.scope(), cancel)?;
    let roots = options.scope().roots.as_deref();
    let applied = git_scope::apply(git, &root, roots, options.rules(), cancel)?;
    let options = match applied.rules {
        Some(rules) => Cow::Owned(options.with_rules(rules)),
        None => Cow::Borrowed(options),
    };
    Ok(Prepared { options, root, status: applied.status, git_note: applied.note, in_flight })
}

/// `first` and `then` as one text, in that order, whichever are present.
pub fn join_sentences(first: Option<String>, then: Option<String>) -> Option<String> {
    match (first, then) {
        (Some(first), Some(then)) => Some(format!("{first} {then}")),
        (first, then) => first.or(then),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_join_in_order_whichever_are_there() {
        let s = |t: &str| Some(t.to_string());
        assert_eq!(join_sentences(s("A."), s("B.")), s("A. B."));
        assert_eq!(join_sentences(None, s("B.")), s("B."));
        assert_eq!(join_sentences(s("A."), None), s("A."));
        assert_eq!(join_sentences(None, None), None);
    }
}
