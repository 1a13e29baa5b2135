//! How trees and user-given paths are named in reports and messages: never by an absolute path.

use std::path::Path;

/// How a user-given path appears in a message: as typed when relative, otherwise only its final
/// component, so no absolute machine path reaches an error.
pub fn shown(path: &Path) -> String {
    if path.is_absolute() || path.to_string_lossy().starts_with('~') {
        match path.file_name() {
            Some(name) => format!("`…/{}`", name.to_string_lossy()),
            None => "the given path".to_owned(),
        }
    } else {
        format!("`{}`", path.display())
    }
}

/// A directory's name as a label: its last component (of the canonical path for `.`), control
/// characters replaced.
pub fn directory_label(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| {
            std::fs::canonicalize(path)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| ".".to_owned());
    name.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

/// A revision as a label: as written (already safe to show), with the first 12 digits of its
/// commit id, `main (3f2a9c1d4e5b)`.
pub fn revision_label(revision: &str, commit_hex: &str) -> String {
    format!("{revision} ({})", commit_hex.get(..12).unwrap_or(commit_hex))
}

/// A snapshot file's name as a label.
pub fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(|| "snapshot".to_owned(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_never_shown_whole() {
        assert_eq!(shown(Path::new("repo/x")), "`repo/x`");
        assert_eq!(shown(Path::new("/home/me/repo")), "`…/repo`");
        assert_eq!(shown(Path::new("/")), "the given path");
    }

    #[test]
    fn labels_name_no_path() {
        assert_eq!(directory_label(Path::new("/work/repo")), "repo");
        assert_eq!(directory_label(Path::new("/")), ".");
        assert_eq!(directory_label(Path::new("odd\u{7}name")), "odd?name");
        assert_eq!(revision_label("main", "0123456789abcdef0123"), "main (0123456789ab)");
        assert_eq!(revision_label("v1", "abc"), "v1 (abc)");
        assert_eq!(file_label(Path::new("/tmp/base.snapshot.json")), "base.snapshot.json");
    }
}
