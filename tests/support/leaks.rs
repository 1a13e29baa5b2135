//! The leak check every output channel of every binary is held to (SPEC: no absolute machine path,
//! no source text, no environment value, no credential in any output, error, log or MCP response):
//! one copy, included by `#[path]` from the tests that run the binaries.
//!
//! A machine path is found by its shape, not by a list of known prefixes: any rooted path at a
//! token boundary — `/x/…`, `\\server\…`, `C:\…`, `C:/…`, `~/…` — is one unless it is a URL path
//! (a route template such as `/api/items/{id}`). Telling the two apart uses only what a URL path
//! cannot be: its first segment is not a top-level directory of a file system — of this machine
//! (read from `/` when the test runs), of the systems the tool ships for (the list below, written
//! independently of the redactor's), or of any root this test process knows (its temporary
//! directory, raw and canonical — `/var/folders/…` and `/private/var/…` on macOS — its working
//! directory, the workspace, `HOME`). Those roots are also looked for anywhere in the text.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;

/// Top-level directories of Linux, macOS and Windows file systems and of CI runners' layouts.
const FILE_SYSTEM_ROOTS: &[&str] = &[
    "Applications",
    "Library",
    "Network",
    "System",
    "Users",
    "Volumes",
    "__w",
    "bin",
    "boot",
    "builds",
    "cores",
    "data",
    "dev",
    "etc",
    "github",
    "home",
    "lib",
    "lib64",
    "media",
    "mnt",
    "nix",
    "opt",
    "private",
    "proc",
    "root",
    "run",
    "runner",
    "sbin",
    "snap",
    "srv",
    "sys",
    "tmp",
    "usr",
    "var",
    "work",
    "workspace",
];

/// What the check knows of this machine.
pub struct LeakCheck {
    /// Absolute roots this process knows, longest first; none may appear anywhere.
    roots: Vec<String>,
    /// First segments that make a rooted path a file-system path.
    top_dirs: BTreeSet<String>,
    /// Strings planted in analysed sources (or given as environment values) that must never come
    /// out.
    markers: Vec<String>,
}

impl LeakCheck {
    /// The check for this process, with `markers` that must never appear and `extra_roots` (temp
    /// trees the test made) added to the roots it knows.
    pub fn new(markers: &[String], extra_roots: &[&Path]) -> Self {
        let mut roots = Vec::new();
        let mut known: Vec<std::path::PathBuf> =
            vec![std::env::temp_dir(), Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")];
        known.extend(std::env::current_dir().ok());
        known.extend(std::env::var_os("HOME").map(Into::into));
        known.extend(extra_roots.iter().map(|p| p.to_path_buf()));
        for path in known {
            for form in [Some(path.clone()), path.canonicalize().ok()].into_iter().flatten() {
                let text = form.to_string_lossy().trim_end_matches(['/', '\\']).to_owned();
                if text.len() > 1 && !roots.contains(&text) {
                    roots.push(text);
                }
            }
        }
        roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
        let mut top_dirs: BTreeSet<String> =
            FILE_SYSTEM_ROOTS.iter().map(|s| (*s).to_owned()).collect();
        if let Ok(entries) = std::fs::read_dir("/") {
            top_dirs
                .extend(entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()));
        }
        for root in &roots {
            if let Some(first) = root.trim_start_matches('/').split('/').next() {
                top_dirs.insert(first.to_owned());
            }
        }
        top_dirs.retain(|d| !d.is_empty());
        Self { roots, top_dirs, markers: markers.to_vec() }
    }

    /// Every leak in `text`, each described without quoting more than the offending token.
    pub fn leaks(&self, text: &str) -> Vec<String> {
        let mut found = Vec::new();
        for marker in &self.markers {
            if text.contains(marker.as_str()) {
                found.push(format!("planted marker {marker}"));
            }
        }
        for root in &self.roots {
            if text.contains(root.as_str()) {
                found.push(format!("a root of this machine ({} characters)", root.len()));
            }
        }
        for (token, after_method) in rooted_tokens(text) {
            if !after_method && self.is_machine_path(token) {
                found.push(format!("machine path {token}"));
            }
        }
        found
    }

