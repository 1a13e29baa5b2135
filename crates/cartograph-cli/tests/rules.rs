//! Architecture rules end to end: the rules file refused with its line, `check` and its gate,
//! the baseline and its stale entries, `--fail-on rule:ID` in `diff`, the rules file's schema, and
//! SARIF validated against the official SARIF 2.1.0 schema.
//!
//! The fixture is `tests/fixtures/rules/` (see its README): `head/` breaks one rule of each kind,
//! and its baseline, written from `base/`, holds one entry `head/` no longer fires.

use crate::common;

use std::path::Path;

use common::{
    assert_no_absolute_paths, fixture, run_in, stderr, stdout, valid_document, workspace,
};

fn fixtures() -> std::path::PathBuf {
    workspace().join("tests/fixtures")
}

fn check(args: &[&str]) -> std::process::Output {
    run_in(&fixtures(), args, &[])
}

#[test]
fn an_invalid_rules_file_is_refused_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text =
        "[[rule]]\nid = \"a\"\nkind = \"layers\"\nreason = \"r\"\nlayers = [\"x/**\", \"y/[\"]\n";
    std::fs::write(dir.path().join("cartograph.toml"), text).expect("write");
    std::fs::write(dir.path().join("a.py"), "import os\n").expect("write");
    let output = run_in(dir.path(), &["check"], &[]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.starts_with("error: the rules file `")
            && message.contains("is invalid at line 5: rule `a`: pattern `y/[` is not a glob"),
        "{message}"
    );
    assert_no_absolute_paths(&message);
    // A syntax error names its line too.
    std::fs::write(dir.path().join("cartograph.toml"), "[[rule]]\nid = \"a\"\nkind = \n")
        .expect("write");
    let message = stderr(&run_in(dir.path(), &["check"], &[]));
    assert!(message.contains("is invalid at line 3: "), "{message}");
}

#[test]
fn check_needs_a_rules_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.py"), "import os\n").expect("write");
    let output = run_in(dir.path(), &["check"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no rules file: write cartograph.toml"),
        "{}",
        stderr(&output)
    );
    // A diff without one simply has no rule findings.
    let output = run_in(dir.path(), &["diff", ".", ".", "--json"], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stdout(&output).contains("\"rules\""));
}

