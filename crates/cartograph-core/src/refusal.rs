//! Refusals: what the analyser met and would not guess about.
//!
//! "Unknown stays unknown": a computed import, an import that resolves to nothing, a file too large
//! or binary to read — each is recorded with a location, a kind and a one-sentence reason, and
//! counted in every summary, so a reader knows what the graph does not cover.

use std::fmt;

use crate::SourceLocation;

/// The kinds of refusal. Skipped files and undecidable constructs share one list.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum RefusalKind {
    /// A file larger than the configured cap was not read.
    FileTooLarge,
    /// A file that looks binary was not parsed.
    BinaryFile,
    /// A file that could not be read.
    UnreadableFile,
    /// A symbolic link was not followed.
    Symlink,
    /// A file whose name is not valid UTF-8 or not a valid repository path.
    InvalidPath,
    /// A file that is not valid UTF-8; it was analysed with replacement characters.
    InvalidUtf8,
    /// A file with syntax errors; what is sound was extracted, the error regions were not.
    SyntaxErrors,
    /// A file nested too deeply to walk safely; extraction stopped at the depth limit.
    TooDeep,
    /// A minified or generated bundle was not parsed.
    MinifiedBundle,
    /// An import whose target is computed at run time.
    DynamicImport,
    /// An import that resolves to no file in the tree.
    UnresolvedImport,
    /// A configuration file (tsconfig, package.json) that could not be read.
    InvalidConfig,
    /// A route path or prefix that is computed at run time.
    ComputedRoute,
    /// A router or blueprint mounted from something that cannot be followed to its declaration.
    UnresolvedMount,
    /// An HTTP call whose URL cannot be read.
    ComputedUrl,
    /// A call to a relative URL that matches no served route.
    UnmatchedCall,
    /// An environment variable read with a computed name.
    ComputedEnvKey,
    /// A table name or SQL statement that cannot be read.
    ComputedTable,
}

