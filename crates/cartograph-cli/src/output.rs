//! Writing results to stdout or a file, and naming user-given paths in messages safely.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `text` to `target`: `-` is stdout, anything else a file path.
pub fn write_output(target: &str, text: &str) -> Result<()> {
    if target == "-" {
        let mut stdout = std::io::stdout().lock();
        match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
            // A closed pipe (`cartograph ... | head`) is not an error of ours.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.context("cannot write to stdout"),
        }
    } else {
        std::fs::write(target, text).map_err(|e| {
            anyhow::anyhow!("cannot write {} ({})", shown(Path::new(target)), e.kind())
        })
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_never_shown_whole() {
        assert_eq!(shown(Path::new("repo/x")), "`repo/x`");
        assert_eq!(shown(Path::new("/home/me/repo")), "`…/repo`");
        assert_eq!(shown(Path::new("/")), "the given path");
    }
}
