//! Findings as SARIF 2.1.0, for code-scanning annotations (`github/codeql-action/upload-sarif`).
//!
//! One result per finding a reader should meet: a finding another one covers, and a rule
//! violation a change fixed, are left out (they are not alerts). A result's rule is `rule/ID` for
//! a rule of the rules file and `cartograph/KIND` for a diff finding kind; its location is the
//! first edge behind the finding (a stale baseline entry points at its line in the baseline file);
//! the other edges are related locations; its message is the finding's sentence and the edges'
//! evidence; `partialFingerprints` carries the finding's stable identity, never a line.

use std::collections::BTreeMap;

use cartograph_graph::FindingKind;
use serde_json::{Value, json};

use crate::TOOL_VERSION;
use crate::diff::{EdgeRefDoc, FindingDoc};
use crate::rules::{RuleDoc, rule_kind_help};

/// Where SARIF readers find the schema; the validators accept the schemastore address.
pub const SARIF_SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
pub const INFORMATION_URI: &str = "https://github.com/cartograph-dev/cartograph";
/// The most edges a result names as related locations.
const MAX_RELATED: usize = 10;
/// The most edges' evidence a result's message quotes.
const MAX_EVIDENCE: usize = 3;

/// The baseline file a stale entry points at: its path from the repository root and its text.
#[derive(Debug, Clone, Copy)]
pub struct BaselineFile<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

/// The SARIF log of `findings`, with the rules of the rules file (when there is one).
pub fn sarif_log(
    findings: &[FindingDoc],
    rules: &[RuleDoc],
    baseline: Option<BaselineFile<'_>>,
) -> String {
    let shown: Vec<&FindingDoc> = findings
        .iter()
        .filter(|f| f.covered_by.is_none() && f.kind != FindingKind::RuleViolationFixed.as_str())
        .collect();
    // Descriptors: the rules file's rules in their order, then the finding kinds met, in kind
    // order.
    let mut descriptors: Vec<Value> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for rule in rules {
        index.insert(format!("rule/{}", rule.id), descriptors.len());
        descriptors.push(rule_descriptor(rule));
    }
    for kind in FindingKind::ALL {
        let used =
            kind != FindingKind::RuleViolation && shown.iter().any(|f| f.kind == kind.as_str());
        if used {
            index.insert(format!("cartograph/{}", kind.as_str()), descriptors.len());
            descriptors.push(kind_descriptor(kind));
        }
    }
    let results: Vec<Value> = shown
        .iter()
        .filter_map(|f| {
            let rule_id = match &f.rule {
                Some(r) if f.kind == FindingKind::RuleViolation.as_str() => {
                    format!("rule/{}", r.id)
                }
                _ => format!("cartograph/{}", f.kind),
            };
            let rule_index = *index.get(&rule_id)?;
            Some(result(f, &rule_id, rule_index, baseline))
        })
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "Cartograph",
                    "version": TOOL_VERSION,
                    "semanticVersion": TOOL_VERSION,
                    "informationUri": INFORMATION_URI,
                    "rules": descriptors,
                }
            },
            "originalUriBaseIds": {
                "%SRCROOT%": { "description": { "text": "The root of the analysed repository." } }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    crate::to_json(&log)
}

fn level(severity: &str) -> &'static str {
    match severity {
        "high" => "error",
        "medium" => "warning",
        _ => "note",
    }
}

fn rule_level(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warning" => "warning",
        _ => "note",
    }
}

fn rule_descriptor(rule: &RuleDoc) -> Value {
    let help = format!("{} {}", rule_kind_help(&rule.kind), rule.reason);
    json!({
        "id": format!("rule/{}", rule.id),
        "name": pascal(&rule.id),
        "shortDescription": { "text": rule.reason },
        "fullDescription": { "text": format!("Architecture rule `{}` ({}): {help}", rule.id, rule.kind) },
        "help": { "text": format!("{help} Declared in cartograph.toml; accept today's violations with `cartograph baseline write`.") },
        "defaultConfiguration": { "level": rule_level(&rule.severity) },
        "properties": { "tags": ["architecture", rule.kind] },
    })
}