impl RefusalKind {
    pub const ALL: [RefusalKind; 18] = [
        RefusalKind::FileTooLarge,
        RefusalKind::BinaryFile,
        RefusalKind::UnreadableFile,
        RefusalKind::Symlink,
        RefusalKind::InvalidPath,
        RefusalKind::InvalidUtf8,
        RefusalKind::SyntaxErrors,
        RefusalKind::TooDeep,
        RefusalKind::MinifiedBundle,
        RefusalKind::DynamicImport,
        RefusalKind::UnresolvedImport,
        RefusalKind::InvalidConfig,
        RefusalKind::ComputedRoute,
        RefusalKind::UnresolvedMount,
        RefusalKind::ComputedUrl,
        RefusalKind::UnmatchedCall,
        RefusalKind::ComputedEnvKey,
        RefusalKind::ComputedTable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RefusalKind::FileTooLarge => "file-too-large",
            RefusalKind::BinaryFile => "binary-file",
            RefusalKind::UnreadableFile => "unreadable-file",
            RefusalKind::Symlink => "symlink",
            RefusalKind::InvalidPath => "invalid-path",
            RefusalKind::InvalidUtf8 => "invalid-utf8",
            RefusalKind::SyntaxErrors => "syntax-errors",
            RefusalKind::TooDeep => "too-deep",
            RefusalKind::MinifiedBundle => "minified-bundle",
            RefusalKind::DynamicImport => "dynamic-import",
            RefusalKind::UnresolvedImport => "unresolved-import",
            RefusalKind::InvalidConfig => "invalid-config",
            RefusalKind::ComputedRoute => "computed-route",
            RefusalKind::UnresolvedMount => "unresolved-mount",
            RefusalKind::ComputedUrl => "computed-url",
            RefusalKind::UnmatchedCall => "unmatched-call",
            RefusalKind::ComputedEnvKey => "computed-env-key",
            RefusalKind::ComputedTable => "computed-table",
        }
    }

    pub fn parse(name: &str) -> Option<RefusalKind> {
        RefusalKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// What a refusal of this kind leaves unknown: one sentence for coverage reports, so that a
    /// reader tells "none found" from "not seen".
    pub fn affects(self) -> &'static str {
        match self {
            RefusalKind::FileTooLarge => {
                "these files were not read: their imports, routes, calls, tables and environment reads are unknown"
            }
            RefusalKind::BinaryFile => {
                "these files look binary and were not parsed: whatever they declare is unknown"
            }
            RefusalKind::UnreadableFile => {
                "these files could not be read: whatever they declare is unknown"
            }
            RefusalKind::Symlink => {
                "files reached only through these links are not analysed through them"
            }
            RefusalKind::InvalidPath => {
                "these files have names that are not repository paths and were not analysed"
            }
            RefusalKind::InvalidUtf8 => {
                "analysed with replacement characters: names holding the invalid bytes may be wrong"
            }
            RefusalKind::SyntaxErrors => {
                "the error regions of these files: imports, routes and calls inside them are unknown"
            }
            RefusalKind::TooDeep => "constructs nested below the depth limit are unknown",
            RefusalKind::MinifiedBundle => {
                "bundled code is not analysed; its sources are, where the tree holds them"
            }
            RefusalKind::DynamicImport => "imports computed at run time: what they load is unknown",
            RefusalKind::UnresolvedImport => {
                "imports that resolve to no file of the tree: the module they load is unknown"
            }
            RefusalKind::InvalidConfig => {
                "path aliases and package names from this configuration are unknown: imports through them may not resolve"
            }
            RefusalKind::ComputedRoute => {
                "routes whose path is computed: missing, or their path is unknown"
            }
            RefusalKind::UnresolvedMount => {
                "every route under this mount: missing, or listed without the mount's prefix"
            }
            RefusalKind::ComputedUrl => "HTTP calls whose URL is computed: not linked to any route",
            RefusalKind::UnmatchedCall => {
                "calls to a relative URL no served route matches: the route may be served by code not analysed"
            }
            RefusalKind::ComputedEnvKey => {
                "environment variables read by a computed name are unknown"
            }
            RefusalKind::ComputedTable => {
                "tables named by computed values or SQL that cannot be read are unknown"
            }
        }
    }

    /// True for refusals that mean a file was not analysed at all.
    pub fn skips_file(self) -> bool {
        matches!(
            self,
            RefusalKind::FileTooLarge
                | RefusalKind::BinaryFile
                | RefusalKind::UnreadableFile
                | RefusalKind::Symlink
                | RefusalKind::InvalidPath
                | RefusalKind::MinifiedBundle
        )
    }
}

impl fmt::Display for RefusalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the analyser would not decide, with where and why.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Refusal {
    /// Where; a whole-file refusal has line 0.
    pub location: SourceLocation,
    pub kind: RefusalKind,
    /// One sentence. Like evidence, it never quotes source text.
    pub reason: String,
}

impl Refusal {
    pub fn new(kind: RefusalKind, location: SourceLocation, reason: impl Into<String>) -> Self {
        let reason: String =
            reason.into().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        Self { location, kind, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RepoPath;

    #[test]
    fn kinds_round_trip() {
        for k in RefusalKind::ALL {
            assert_eq!(RefusalKind::parse(k.as_str()), Some(k));
        }
    }

    #[test]
    fn reasons_are_one_line() {
        let r = Refusal::new(
            RefusalKind::DynamicImport,
            SourceLocation::file(RepoPath::new("a.ts").unwrap()),
            "a\nb",
        );
        assert_eq!(r.reason, "a b");
    }

    #[test]
    fn skipped_file_kinds() {
        assert!(RefusalKind::BinaryFile.skips_file());
        assert!(!RefusalKind::SyntaxErrors.skips_file());
        assert!(!RefusalKind::UnresolvedImport.skips_file());
    }
}