#[test]
fn check_fails_on_error_rules_and_passes_when_the_baseline_accepts_all() {
    let output = check(&["check", "rules/head", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("7 violations of rules of severity error"),
        "{}",
        stderr(&output)
    );
    let doc = valid_document(&stdout(&output));
    assert_eq!(doc["summary"]["baselined"], 1);
    assert_eq!(doc["summary"]["stale_baseline"], 1);
    // Every rule kind is broken by head.
    let kinds: std::collections::BTreeSet<&str> = doc["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| r["violations"].as_u64() > Some(0))
        .map(|r| r["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds.len(), 7, "{kinds:?}");
    // base's baseline accepts every violation of base.
    let output = check(&["check", "rules/base", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    assert_eq!(doc["summary"]["reported"], 0);
    assert_eq!(doc["summary"]["baselined"], 2);
}

#[test]
fn a_stale_baseline_entry_is_reported_and_fails_on_request() {
    let output = check(&["check", "rules/head", "--json", "--fail-on", "stale-baseline"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("1 finding of kind stale-baseline"), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    let stale: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "stale-baseline")
        .collect();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0]["rule"]["id"], "env-in-config");
    // In a diff too.
    let output =
        check(&["diff", "rules/base", "rules/head", "--json", "--fail-on", "stale-baseline"]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_baseline_given_by_name_must_exist() {
    let output = check(&["check", "rules/head", "--baseline", "rules/head/nope.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("the baseline `rules/head/nope.json` cannot be read (entity not found)"),
        "{}",
        stderr(&output)
    );
    let output = check(&["check", "rules/head", "--baseline", "rules/head/cartograph.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is not a baseline: it is not valid JSON"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn fail_on_a_rule_id() {
    let output =
        check(&["diff", "rules/base", "rules/head", "--json", "--fail-on", "rule:backend-layers"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("1 finding of kind rule-violation"), "{}", stderr(&output));
    let output =
        check(&["diff", "rules/base", "rules/head", "--json", "--fail-on", "rule:env-in-config"]);
    assert!(output.status.success(), "the rule is not broken by the change: {}", stderr(&output));
    let output = check(&["diff", "rules/base", "rules/head", "--fail-on", "rule:no-such-rule"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--fail-on rule:no-such-rule names no rule"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_baseline_records_identities_not_lines() {
    let output = check(&["baseline", "write", "rules/head", "--output", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    valid_document(&text);
    let with_line = |ext: &str| (0..10).any(|d| text.contains(&format!(".{ext}:{d}")));
    assert!(
        !with_line("py") && !with_line("ts") && !text.contains("\"line\""),
        "no line numbers: {text}"
    );
    // Written where the rules file says, then check reports nothing new.
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture("rules/head"), dir.path());
    let output = run_in(dir.path(), &["baseline", "write"], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("wrote cartograph-baseline.json with 11 accepted violations"),
        "{}",
        stderr(&output)
    );
    let output = run_in(dir.path(), &["check", "--json"], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    assert_eq!(doc["summary"]["reported"], 0);
    assert_eq!(doc["summary"]["stale_baseline"], 0);
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn the_fixture_rules_files_match_the_config_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        cartograph_report::schema::schema_text("config").expect("config schema"),
    )
    .expect("json");
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    for side in ["base", "head"] {
        let text = std::fs::read_to_string(fixture(&format!("rules/{side}/cartograph.toml")))
            .expect("read");
        let value: toml::Value = toml::from_str(&text).expect("toml");
        let json = serde_json::to_value(value).expect("json");
        let errors: Vec<String> = validator.iter_errors(&json).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{side}: {errors:?}");
    }
    // What the reader refuses, the schema refuses too.
    for bad in [
        "[[rule]]\nid = \"a\"\nkind = \"forbidden\"\nreason = \"r\"\nto = \"b\"\n",
        "[[rule]]\nid = \"a b\"\nkind = \"no-cycles\"\nreason = \"r\"\n",
        "[[rule]]\nid = \"a\"\nkind = \"no-cycles\"\nreason = \"r\"\nmax = 2\n",
        "[[rule]]\nid = \"a\"\nkind = \"max-fan-in\"\nreason = \"r\"\n",
        "colour = \"blue\"\n",
    ] {
        let json =
            serde_json::to_value(toml::from_str::<toml::Value>(bad).expect("toml")).expect("json");
        assert!(!validator.is_valid(&json), "the schema admits {bad:?}");
        assert!(cartograph_query_parse(bad), "the reader admits {bad:?}");
    }
}

/// Whether `cartograph check` refuses a rules file (exit 2).
fn cartograph_query_parse(text: &str) -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("cartograph.toml"), text).expect("write");
    run_in(dir.path(), &["check"], &[]).status.code() == Some(2)
}

/// SARIF from `check` and `diff` against the official OASIS SARIF 2.1.0 schema. The schema is not
/// in the repository: `scripts/test.sh` fetches it from PyPI (`scripts/validate-sarif.sh
/// --schema-path`) and passes its path in `SARIF_SCHEMA`; the same script then runs Microsoft's
/// SARIF Multitool over the SARIF goldens.
#[test]
fn sarif_validates_against_the_official_schema() {
    let Some(path) = std::env::var_os("SARIF_SCHEMA").filter(|p| !p.is_empty()) else {
        eprintln!(
            "skipped: set SARIF_SCHEMA to the official sarif-schema-2.1.0.json \
             (SARIF_SCHEMA=$(scripts/validate-sarif.sh --schema-path)); scripts/test.sh does"
        );
        return;
    };
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read the SARIF schema"))
            .expect("schema is JSON");
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let runs: [&[&str]; 3] = [
        &["check", "rules/head", "--sarif", "-"],
        &["diff", "rules/base", "rules/head", "--sarif", "-"],
        &["diff", "diff/base", "diff/head", "--sarif", "-"],
    ];
    for args in runs {
        let output = check(args);
        let text = stdout(&output);
        assert_no_absolute_paths(&text);
        let log: serde_json::Value = serde_json::from_str(&text).expect("SARIF is JSON");
        let errors: Vec<String> =
            validator.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{args:?}: {errors:?}");
        assert!(!log["runs"][0]["results"].as_array().expect("results").is_empty(), "{args:?}");
    }
}
