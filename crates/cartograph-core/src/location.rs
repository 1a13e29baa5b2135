//! Repository-relative paths and source locations.
//!
//! A [`RepoPath`] can only be built from a relative, normalised path: absolute paths, `..`
//! components, Windows drive and UNC forms, and empty components are refused at construction. This
//! is what makes "no absolute machine path in any output" a property of the types rather than a
//! convention.

use std::fmt;
use std::sync::Arc;

/// Why a string is not a valid repository-relative path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("the path is empty")]
    Empty,
    #[error("the path is absolute")]
    Absolute,
    #[error("the path names a Windows drive or UNC share")]
    WindowsPrefix,
    #[error("the path contains a `..` component")]
    ParentComponent,
    #[error("the path contains an empty or `.` component")]
    EmptyComponent,
    #[error("the path contains a control character")]
    ControlCharacter,
}

/// A normalised, forward-slash, repository-relative file or directory path.
///
/// It deserializes through [`RepoPath::new`], so stored data (a cache entry, a snapshot) can never
/// bring in an absolute or escaping path.
///
/// The text is shared: a clone (every location in a file, the module node of every edge from it)
/// costs a reference count, not a copy. A large tree holds millions of them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct RepoPath(Arc<str>);

impl RepoPath {
    /// Validates `raw` as a repository-relative path. Backslashes are treated as separators so
    /// that a Windows path is judged by the same rules.
    pub fn new(raw: &str) -> Result<Self, PathError> {
        if raw.is_empty() {
            return Err(PathError::Empty);
        }
        if raw.chars().any(char::is_control) {
            return Err(PathError::ControlCharacter);
        }
        let unified = raw.replace('\\', "/");
        if unified.starts_with("//") {
            return Err(PathError::WindowsPrefix);
        }
        if unified.starts_with('/') {
            return Err(PathError::Absolute);
        }
        let bytes = unified.as_bytes();
        if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
            return Err(PathError::WindowsPrefix);
        }
        for component in unified.split('/') {
            match component {
                "" | "." => return Err(PathError::EmptyComponent),
                ".." => return Err(PathError::ParentComponent),
                _ => {}
            }
        }
        Ok(Self(Arc::from(unified)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The shared text, for a key that names this path ([`crate::NodeKey::module`]).
    pub(crate) fn shared(&self) -> &Arc<str> {
        &self.0
    }

    /// The shared text, to be replaced by an equal one ([`crate::TextPool`]).
    pub(crate) fn shared_mut(&mut self) -> &mut Arc<str> {
        &mut self.0
    }

    /// The final component.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The containing directory, or `None` for a path at the repository root.
    pub fn parent(&self) -> Option<RepoPath> {
        self.0.rsplit_once('/').map(|(dir, _)| RepoPath(Arc::from(dir)))
    }

    /// The file extension without the dot, if any.
    pub fn extension(&self) -> Option<&str> {
        let name = self.file_name();
        name.rsplit_once('.').filter(|(stem, _)| !stem.is_empty()).map(|(_, ext)| ext)
    }

    /// Joins a relative child onto this path; the child is validated like any other path.
    pub fn join(&self, child: &str) -> Result<RepoPath, PathError> {
        RepoPath::new(&format!("{}/{child}", self.0))
    }

    /// Iterates over the components.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }
}

/// A path is looked up by its text: it hashes, compares and orders as its `str` does.
impl std::borrow::Borrow<str> for RepoPath {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RepoPath {
    type Error = PathError;

    fn try_from(raw: String) -> Result<Self, PathError> {
        RepoPath::new(&raw)
    }
}

impl serde::Serialize for RepoPath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A repository-relative path with a 1-based line and column.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct SourceLocation {
    pub path: RepoPath,
    pub line: u32,
    pub column: u32,
}

impl SourceLocation {
    pub fn new(path: RepoPath, line: u32, column: u32) -> Self {
        Self { path, line, column }
    }

    /// A location that names a whole file (line and column 0).
    pub fn file(path: RepoPath) -> Self {
        Self { path, line: 0, column: 0 }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.path)
        } else {
            write!(f, "{}:{}:{}", self.path, self.line, self.column)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_relative_paths_and_normalises_backslashes() {
        assert_eq!(RepoPath::new("src/app/main.py").unwrap().as_str(), "src/app/main.py");
        assert_eq!(RepoPath::new("src\\app\\main.py").unwrap().as_str(), "src/app/main.py");
        assert_eq!(RepoPath::new("a").unwrap().as_str(), "a");
        assert_eq!(RepoPath::new(".github/x.yml").unwrap().as_str(), ".github/x.yml");
        assert_eq!(RepoPath::new("odd name/ünï.ts").unwrap().as_str(), "odd name/ünï.ts");
    }

    #[test]
    fn refuses_absolute_paths() {
        assert_eq!(RepoPath::new("/etc/passwd"), Err(PathError::Absolute));
        assert_eq!(RepoPath::new("\\rooted"), Err(PathError::Absolute));
    }

    #[test]
    fn refuses_windows_drives_and_unc() {
        assert_eq!(RepoPath::new("C:\\Users\\me"), Err(PathError::WindowsPrefix));
        assert_eq!(RepoPath::new("c:/x"), Err(PathError::WindowsPrefix));
        assert_eq!(RepoPath::new("C:relative"), Err(PathError::WindowsPrefix));
        assert_eq!(RepoPath::new("\\\\server\\share\\x"), Err(PathError::WindowsPrefix));
        assert_eq!(RepoPath::new("//server/share"), Err(PathError::WindowsPrefix));
    }

    #[test]
    fn refuses_parent_and_empty_components() {
        assert_eq!(RepoPath::new("a/../b"), Err(PathError::ParentComponent));
        assert_eq!(RepoPath::new(".."), Err(PathError::ParentComponent));
        assert_eq!(RepoPath::new("a//b"), Err(PathError::EmptyComponent));
        assert_eq!(RepoPath::new("./a"), Err(PathError::EmptyComponent));
        assert_eq!(RepoPath::new("a/"), Err(PathError::EmptyComponent));
        assert_eq!(RepoPath::new(""), Err(PathError::Empty));
        assert_eq!(RepoPath::new("a\nb"), Err(PathError::ControlCharacter));
    }

    #[test]
    fn deserializes_only_valid_paths() {
        let good: RepoPath = serde_json::from_str("\"src/a.py\"").unwrap();
        assert_eq!(good.as_str(), "src/a.py");
        assert_eq!(serde_json::to_string(&good).unwrap(), "\"src/a.py\"");
        assert!(serde_json::from_str::<RepoPath>("\"/etc/passwd\"").is_err());
        assert!(serde_json::from_str::<RepoPath>("\"a/../../b\"").is_err());
    }

    #[test]
    fn join_revalidates() {
        let dir = RepoPath::new("src").unwrap();
        assert_eq!(dir.join("a.py").unwrap().as_str(), "src/a.py");
        assert!(dir.join("../x").is_err());
        assert!(dir.join("/x").is_err());
    }

    #[test]
    fn parent_file_name_and_extension() {
        let p = RepoPath::new("src/pkg/mod.d.ts").unwrap();
        assert_eq!(p.parent().unwrap().as_str(), "src/pkg");
        assert_eq!(p.file_name(), "mod.d.ts");
        assert_eq!(p.extension(), Some("ts"));
        assert_eq!(RepoPath::new("top.py").unwrap().parent(), None);
        assert_eq!(RepoPath::new(".gitignore").unwrap().extension(), None);
    }

    #[test]
    fn location_display() {
        let p = RepoPath::new("a.py").unwrap();
        assert_eq!(SourceLocation::new(p.clone(), 3, 7).to_string(), "a.py:3:7");
        assert_eq!(SourceLocation::file(p).to_string(), "a.py");
    }
}