fn kind_descriptor(kind: FindingKind) -> Value {
    let label = kind.label();
    let mut sentence = label.to_owned();
    if let Some(first) = sentence.get(..1) {
        sentence = first.to_uppercase() + &sentence[1..];
    }
    json!({
        "id": format!("cartograph/{}", kind.as_str()),
        "name": pascal(kind.as_str()),
        "shortDescription": { "text": format!("{sentence}.") },
        "fullDescription": { "text": format!("Cartograph finding `{}`: {label}, derived from the architecture graph with the edges that justify it.", kind.as_str()) },
        "help": { "text": format!("A finding of kind `{}`; fail a run on it with `--fail-on {}`.", kind.as_str(), kind.as_str()) },
        "defaultConfiguration": { "level": level(kind.severity().as_str()) },
        "properties": { "tags": ["architecture"] },
    })
}

fn result(
    finding: &FindingDoc,
    rule_id: &str,
    rule_index: usize,
    baseline: Option<BaselineFile<'_>>,
) -> Value {
    let mut message = finding.message.clone();
    let evidence: Vec<&str> =
        finding.edges.iter().take(MAX_EVIDENCE).map(|e| e.evidence.as_str()).collect();
    if !evidence.is_empty() {
        message.push_str(" Evidence: ");
        message.push_str(&evidence.join("; "));
        if finding.edges.len() > MAX_EVIDENCE {
            message.push_str(&format!("; and {} more edges", finding.edges.len() - MAX_EVIDENCE));
        }
        message.push('.');
    }
    let location = match (finding.edges.first(), &finding.rule, baseline) {
        (Some(edge), ..) => Some(edge_location(edge)),
        (None, Some(rule), Some(file)) => {
            Some(physical(file.path, line_of(file.text, &rule.identity), 0))
        }
        _ => None,
    };
    let related: Vec<Value> = finding
        .edges
        .iter()
        .skip(1)
        .take(MAX_RELATED)
        .enumerate()
        .map(|(i, edge)| {
            let mut loc = edge_location(edge);
            loc["id"] = json!(i + 1);
            loc["message"] = json!({ "text": edge.evidence });
            loc
        })
        .collect();
    let identity = match &finding.rule {
        Some(rule) => format!("{rule_id} {}", rule.identity),
        None => format!("{rule_id} {}", finding.subject),
    };
    let mut value = json!({
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "level": level(&finding.severity),
        "message": { "text": message },
        "partialFingerprints": { "cartographIdentity/v1": identity },
    });
    if let Some(location) = location {
        value["locations"] = json!([location]);
    }
    if !related.is_empty() {
        value["relatedLocations"] = json!(related);
    }
    value
}

fn edge_location(edge: &EdgeRefDoc) -> Value {
    physical(&edge.location.path, edge.location.line, edge.location.column)
}

fn physical(path: &str, line: u32, column: u32) -> Value {
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri_path(path), "uriBaseId": "%SRCROOT%" }
        }
    });
    if line > 0 {
        let mut region = json!({ "startLine": line });
        if column > 0 {
            region["startColumn"] = json!(column);
        }
        location["physicalLocation"]["region"] = region;
    }
    location
}

/// The 1-based line of the baseline file that holds `identity`, or 1.
fn line_of(text: &str, identity: &str) -> u32 {
    let needle = serde_json::to_string(identity).unwrap_or_default();
    text.lines().position(|l| l.contains(&needle)).map_or(1, |i| i as u32 + 1)
}

/// A repository-relative path as a relative URI reference: every byte outside the unreserved
/// set and `/` percent-encoded.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `web-not-backend` → `WebNotBackend`: SARIF rule names are PascalCase.
fn pascal(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_relative_uri_references() {
        assert_eq!(uri_path("web/src/odd name (copy).ts"), "web/src/odd%20name%20%28copy%29.ts");
        assert_eq!(uri_path("a/b_c-d.py"), "a/b_c-d.py");
    }

    #[test]
    fn names_are_pascal_case() {
        assert_eq!(pascal("web-not-backend"), "WebNotBackend");
        assert_eq!(pascal("new-cross-language-call"), "NewCrossLanguageCall");
    }
}