    /// Panics naming the channel and the leaks when `text` has any.
    pub fn assert_clean(&self, channel: &str, text: &str) {
        let leaks = self.leaks(text);
        assert!(leaks.is_empty(), "{channel} leaks: {}", leaks.join("; "));
    }

    fn is_machine_path(&self, token: &str) -> bool {
        if token.starts_with('~') || token.starts_with("\\\\") || has_drive(token) {
            return true;
        }
        // A top-level directory alone (`/home`, `/tmp`) names no one's files; with a name under it,
        // it does.
        let mut segments = token.trim_start_matches(['/', '\\']).split(['/', '\\']);
        let first = segments.next().unwrap_or("");
        self.top_dirs.contains(first) && segments.next().is_some_and(|s| !s.is_empty())
    }
}

fn has_drive(token: &str) -> bool {
    let b = token.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\')
}

/// Whether a rooted path may begin after `prev` (`None`: the start of the text). Also after an
/// escaped quote (`\"`) in JSON and after Markdown's `>`, `|` and `*`.
fn is_boundary(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '`' | '(' | '[' | '{' | '=' | ',' | ';' | '>' | '|' | '*'
                )
        }
    }
}

fn is_end(c: char) -> bool {
    c.is_whitespace()
        || matches!(c, '"' | '\'' | '`' | ')' | ']' | '}' | ',' | ';' | '<' | '>' | '|' | '*')
}

/// HTTP methods: a rooted token right after one and a space (`GET /x`) is a route template.
const METHODS: &[&str] =
    &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "ANY", "ALL"];

/// The rooted tokens of `text` — `/name…`, `\\name…`, `~/…` or `X:\…`/`X:/…` at a boundary, up to
/// the next end character — each with whether it follows an HTTP method and a space. A lone `/`
/// or `//` (as in a URL's scheme) is not one.
pub fn rooted_tokens(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let prev = if i == 0 { None } else { Some(chars[i - 1].1) };
        let next = chars.get(i + 1).map(|(_, c)| *c);
        let next2 = chars.get(i + 2).map(|(_, c)| *c);
        let starts = is_boundary(prev)
            && match c {
                '/' => next.is_some_and(|n| n.is_alphanumeric() || n == '_' || n == '.'),
                '\\' => next == Some('\\') && next2.is_some_and(char::is_alphanumeric),
                '~' => next == Some('/'),
                c if c.is_ascii_alphabetic() => {
                    next == Some(':')
                        && matches!(next2, Some('/') | Some('\\'))
                        && chars.get(i + 3).is_some_and(|(_, c)| *c != '/')
                }
                _ => false,
            };
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && !is_end(chars[j].1) {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |(at, _)| *at);
        let before = text[..at].strip_suffix(' ').unwrap_or("");
        let word = before.rsplit(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
        let after_method = text[..at].ends_with(' ') && METHODS.contains(&word);
        // JSON escapes: a token ending in a backslash is the start of `\"`.
        out.push((text[at..end].trim_end_matches('\\'), after_method));
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_machine_paths_of_every_system_and_spares_routes() {
        let check = LeakCheck::new(&["MARKER-1".to_owned()], &[]);
        for leak in [
            "error: cannot read /var/folders/ab/T/x.py",
            "at \"/private/tmp/x\"",
            "C:\\Users\\a\\x.py",
            "see d:/work/x.ts",
            "\\\\server\\share\\x",
            "~/src/app.py",
            "`/opt/app/x`",
            "holds MARKER-1 here",
        ] {
            assert!(!check.leaks(leak).is_empty(), "{leak}");
        }
        for clean in [
            "route:GET /api/items/{id}",
            "FastAPI route DELETE /api/items/{} (prefix \\\"/exports\\\")",
            "external:https://api.example.com/v1/x",
            "| `/api/v1/…` → `/api/v2/…` |",
            "src/app/main.py:12",
            "a/b and 3/4",
        ] {
            assert_eq!(check.leaks(clean), Vec::<String>::new(), "{clean}");
        }
    }
}
