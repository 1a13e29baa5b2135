//! Edges: the claims of the architecture graph, each with evidence, provenance, confidence and a
//! repository-relative location.

use std::fmt;

use crate::{NodeKey, SourceLocation};

/// The kinds of edge.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum EdgeKind {
    Imports,
    Serves,
    Calls,
    Reads,
    Writes,
    Defines,
    ReadsEnv,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 7] = [
        EdgeKind::Imports,
        EdgeKind::Serves,
        EdgeKind::Calls,
        EdgeKind::Reads,
        EdgeKind::Writes,
        EdgeKind::Defines,
        EdgeKind::ReadsEnv,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Imports => "imports",
            EdgeKind::Serves => "serves",
            EdgeKind::Calls => "calls",
            EdgeKind::Reads => "reads",
            EdgeKind::Writes => "writes",
            EdgeKind::Defines => "defines",
            EdgeKind::ReadsEnv => "reads_env",
        }
    }

    pub fn parse(name: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an edge was derived.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Provenance {
    /// Read from one file.
    Syntax,
    /// Joined across files: import resolution, prefix composition, URL-to-route matching.
    Resolver,
    /// A framework convention, such as file-system routes or default table names.
    Convention,
    /// A pattern over a string, such as raw SQL.
    Heuristic,
}

impl Provenance {
    pub const ALL: [Provenance; 4] =
        [Provenance::Syntax, Provenance::Resolver, Provenance::Convention, Provenance::Heuristic];

    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Syntax => "syntax",
            Provenance::Resolver => "resolver",
            Provenance::Convention => "convention",
            Provenance::Heuristic => "heuristic",
        }
    }

    pub fn parse(name: &str) -> Option<Provenance> {
        Provenance::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// How sure the analyser is of an edge. Orders from most to least sure.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Confidence {
    Certain,
    Likely,
    Possible,
}

