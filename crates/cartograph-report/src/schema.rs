//! The JSON Schemas of every document, embedded, and validation against them.

use std::sync::OnceLock;

use serde_json::Value;

/// Every document's schema: `(name, schema text)`, in name order.
pub const SCHEMAS: &[(&str, &str)] = &[
    ("baseline", include_str!("../../../schemas/baseline.schema.json")),
    ("blast", include_str!("../../../schemas/blast.schema.json")),
    ("cache-stats", include_str!("../../../schemas/cache-stats.schema.json")),
    ("check", include_str!("../../../schemas/check.schema.json")),
    ("config", include_str!("../../../schemas/config.schema.json")),
    ("diff", include_str!("../../../schemas/diff.schema.json")),
    ("map", include_str!("../../../schemas/map.schema.json")),
    ("snapshot", include_str!("../../../schemas/snapshot.schema.json")),
    ("summary", include_str!("../../../schemas/summary.schema.json")),
    ("trace", include_str!("../../../schemas/trace.schema.json")),
];

/// The schema text for a document name.
pub fn schema_text(name: &str) -> Option<&'static str> {
    SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// The names of all documents that have a schema.
pub fn schema_names() -> impl Iterator<Item = &'static str> {
    SCHEMAS.iter().map(|(name, _)| *name)
}

/// Why a document does not validate.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("no schema named {0}")]
    Unknown(String),
    #[error("the embedded schema {0} is invalid: {1}")]
    BadSchema(String, String),
    #[error("the document does not match the {name} schema: {errors:?}")]
    Invalid { name: String, errors: Vec<String> },
}

fn validators() -> &'static [(&'static str, Result<jsonschema::Validator, String>)] {
    static VALIDATORS: OnceLock<Vec<(&'static str, Result<jsonschema::Validator, String>)>> =
        OnceLock::new();
    VALIDATORS.get_or_init(|| {
        SCHEMAS
            .iter()
            .map(|(name, text)| {
                let validator = serde_json::from_str::<Value>(text)
                    .map_err(|e| e.to_string())
                    .and_then(|schema| {
                        jsonschema::meta::validate(&schema).map_err(|e| e.to_string())?;
                        jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())
                    });
                (*name, validator)
            })
            .collect()
    })
}

/// Validates `document` against the schema named by its own `schema` field.
pub fn validate(document: &Value) -> Result<(), SchemaError> {
    let name = document.get("schema").and_then(Value::as_str).unwrap_or_default().to_owned();
    validate_as(&name, document)
}

/// Validates `document` against the named schema.
pub fn validate_as(name: &str, document: &Value) -> Result<(), SchemaError> {
    let (_, validator) = validators()
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| SchemaError::Unknown(name.to_owned()))?;
    let validator =
        validator.as_ref().map_err(|e| SchemaError::BadSchema(name.to_owned(), e.clone()))?;
    let errors: Vec<String> = validator
        .iter_errors(document)
        .take(20)
        .map(|e| format!("{} ({}): {e}", e.instance_path(), e.schema_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(SchemaError::Invalid { name: name.to_owned(), errors })
    }
}

/// Where a document first fails its schema, and how, without the value found there (a document
/// read back may hold anything, and an error must not repeat it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// A JSON pointer to the failing value (`/nodes/3/kind`), at most [`MAX_POINTER_CHARS`]
    /// characters, control characters replaced; `/` for the document itself.
    pub pointer: String,
    /// What is wrong, in a few words that name no value: `the required field `kind` is missing`.
    pub problem: String,
}

/// The longest pointer a [`Violation`] shows.
pub const MAX_POINTER_CHARS: usize = 120;

