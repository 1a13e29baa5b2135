//! What happens to the findings after the rules have derived them: a finding that another one
//! reports in full is marked covered, and a finding that only test or example code justifies is
//! lowered one severity level.
//!
//! Neither step removes a finding: the JSON keeps every finding with its kind and the edges that
//! justify it, so `--fail-on` on any kind behaves as before. Only severity and message change, and
//! the message always says why.

use std::collections::BTreeSet;

use cartograph_core::{EdgeKind, NodeKind};

use super::Indexed;
use super::findings::{CoveredBy, EdgeRef, Finding, FindingKind, Severity, Subject};

/// Why a source file is not production code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Noise {
    /// A test file: `test_*.py`, `*_test.py`, `*.test.ts(x)`, `*.spec.ts(x)` (and `.js`/`.jsx`),
    /// or any file under a `tests/` or `__tests__/` directory.
    Test,
    /// Example code: any file under an `example_dags/` or `examples/` directory.
    Example,
}

/// Whether a repository-relative path is test or example code, by its name alone.
///
/// ```
/// use cartograph_graph::diff::{Noise, noise_of_path};
/// assert_eq!(noise_of_path("src/app/tests/test_api.py"), Some(Noise::Test));
/// assert_eq!(noise_of_path("ui/src/Banner.test.tsx"), Some(Noise::Test));
/// assert_eq!(noise_of_path("airflow/example_dags/http.py"), Some(Noise::Example));
/// assert_eq!(noise_of_path("src/app/testing.py"), None);
/// ```
pub fn noise_of_path(path: &str) -> Option<Noise> {
    let (dirs, file) = match path.rsplit_once('/') {
        Some((dirs, file)) => (dirs, file),
        None => ("", path),
    };
    let mut dirs = dirs.split('/');
    if dirs.clone().any(|d| d == "tests" || d == "__tests__") {
        return Some(Noise::Test);
    }
    let test_file = (file.starts_with("test_") && file.ends_with(".py"))
        || file.ends_with("_test.py")
        || [".test.", ".spec."].iter().any(|infix| {
            ["ts", "tsx", "js", "jsx"].iter().any(|ext| file.ends_with(&format!("{infix}{ext}")))
        });
    if test_file {
        return Some(Noise::Test);
    }
    if dirs.any(|d| d == "example_dags" || d == "examples") {
        return Some(Noise::Example);
    }
    None
}

/// True for a host reserved for examples and tests (RFC 2606, RFC 6761): `example.com`,
/// `example.net`, `example.org` and their subdomains, any name under `.example`, `.test`,
/// `.invalid` or `.localhost`, and `localhost` itself. Takes a host or an external node's name
/// (`https://api.example.com:8443/v1`).
///
/// ```
/// use cartograph_graph::diff::is_reserved_host;
/// assert!(is_reserved_host("https://api.example.com"));
/// assert!(is_reserved_host("http://localhost:8080/x"));
/// assert!(!is_reserved_host("https://example.community"));
/// ```
pub fn is_reserved_host(name: &str) -> bool {
    let rest = name.split_once("://").map_or(name, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = host.split(':').next().unwrap_or("").trim_end_matches('.').to_ascii_lowercase();
    let under = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    ["example.com", "example.net", "example.org", "example", "test", "invalid", "localhost"]
        .into_iter()
        .any(under)
}

/// Marks the findings another finding reports in full (see [`CoveredBy`]): a `route-added`
/// finding whose route a `new-cross-language-call` finding names (else a `new-call` finding
/// does), and a `new-table-write`
/// finding whose table a `new-table` finding names. A covered finding becomes `info` and its
/// message says which finding reports it.
pub(super) fn mark_covered(findings: &mut [Finding]) {
    let present: BTreeSet<(FindingKind, Subject)> =
        findings.iter().map(|f| (f.kind, f.subject.clone())).collect();
    for finding in findings.iter_mut() {
        let covering: &[FindingKind] = match finding.kind {
            FindingKind::RouteAdded => &[FindingKind::NewCrossLanguageCall, FindingKind::NewCall],
            FindingKind::NewTableWrite => &[FindingKind::NewTable],
            _ => continue,
        };
        let Some(&by) =
            covering.iter().find(|by| present.contains(&(**by, finding.subject.clone())))
        else {
            continue;
        };
        finding.severity = Severity::Info;
        finding.message = format!(
            "{} Reported in full by the {} finding for {}.",
            finding.message,
            by.as_str(),
            finding.subject.name()
        );
        finding.covered_by = Some(CoveredBy { kind: by, subject: finding.subject.clone() });
    }
}

/// Modules that declare a table or serve a route on either side: application code, whatever
/// their file name says. Airflow's `models/connection_test.py` is the model of the "connection
/// test" feature, not a test; a file under `tests/` stays a test even when it declares a model.
pub(super) fn declaring_modules<'a>(base: &Indexed<'a>, head: &Indexed<'a>) -> BTreeSet<&'a str> {
    [base, head]
        .into_iter()
        .flat_map(|side| side.edges.iter())
        .filter(|e| matches!(e.kind, EdgeKind::Defines | EdgeKind::Serves))
        .filter(|e| e.from.kind() == NodeKind::Module)
        .map(|e| e.from.name())
        .collect()
}

/// True when only the file's name (not a `tests/` or `__tests__/` directory) makes it a test.
fn test_by_name_only(path: &str) -> bool {
    let dirs = path.rsplit_once('/').map_or("", |(dirs, _)| dirs);
    !dirs.split('/').any(|d| d == "tests" || d == "__tests__")
}

/// Lowers by one level each finding whose justifying edges all come from test or example code,
/// or whose new external service is a reserved example host, and says so in its message. A file
/// named like a test that declares a table or serves a route (see [`declaring_modules`]) is not
/// taken for a test.
pub(super) fn lower_noise(findings: &mut [Finding], declaring: &BTreeSet<&str>) {
    for finding in findings.iter_mut() {
        let Some(reason) = noise_reason(finding, declaring) else { continue };
        let lowered = finding.severity.lowered();
        if lowered == finding.severity {
            continue;
        }
        finding.severity = lowered;
        finding.message = format!("{} Lowered to {}: {reason}.", finding.message, lowered.as_str());
    }
}

fn noise_reason(finding: &Finding, declaring: &BTreeSet<&str>) -> Option<&'static str> {
    if finding.kind == FindingKind::NewExternalService && is_reserved_host(finding.subject.name()) {
        return Some("its host is reserved for examples (RFC 2606/6761)");
    }
    // The call is what a call finding is about; the serves edges only place it.
    let is_call_finding =
        matches!(finding.kind, FindingKind::NewCrossLanguageCall | FindingKind::NewCall);
    let justifying: Vec<&EdgeRef> = finding
        .edges
        .iter()
        .filter(|e| !is_call_finding || e.edge.kind == EdgeKind::Calls)
        .collect();
    let mut kinds = BTreeSet::new();
    for edge in &justifying {
        let path = edge.edge.location.path.as_str();
        let noise = noise_of_path(path)?;
        if noise == Noise::Test && test_by_name_only(path) && declaring.contains(path) {
            return None;
        }
        kinds.insert(noise);
    }
    match (kinds.contains(&Noise::Test), kinds.contains(&Noise::Example)) {
        (true, false) => Some("only test files justify it"),
        (false, true) => Some("only example code justifies it"),
        (true, true) => Some("only test files and example code justify it"),
        (false, false) => None,
    }
}
