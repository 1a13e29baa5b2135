//! `cartograph render` and `cartograph diff --write-snapshots`, run as the real binary: a diff
//! JSON (1.0 or 1.1, with or without explanations) renders to the Markdown report and back to the
//! same JSON bytes `cartograph diff --json` writes; a file that is not a diff gets one sentence on
//! stderr and exit 2, naming no absolute path and quoting none of the file; the snapshots written
//! beside a diff are exactly what `cartograph snapshot` writes for each tree.

use crate::common;

use std::path::Path;

use cartograph_report::diff::DiffDocument;
use cartograph_report::diff_markdown::{DiffMarkdownOptions, GITHUB_COMMENT_LIMIT, render_diff};
use common::{
    assert_no_absolute_paths, fixture, run, run_in, stderr, stdout, valid_document, workspace,
};

const EXPLAINED: &str = "tests/fixtures/explained/diff.explained.json";

fn read(path: &str) -> String {
    std::fs::read_to_string(workspace().join(path)).expect("read file")
}

/// Runs `cartograph render` on `file` and returns (exit code, stdout, stderr).
fn render_file(file: &Path, extra: &[&str]) -> (i32, String, String) {
    let name = file.to_str().expect("UTF-8 path");
    let mut args = vec!["render", name];
    args.extend_from_slice(extra);
    let output = run(&args);
    (output.status.code().unwrap_or(-1), stdout(&output), stderr(&output))
}

#[test]
fn renders_the_explained_fixture_as_its_golden_and_its_json_back_byte_for_byte() {
    let output = run(&["render", EXPLAINED]);
    assert!(output.status.success(), "{}", stderr(&output));
    let markdown = stdout(&output);
    assert_eq!(markdown, read("goldens/diff-explained-report.snap.md"));
    assert!(markdown.chars().count() <= GITHUB_COMMENT_LIMIT);
    assert!(markdown.contains("<b>Explanations</b>"));
    assert!(!markdown.contains("Blast radius"), "a report rendered from JSON has no blast radius");

    let output = run(&["render", EXPLAINED, "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json = stdout(&output);
    assert_eq!(json, read(EXPLAINED), "render --json writes the document's own bytes");
    valid_document(&json);
}

#[test]
fn the_json_of_cartograph_diff_is_what_to_json_writes() {
    let dir = workspace().join("tests/fixtures");
    let output = run_in(&dir, &["diff", "diff/base", "diff/head", "--json"], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let written = stdout(&output);
    let doc = DiffDocument::from_json(&written).expect("diff output reads");
    assert_eq!(doc.to_json(), written, "to_json is byte-identical with `diff --json`");
    assert!(doc.explanations.is_none());
    assert!(!written.contains("\"explanations\""));

    // Rendering that JSON gives the diff's report without its blast radius.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("report.json");
    std::fs::write(&file, &written).expect("write report");
    let (code, markdown, err) = render_file(&file, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(markdown, render_diff(&doc, &DiffMarkdownOptions::default()));
    assert!(!markdown.contains("Explanations"));
}

#[test]
fn a_1_0_document_renders() {
    let mut value: serde_json::Value =
        serde_json::from_str(&read("goldens/diff.snap.json")).unwrap();
    value["schema_version"] = "1.0".into();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("old.json");
    std::fs::write(&file, serde_json::to_string_pretty(&value).unwrap()).expect("write");
    let (code, markdown, err) = render_file(&file, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(markdown.starts_with("### "), "{markdown}");
}

#[test]
fn writes_markdown_and_json_to_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let md = dir.path().join("out.md");
    let json = dir.path().join("out.json");
    let output = run(&[
        "render",
        EXPLAINED,
        "--markdown",
        md.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    assert_eq!(
        std::fs::read_to_string(&md).unwrap(),
        read("goldens/diff-explained-report.snap.md")
    );
    assert_eq!(std::fs::read_to_string(&json).unwrap(), read(EXPLAINED));
}

#[test]
fn bad_input_gets_one_sentence_and_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let secret = "hunter2-s3cr3t";
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    };
    let snapshot = workspace().join("goldens/polyglot-snapshot.snap.json");
    let cases = [
        (dir.path().join("missing.json"), "cannot be read (entity not found)"),
        (dir.path().to_path_buf(), "cannot be read"),
        (write("env.json", format!("TOKEN={secret}\n").as_bytes()), "it is not valid JSON"),
        (write("binary.json", &[0xff, 0xfe, 0x00, 0x81]), "it is not UTF-8 text"),
        (write("list.json", format!("[\"{secret}\"]").as_bytes()), "JSON but not an object"),
        (snapshot, "is a `snapshot` document, not a diff"),
        (
            write("other.json", format!("{{\"schema\": \"{secret}\"}}").as_bytes()),
            "names a document Cartograph does not write",
        ),
        (
            write("newer.json", b"{\"schema\": \"diff\", \"schema_version\": \"2.0\"}"),
            "newer than this Cartograph reads",
        ),
        (
            write(
                "shape.json",
                format!("{{\"schema\": \"diff\", \"schema_version\": \"1.1\", \"verdict\": {{\"x\": \"{secret}\"}}}}")
                    .as_bytes(),
            ),
            "does not match the diff schema",
        ),
    ];
    for (path, expected) in cases {
        let (code, out, err) = render_file(&path, &[]);
        assert_eq!(code, 2, "{path:?}: {err}");
        assert!(out.is_empty(), "nothing on stdout: {out}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(expected), "{expected:?} not in {err:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(!err.contains(secret), "the error quotes the file: {err}");
        assert_no_absolute_paths(&err);
    }
}

#[test]
fn write_snapshots_writes_what_cartograph_snapshot_writes() {
    let fixtures = fixture("");
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("nested/snaps");
    let output = run_in(
        &fixtures,
        &["diff", "diff/base", "diff/head", "--json", "--write-snapshots", out.to_str().unwrap()],
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    valid_document(&stdout(&output));
    for (name, tree) in [("base.snapshot.json", "diff/base"), ("head.snapshot.json", "diff/head")] {
        let written = std::fs::read_to_string(out.join(name)).expect("snapshot written");
        let value = valid_document(&written);
        assert_eq!(value["schema"], "snapshot");
        assert_no_absolute_paths(&written);
        let expected = run_in(&fixtures, &["snapshot", tree], &[]);
        assert!(expected.status.success());
        assert_eq!(written, stdout(&expected), "{name} differs from `cartograph snapshot {tree}`");
    }

    // A directory that cannot be created is one sentence naming no absolute path.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").expect("write");
    let inside = blocker.join("snaps");
    let output = run_in(
        &fixtures,
        &[
            "diff",
            "diff/base",
            "diff/head",
            "--json",
            "--write-snapshots",
            inside.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("cannot create the snapshot directory"), "{err}");
    assert_no_absolute_paths(&err);
}
