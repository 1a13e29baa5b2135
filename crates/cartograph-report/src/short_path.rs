//! Short names for repository paths in narrow places (a cell of the findings table, a line of the
//! blast radius), so that a table fits the width of a GitHub comment.
//!
//! Two rules, both reversible by a reader: the directory every shown path shares is left off
//! (the caller says which, once, beside the table), and a path still longer than the limit keeps
//! its first directory and its last segments, with `…` for the directories between. A short name
//! never stands for two paths the document knows: where the last segments are not enough, more
//! are kept. The full paths stay where the detail is (the evidence).
//!
//! `src/airflow/api_fastapi/core_api/routes/public/asset_state_store.py`, with `src/airflow/`
//! shared by every shown path and a limit of 40, reads `api_fastapi/…/public/asset_state_store.py`.

use std::collections::BTreeSet;

use crate::diff_markdown::escape::code;

/// What shortening did to the paths a caller showed, for the note that says how to read them.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Shortened {
    /// A path lost the shared directory.
    rooted: bool,
    /// A path lost middle folders to `…`.
    elided: bool,
}

/// Shortens the paths of one document.
#[derive(Debug, Clone)]
pub(crate) struct PathShortener {
    /// The directory every shown path is under, with its final `/`; empty for none.
    root: String,
    /// Every path the document names, shown or not: a short name must not fit two of them.
    known: BTreeSet<String>,
    max_chars: usize,
}

impl PathShortener {
    /// `shown`: the paths that will be shortened (files and directories); `known`: every path of
    /// the document, `shown` included or not.
    pub(crate) fn new<'a>(
        shown: impl IntoIterator<Item = &'a str>,
        known: impl IntoIterator<Item = &'a str>,
        max_chars: usize,
    ) -> Self {
        let mut known: BTreeSet<String> = known.into_iter().map(str::to_owned).collect();
        let mut root: Option<Vec<&str>> = None;
        for path in shown {
            known.insert(path.to_owned());
            let segments: Vec<&str> = path.split('/').collect();
            // A file's directory is all but its last segment; a directory (a component) counts
            // whole, so that the shared directory of `a/b` and `a/b/c.py` is `a/b/` and `a/b`
            // itself is shown as it is.
            let dir =
                if looks_like_file(path) { &segments[..segments.len() - 1] } else { &segments };
            root = Some(match root {
                None => dir.to_vec(),
                Some(r) => r.iter().zip(dir).take_while(|(a, b)| a == b).map(|(a, _)| *a).collect(),
            });
        }
        let root = match root {
            Some(r) if !r.is_empty() && r.iter().all(|s| !s.is_empty()) => {
                format!("{}/", r.join("/"))
            }
            _ => String::new(),
        };
        Self { root, known, max_chars }
    }

    /// The directory left off every shortened path, with its final `/`; empty for none.
    #[cfg(test)]
    pub(crate) fn root(&self) -> &str {
        &self.root
    }

    /// The short name of `path`: without the shared directory, and with `…` for middle
    /// directories when it is still longer than the limit, unless that would fit another path
    /// of the document too.
    pub(crate) fn shorten(&self, path: &str) -> String {
        let rel = path.strip_prefix(self.root.as_str()).filter(|r| !r.is_empty()).unwrap_or(path);
        if rel.chars().count() <= self.max_chars {
            return rel.to_owned();
        }
        let segments: Vec<&str> = rel.split('/').collect();
        let n = segments.len();
        // The first segment, `…` for at least one, and at least the last one.
        if n < 3 {
            return rel.to_owned();
        }
        let name = |k: usize| format!("{}/…/{}", segments[0], segments[n - k..].join("/"));
        let mut k = 1;
        while k + 2 < n && name(k + 1).chars().count() <= self.max_chars {
            k += 1;
        }
        while k + 1 < n && self.ambiguous(path, segments[0], &segments[n - k..]) {
            k += 1;
        }
        if k + 1 >= n { rel.to_owned() } else { name(k) }
    }

    /// [`Self::shorten`], noting in `used` what was done to the path.
    pub(crate) fn shorten_noting(&self, path: &str, used: &mut Shortened) -> String {
        let short = self.shorten(path);
        used.rooted |= !self.root.is_empty() && path.starts_with(self.root.as_str());
        used.elided |= short.contains('…');
        short
    }

    /// The clauses that tell a reader how the paths were shortened (`` `src/airflow/` is left
    /// off``, `… stands for folders left out`); empty when none was.
    pub(crate) fn how(&self, used: Shortened) -> Vec<String> {
        let mut how = Vec::new();
        if used.rooted {
            how.push(format!("{} is left off", code(&self.root)));
        }
        if used.elided {
            how.push("… stands for folders left out".to_owned());
        }
        how
    }

    /// Another known path under the same first directory ends with the same segments.
    fn ambiguous(&self, path: &str, first: &str, tail: &[&str]) -> bool {
        let tail = tail.join("/");
        self.known.iter().any(|other| {
            if other == path {
                return false;
            }
            let rel = other.strip_prefix(self.root.as_str()).unwrap_or(other);
            rel.split('/').next() == Some(first)
                && rel.len() > tail.len()
                && rel.ends_with(tail.as_str())
                && rel[..rel.len() - tail.len()].ends_with('/')
        })
    }
}