/// The first place, in document order, where `document` fails the named schema (the error with
/// the shortest, then smallest, instance path: the outermost field at fault), or `None` when it
/// matches (or no schema has that name).
pub fn first_violation(name: &str, document: &Value) -> Option<Violation> {
    let (_, validator) = validators().iter().find(|(n, _)| *n == name)?;
    let validator = validator.as_ref().ok()?;
    let mut found: Vec<(Vec<String>, String)> = validator
        .iter_errors(document)
        .take(200)
        .map(|error| {
            let pointer = error.instance_path().to_string();
            let segments: Vec<String> = pointer.split('/').skip(1).map(str::to_owned).collect();
            (segments, problem(error.kind()))
        })
        .collect();
    // Outermost first, then in document order (array indexes numerically).
    found.sort_by(|(a, _), (b, _)| {
        a.len().cmp(&b.len()).then_with(|| {
            let key = |s: &String| (s.parse::<u64>().ok(), s.clone());
            a.iter().map(key).cmp(b.iter().map(key))
        })
    });
    let (segments, problem) = found.into_iter().next()?;
    let pointer =
        if segments.is_empty() { "/".to_owned() } else { format!("/{}", segments.join("/")) };
    let mut shown: String = pointer
        .chars()
        .take(MAX_POINTER_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if pointer.chars().count() > MAX_POINTER_CHARS {
        shown.push('…');
    }
    Some(Violation { pointer: shown, problem })
}

/// A schema error's kind in words that never repeat the value that failed.
fn problem(kind: &jsonschema::error::ValidationErrorKind) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    match kind {
        Kind::Required { property } => match property.as_str() {
            Some(field) if field.len() <= 40 => format!("the required field `{field}` is missing"),
            _ => "a required field is missing".to_owned(),
        },
        Kind::AdditionalProperties { .. } | Kind::UnevaluatedProperties { .. } => {
            "it has a field the schema does not define".to_owned()
        }
        Kind::Type { kind } => {
            format!("the value has the wrong type (expected {})", type_words(kind))
        }
        Kind::Enum { .. } | Kind::Constant { .. } => {
            "the value is not one of those the schema allows".to_owned()
        }
        Kind::Pattern { .. } | Kind::Format { .. } => {
            "the text does not have the form the schema requires".to_owned()
        }
        Kind::Minimum { .. } | Kind::ExclusiveMinimum { .. } => {
            "the number is too small".to_owned()
        }
        Kind::Maximum { .. } | Kind::ExclusiveMaximum { .. } => {
            "the number is too large".to_owned()
        }
        Kind::MinLength { .. } => "the text is too short".to_owned(),
        Kind::MaxLength { .. } => "the text is too long".to_owned(),
        Kind::MinItems { .. } => "the list has too few entries".to_owned(),
        Kind::MaxItems { .. } => "the list has too many entries".to_owned(),
        _ => "the value does not match the schema".to_owned(),
    }
}

fn type_words(kind: &jsonschema::error::TypeKind) -> String {
    use jsonschema::error::TypeKind;
    let name = |t: &jsonschema::JsonType| t.to_string();
    match kind {
        TypeKind::Single(t) => name(t),
        TypeKind::Multiple(types) => {
            let names: Vec<String> = types.iter().map(|t| name(&t)).collect();
            names.join(" or ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_schema_is_a_valid_2020_12_schema() {
        for (name, validator) in validators() {
            assert!(validator.is_ok(), "{name}: {:?}", validator.as_ref().err());
        }
    }

    #[test]
    fn embedded_schemas_match_their_names() {
        for (name, text) in SCHEMAS {
            let schema: Value = serde_json::from_str(text).unwrap();
            if *name == "config" {
                // The rules file is TOML written by people: it names no schema of its own.
                assert!(schema["properties"].get("schema").is_none());
                continue;
            }
            assert_eq!(schema["properties"]["schema"]["const"], *name);
        }
    }

    /// An empty snapshot with one refusal whose location has this path and line.
    fn one_refusal_snapshot(path: Value, line: Value) -> Value {
        serde_json::json!({
            "schema": "snapshot", "schema_version": "1.0", "tool_version": "x",
            "stats": {"files_seen": 0, "files_analysed": 0, "files_skipped": 0, "bytes_analysed": 0,
                "files_by_language": {}, "error_regions": 0, "files_with_error_regions": 0,
                "builtin_imports": 0, "excluded_dirs": [], "nodes": 0, "edges": 0, "refusals": 1},
            "nodes": [], "edges": [], "cycles": [],
            "refusals": [{"kind": "symlink", "reason": "r",
                "location": {"path": path, "line": line, "column": 0}}]
        })
    }

    #[test]
    fn rejects_a_document_with_an_absolute_location() {
        let doc = one_refusal_snapshot("/etc/passwd".into(), 0.into());
        assert!(matches!(validate(&doc), Err(SchemaError::Invalid { .. })));
        let mut ok = doc.clone();
        ok["refusals"][0]["location"]["path"] = "etc/passwd".into();
        validate(&ok).unwrap();
        let mut dotdot = doc;
        dotdot["refusals"][0]["location"]["path"] = "a/../b".into();
        assert!(validate(&dotdot).is_err());
    }

    #[test]
    fn the_first_violation_names_the_outermost_field_without_its_value() {
        let doc = one_refusal_snapshot("/home/someone/secret".into(), "hunter2".into());
        let violation = first_violation("snapshot", &doc).expect("a violation");
        assert!(violation.pointer.starts_with("/refusals/0/location/"), "{violation:?}");
        assert!(!violation.problem.contains("hunter2") && !violation.problem.contains("/home"));
        let mut missing = doc;
        missing.as_object_mut().expect("object").remove("nodes");
        let violation = first_violation("snapshot", &missing).expect("a violation");
        assert_eq!(violation.pointer, "/");
        assert_eq!(violation.problem, "the required field `nodes` is missing");
    }

    #[test]
    fn unknown_schema_is_an_error() {
        assert!(matches!(validate_as("nope", &Value::Null), Err(SchemaError::Unknown(_))));
    }
}