impl Confidence {
    pub const ALL: [Confidence; 3] =
        [Confidence::Certain, Confidence::Likely, Confidence::Possible];

    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Certain => "certain",
            Confidence::Likely => "likely",
            Confidence::Possible => "possible",
        }
    }

    pub fn parse(name: &str) -> Option<Confidence> {
        Confidence::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// One sentence that describes the claim an edge makes.
///
/// Evidence names identifiers, module paths, route paths and table names; it never quotes a line
/// of source. The constructor enforces what can be enforced mechanically: one line, bounded length.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(from = "String")]
pub struct Evidence(String);

impl Evidence {
    /// The longest evidence sentence kept; longer ones are cut at a character boundary.
    pub const MAX_LEN: usize = 400;

    pub fn new(sentence: impl Into<String>) -> Self {
        let sentence = sentence.into();
        // Control characters are C0 (bytes below 0x20), DEL and C1 (U+0080..U+009F, which UTF-8
        // writes with a 0xC2 lead byte). A sentence without those bytes in its first MAX_LEN + 1
        // bytes keeps them as they are, and is cut below if it is longer: only that prefix needs
        // looking at.
        let head = &sentence.as_bytes()[..sentence.len().min(Self::MAX_LEN + 1)];
        let plain = !head.iter().any(|&b| b < 0x20 || b == 0x7f || b == 0xc2);
        let mut text: String = if plain {
            sentence
        } else {
            sentence.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
        };
        if text.len() > Self::MAX_LEN {
            let mut cut = Self::MAX_LEN - 3;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("...");
        }
        Self(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Stored evidence (a cached analysis) is read through [`Evidence::new`], so it keeps the
/// sentence rules whatever the bytes held.
impl From<String> for Evidence {
    fn from(sentence: String) -> Self {
        Self::new(sentence)
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An edge of the architecture graph.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Edge {
    pub kind: EdgeKind,
    pub from: NodeKey,
    pub to: NodeKey,
    pub evidence: Evidence,
    pub provenance: Provenance,
    pub confidence: Confidence,
    /// Where the claim was read; for a merged edge, its first occurrence.
    pub location: SourceLocation,
    /// True when every occurrence of an import is only for type checking
    /// (`if TYPE_CHECKING:`, `import type`).
    pub type_only: bool,
    /// How many occurrences were merged into this edge (at least 1).
    pub occurrences: u32,
}

impl Edge {
    /// The identity of an edge across analyses: kind, source and target.
    pub fn identity(&self) -> (EdgeKind, &NodeKey, &NodeKey) {
        (self.kind, &self.from, &self.to)
    }

    /// Folds another occurrence of the same claim into this edge: the earliest location and its
    /// evidence are kept, the edge stays type-only only if both are, and the weakest confidence
    /// of the two is not taken — the strongest is, since either occurrence alone supports the claim.
    pub fn absorb(&mut self, other: Edge) {
        debug_assert_eq!(self.identity(), other.identity());
        self.type_only &= other.type_only;
        self.occurrences = self.occurrences.saturating_add(other.occurrences);
        if other.confidence < self.confidence {
            self.confidence = other.confidence;
            self.provenance = other.provenance;
        }
        if other.location < self.location {
            self.location = other.location;
            self.evidence = other.evidence;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RepoPath;

    fn edge(line: u32, confidence: Confidence, type_only: bool) -> Edge {
        let a = RepoPath::new("a.py").unwrap();
        let b = RepoPath::new("b.py").unwrap();
        Edge {
            kind: EdgeKind::Imports,
            from: NodeKey::module(&a),
            to: NodeKey::module(&b),
            evidence: Evidence::new(format!("line {line}")),
            provenance: Provenance::Resolver,
            confidence,
            location: SourceLocation::new(a, line, 1),
            type_only,
            occurrences: 1,
        }
    }

    #[test]
    fn evidence_is_one_bounded_line() {
        let e = Evidence::new("two\nlines\tand tab");
        // C1 controls and DEL become spaces too; other characters led by 0xC2 stay.
        assert_eq!(Evidence::new("a\u{85}b\u{7f}c\u{a0}d").as_str(), "a b c\u{a0}d");
        assert_eq!(e.as_str(), "two lines and tab");
        // A control character past the cut does not matter; one before it is still replaced.
        let tail = format!("{}\n{}", "a".repeat(Evidence::MAX_LEN), "b".repeat(50));
        assert_eq!(
            Evidence::new(tail).as_str(),
            format!("{}...", "a".repeat(Evidence::MAX_LEN - 3))
        );
        let early = format!("a\u{85}{}", "b".repeat(Evidence::MAX_LEN));
        assert!(Evidence::new(early).as_str().starts_with("a bbb"));
        let long = Evidence::new("é".repeat(500));
        assert!(long.as_str().len() <= Evidence::MAX_LEN);
        assert!(long.as_str().ends_with("..."));
    }

    #[test]
    fn absorb_keeps_earliest_location_and_strongest_confidence() {
        let mut e = edge(9, Confidence::Likely, true);
        e.absorb(edge(3, Confidence::Certain, false));
        assert_eq!(e.location.line, 3);
        assert_eq!(e.evidence.as_str(), "line 3");
        assert_eq!(e.confidence, Confidence::Certain);
        assert!(!e.type_only);
        assert_eq!(e.occurrences, 2);
    }

    #[test]
    fn type_only_survives_only_if_every_occurrence_is() {
        let mut e = edge(1, Confidence::Certain, true);
        e.absorb(edge(2, Confidence::Certain, true));
        assert!(e.type_only);
    }

    #[test]
    fn names_round_trip() {
        for k in EdgeKind::ALL {
            assert_eq!(EdgeKind::parse(k.as_str()), Some(k));
        }
        for p in Provenance::ALL {
            assert_eq!(Provenance::parse(p.as_str()), Some(p));
        }
        for c in Confidence::ALL {
            assert_eq!(Confidence::parse(c.as_str()), Some(c));
        }
    }
}