/// A path whose last segment has an extension, or a dotted name such as `.env`.
fn looks_like_file(path: &str) -> bool {
    path.rsplit('/').next().is_some_and(|last| last.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const AIRFLOW: [&str; 4] = [
        "src/airflow/api_fastapi/core_api/routes/public/asset_state_store.py",
        "src/airflow/api_fastapi/execution_api/routes/asset_state_store.py",
        "src/airflow/models/asset_state_store.py",
        "src/airflow/ui/openapi-gen/requests/services.gen.ts",
    ];

    #[test]
    fn the_shared_directory_goes_and_long_paths_keep_their_ends() {
        let s = PathShortener::new(AIRFLOW[..1].iter().copied().chain([AIRFLOW[3]]), [], 40);
        assert_eq!(s.root(), "src/airflow/");
        assert_eq!(s.shorten(AIRFLOW[0]), "api_fastapi/…/asset_state_store.py");
        assert_eq!(s.shorten(AIRFLOW[3]), "ui/openapi-gen/requests/services.gen.ts");
        // A path outside the shared directory is shown whole.
        assert_eq!(s.shorten("docs/x.md"), "docs/x.md");
    }

    #[test]
    fn a_short_name_never_fits_two_known_paths() {
        // With a limit that keeps only the file name, the two `asset_state_store.py` under
        // `api_fastapi` would read the same: each keeps segments until it is unique.
        let s = PathShortener::new([AIRFLOW[0], AIRFLOW[3]], AIRFLOW, 30);
        assert_eq!(s.shorten(AIRFLOW[0]), "api_fastapi/…/public/asset_state_store.py");
        let s = PathShortener::new([AIRFLOW[1], AIRFLOW[3]], AIRFLOW, 30);
        assert_eq!(s.shorten(AIRFLOW[1]), "api_fastapi/…/routes/asset_state_store.py");
        // When every folder is needed to tell two paths apart, the path is shown whole.
        let known = ["a/b/c/d/x.py", "a/b/c/e/x.py", "a/b/f/d/x.py", "a/g/c/d/x.py"];
        let s = PathShortener::new(["a/b/c/d/x.py", "z/y.py"], known, 6);
        assert_eq!(s.shorten("a/b/c/d/x.py"), "a/b/c/d/x.py");
        // Without the other path known, the file name is enough.
        let s = PathShortener::new([AIRFLOW[0], AIRFLOW[3]], [], 30);
        assert_eq!(s.shorten(AIRFLOW[0]), "api_fastapi/…/asset_state_store.py");
    }

    #[test]
    fn a_component_that_is_the_shared_directory_stays_whole() {
        let shown = ["src/airflow", "src/airflow/state", "src/airflow/models/dag.py"];
        let s = PathShortener::new(shown, [], 40);
        assert_eq!(s.root(), "src/airflow/");
        assert_eq!(s.shorten("src/airflow"), "src/airflow");
        assert_eq!(s.shorten("src/airflow/state"), "state");
        assert_eq!(s.shorten("src/airflow/models/dag.py"), "models/dag.py");
    }

    #[test]
    fn the_note_says_only_what_was_done() {
        let s = PathShortener::new([AIRFLOW[0], AIRFLOW[3]], [], 40);
        let mut used = Shortened::default();
        s.shorten_noting("docs/x.md", &mut used);
        assert!(s.how(used).is_empty());
        s.shorten_noting(AIRFLOW[3], &mut used);
        assert_eq!(s.how(used), ["<code>src/airflow/</code> is left off"]);
        s.shorten_noting(AIRFLOW[0], &mut used);
        assert_eq!(s.how(used)[1], "… stands for folders left out");
    }

    #[test]
    fn no_shared_directory_and_short_paths_are_left_alone() {
        let s = PathShortener::new(["backend/app/api/items.py", "web/src/api.ts"], [], 40);
        assert_eq!(s.root(), "");
        assert_eq!(s.shorten("backend/app/api/items.py"), "backend/app/api/items.py");
        let s = PathShortener::new(["main.py"], [], 40);
        assert_eq!(s.root(), "");
        assert_eq!(s.shorten("main.py"), "main.py");
    }
}
