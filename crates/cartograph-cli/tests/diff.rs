//! `cartograph diff` end to end: the fixture pair produces every finding kind; directories, git
//! revisions and snapshot files give the same diff; reports go where asked; `--fail-on` gates;
//! bad input gets one sentence and exit 2.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{assert_no_absolute_paths, fixture, run, run_in, stderr, stdout, valid_document};

fn fixture_diff(extra: &[&str]) -> std::process::Output {
    let mut args = vec!["diff", "tests/fixtures/diff/base", "tests/fixtures/diff/head"];
    args.extend_from_slice(extra);
    run(&args)
}

/// The parts of a diff document that do not depend on how the trees were named.
fn comparable(doc: &serde_json::Value) -> serde_json::Value {
    let mut doc = doc.clone();
    for side in ["base", "head"] {
        doc[side]["source"] = serde_json::Value::Null;
        doc[side]["label"] = serde_json::Value::Null;
    }
    doc["verdict"] = serde_json::Value::Null;
    doc
}

/// The kinds of the findings of a diff document.
fn finding_kinds(doc: &serde_json::Value) -> BTreeSet<String> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_fixture_pairs_produce_every_finding_kind() {
    let output = fixture_diff(&["--json", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert_no_absolute_paths(&text);
    let doc = valid_document(&text);
    let same_language = run(&[
        "diff",
        "tests/fixtures/diff-same-language/base",
        "tests/fixtures/diff-same-language/head",
        "--json",
        "-",
    ]);
    assert!(same_language.status.success(), "{}", stderr(&same_language));
    let same_language = valid_document(&stdout(&same_language));
    let mut kinds = finding_kinds(&doc);
    assert!(!kinds.contains("new-call"), "Ledger's frontend and backend are two languages");
    kinds.extend(finding_kinds(&same_language));
    // The rule kinds come from the rules fixture, whose head breaks its rules.
    let rules =
        run(&["diff", "tests/fixtures/rules/base", "tests/fixtures/rules/head", "--json", "-"]);
    assert!(rules.status.success(), "{}", stderr(&rules));
    kinds.extend(finding_kinds(&valid_document(&stdout(&rules))));
    let every: BTreeSet<String> =
        cartograph_graph::FindingKind::ALL.iter().map(|k| k.as_str().to_owned()).collect();
    assert_eq!(kinds, every, "finding kinds");
    for finding in doc["findings"].as_array().expect("findings") {
        assert!(
            !finding["edges"].as_array().expect("edges").is_empty(),
            "every finding names the edges that justify it: {finding}"
        );
    }
    let moved: Vec<&str> = doc["nodes"]["changed"]
        .as_array()
        .expect("changed nodes")
        .iter()
        .filter(|n| n["moved"] == true)
        .filter_map(|n| n["id"].as_str())
        .collect();
    assert_eq!(moved, ["route:GET /api/items/{}"]);
}

#[test]
fn json_and_markdown_in_one_run_and_fail_on_gates_after_writing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("diff.json");
    let md = dir.path().join("diff.md");
    let output = fixture_diff(&[
        "--json",
        json.to_str().expect("utf-8"),
        "--markdown",
        md.to_str().expect("utf-8"),
        "--fail-on",
        "route-removed,new-cycle",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    assert!(stderr(&output).contains("route-removed"), "{}", stderr(&output));
    valid_document(&std::fs::read_to_string(&json).expect("json written"));
    let markdown = std::fs::read_to_string(&md).expect("markdown written");
    assert!(markdown.chars().count() <= 65_536);
    assert!(markdown.contains("```mermaid"), "the report draws the changed edges");
    assert_no_absolute_paths(&markdown);

    // A gate on a kind that is absent passes; `any` on identical trees passes.
    let output = fixture_diff(&["--json", "-", "--fail-on", "route-added-nowhere"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("is not a finding kind"), "{}", stderr(&output));
    let same =
        run(&["diff", "tests/fixtures/diff/base", "tests/fixtures/diff/base", "--fail-on", "any"]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    assert!(stdout(&same).contains("No architectural change"), "{}", stdout(&same));
}

/// Express and Vue, both TypeScript: the component's new call to the new route is one `new-call`
/// finding, which covers the route's `route-added`; `--fail-on new-call` trips on it.
#[test]
fn a_same_language_call_is_one_new_call_finding_and_gates() {
    let pair = |extra: &[&str]| {
        let mut args = vec![
            "diff",
            "tests/fixtures/diff-same-language/base",
            "tests/fixtures/diff-same-language/head",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let output = pair(&["--json", "-"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    let findings: Vec<(String, String, String)> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let text = |key: &str| f[key].as_str().unwrap_or_default().to_owned();
            (text("kind"), text("severity"), text("subject"))
        })
        .collect();
    assert_eq!(
        findings,
        [
            ("new-call".to_owned(), "low".to_owned(), "route:POST /api/orders".to_owned()),
            ("route-added".to_owned(), "info".to_owned(), "route:POST /api/orders".to_owned()),
        ]
    );
    assert_eq!(doc["findings"][1]["covered_by"]["kind"], "new-call");
    assert_eq!(doc["summary"]["findings_by_kind"]["new-call"], 1);
    assert_eq!(doc["summary"]["findings_by_kind"]["new-cross-language-call"], 0);

    let gated = pair(&["--json", "-", "--fail-on", "new-call"]);
    assert_eq!(gated.status.code(), Some(1), "{}", stderr(&gated));
    assert!(stderr(&gated).contains("new-call"), "{}", stderr(&gated));
    let any = pair(&["--json", "-", "--fail-on", "any"]);
    assert_eq!(any.status.code(), Some(1), "{}", stderr(&any));
    let other = pair(&["--json", "-", "--fail-on", "new-cross-language-call"]);
    assert_eq!(other.status.code(), Some(0), "{}", stderr(&other));
    // Ledger's call crosses languages: a `new-call` gate does not trip on it.
    let ledger = fixture_diff(&["--json", "-", "--fail-on", "new-call"]);
    assert_eq!(ledger.status.code(), Some(0), "{}", stderr(&ledger));
}

#[test]
fn markdown_is_the_default_output() {
    let output = fixture_diff(&[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("route removed"), "{text}");
    assert!(text.contains("/api/orders/export"), "{text}");
}

#[test]
fn a_snapshot_file_is_a_tree_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    let snapshot = dir.path().join("base.json");
    let written =
        run(&["snapshot", "tests/fixtures/diff/base", "-o", snapshot.to_str().expect("utf-8")]);
    assert!(written.status.success(), "{}", stderr(&written));
    let from_snapshot =
        run(&["diff", snapshot.to_str().expect("utf-8"), "tests/fixtures/diff/head", "--json"]);
    assert!(from_snapshot.status.success(), "{}", stderr(&from_snapshot));
    let from_dirs = fixture_diff(&["--json"]);
    let a = comparable(&valid_document(&stdout(&from_snapshot)));
    let b = comparable(&valid_document(&stdout(&from_dirs)));
    assert_eq!(a["findings"], b["findings"]);
    assert_eq!(a["edges"], b["edges"]);
    assert_eq!(a["nodes"], b["nodes"]);
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", dir.join(".git/no-global-config"))
        .env("HOME", dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn clear(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("read") {
        let entry = entry.expect("entry");
        if entry.file_name() == ".git" {
            continue;
        }
        if entry.file_type().expect("type").is_dir() {
            std::fs::remove_dir_all(entry.path()).expect("rm");
        } else {
            std::fs::remove_file(entry.path()).expect("rm");
        }
    }
}

#[test]
fn two_commits_diff_by_revision_like_two_directories() {
    let repo = tempfile::tempdir().expect("temp dir");
    let root = repo.path();
    git(root, &["init", "-q", "-b", "main"]);
    copy_tree(&fixture("diff/base"), root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    git(root, &["tag", "v1"]);
    clear(root);
    copy_tree(&fixture("diff/head"), root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "head"]);
    // Leave the working tree dirty: the revisions are read from the object store, not from it.
    std::fs::write(root.join("backend/app/main.py"), "import nothing_here\n").expect("dirty");

    let env = [("HOME", root.to_str().expect("utf-8")), ("GIT_CONFIG_NOSYSTEM", "1")];
    let output = run_in(root, &["diff", "v1", "HEAD", "--json"], &env);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains(root.to_str().expect("utf-8")), "no temp path in the report");
    let by_revision = valid_document(&text);
    assert_eq!(by_revision["base"]["source"], "revision");
    assert!(by_revision["base"]["label"].as_str().expect("label").starts_with("v1 ("));
    let by_directory = valid_document(&stdout(&fixture_diff(&["--json"])));
    assert_eq!(comparable(&by_revision), comparable(&by_directory));
    assert_eq!(
        std::fs::read_to_string(root.join("backend/app/main.py")).expect("read"),
        "import nothing_here\n",
        "the working tree is untouched"
    );

    // `HEAD~1` and an abbreviated SHA name the same commit as the tag.
    let output = run_in(root, &["diff", "HEAD~1", "rev:HEAD", "--json"], &env);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(comparable(&valid_document(&stdout(&output))), comparable(&by_directory));

    // An unknown revision is one sentence and exit 2.
    let output = run_in(root, &["diff", "v9", "HEAD"], &env);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(!message.contains(root.to_str().expect("utf-8")), "{message}");

    // A directory named like a revision is ambiguous until disambiguated.
    std::fs::create_dir_all(root.join("main")).expect("mkdir");
    let output = run_in(root, &["diff", "main", "HEAD"], &env);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("rev:main"), "{}", stderr(&output));
    let output = run_in(root, &["diff", "rev:main", "HEAD", "--json"], &env);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let newer = dir.path().join("newer.json");
    std::fs::write(&newer, "{\"schema\": \"snapshot\", \"schema_version\": \"9.0\"}")
        .expect("write");
    let corrupt = dir.path().join("corrupt.json");
    std::fs::write(
        &corrupt,
        "{\"schema\": \"snapshot\", \"schema_version\": \"1.1\", \"nodes\": [",
    )
    .expect("write");
    let not_json = dir.path().join("env.json");
    std::fs::write(&not_json, "SECRET_TOKEN=hunter2\n").expect("write");
    for (base, needle) in [
        (newer.to_str().expect("utf-8"), "newer"),
        (corrupt.to_str().expect("utf-8"), "not valid JSON"),
        (not_json.to_str().expect("utf-8"), "is a file, not a directory or a snapshot document"),
    ] {
        let output = run(&["diff", base, "tests/fixtures/diff/head"]);
        assert_eq!(output.status.code(), Some(2), "{base}");
        let message = stderr(&output);
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(message.contains(needle), "{message}");
        assert!(!message.contains("hunter2"), "{message}");
        assert_no_absolute_paths(&message);
    }

    // An empty tree and two unrelated trees are valid input: an honest report.
    let empty = tempfile::tempdir().expect("temp dir");
    let output =
        run(&["diff", empty.path().to_str().expect("utf-8"), "tests/fixtures/diff/head", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    assert_eq!(doc["base"]["files_analysed"], 0);
    let output = run(&["diff", "tests/fixtures/polyglot", "tests/fixtures/fullstack", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    valid_document(&stdout(&output));
}

/// How many file contents a run parsed, from its `distinct contents extracted` debug line (a
/// content the cache answers is not parsed).
fn contents_extracted(output: &std::process::Output) -> usize {
    let log = stderr(output);
    let line = log
        .lines()
        .find(|l| l.contains("distinct contents extracted"))
        .unwrap_or_else(|| panic!("no extraction line in the debug log:\n{log}"));
    let value = line.split("extracted=").nth(1).expect("an `extracted` field");
    value[..value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len())]
        .parse()
        .expect("a count")
}

/// The paths of the files a snapshot document says were analysed (its modules with a language).
fn analysed_paths(tree: &str) -> BTreeSet<String> {
    let output = run(&["snapshot", tree]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    let paths: BTreeSet<String> = doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["kind"] == "module" && n["language"].is_string())
        .map(|n| n["name"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(Some(paths.len() as u64), doc["stats"]["files_analysed"].as_u64(), "{tree}");
    paths
}

#[test]
fn a_warm_cache_gives_the_same_report_without_parsing_anything() {
    // What a cold run must parse: each analysed file of either tree once, and a file whose bytes
    // are the same in both trees only once (the key is path and content).
    let (base, head) = ("tests/fixtures/diff/base", "tests/fixtures/diff/head");
    let (base_paths, head_paths) = (analysed_paths(base), analysed_paths(head));
    let unchanged = base_paths
        .intersection(&head_paths)
        .filter(|path| {
            let read = |tree: &str| std::fs::read(fixture(tree).join(path)).expect("read");
            read("diff/base") == read("diff/head")
        })
        .count();
    let distinct = base_paths.len() + head_paths.len() - unchanged;
    assert!(unchanged > 0 && distinct > unchanged, "the pair shares files and changes some");

    let cache = tempfile::tempdir().expect("temp dir");
    let cache = cache.path().to_str().expect("utf-8");
    let debug = [("CARTOGRAPH_LOG", "debug")];
    let diff = |extra: &[&str]| {
        let mut args = vec!["diff", base, head, "--json"];
        args.extend_from_slice(extra);
        let output = run_in(&common::workspace(), &args, &debug);
        assert!(output.status.success(), "{}", stderr(&output));
        output
    };
    let uncached = diff(&[]);
    assert_eq!(contents_extracted(&uncached), distinct);
    let cold = diff(&["--cache", cache]);
    assert_eq!(contents_extracted(&cold), distinct, "an empty cache answers nothing");
    // The warm run is answered entirely by the cache: no content is parsed (a cache that kept
    // nothing would parse all of them again), and the report is the same, byte for byte.
    let warm = diff(&["--cache", cache]);
    assert_eq!(contents_extracted(&warm), 0);
    assert_eq!(stdout(&cold), stdout(&warm));
    assert_eq!(stdout(&cold), stdout(&uncached));

    // `--cache-stats` says the same in a document: every distinct content a hit from the
    // directory, nothing parsed or written.
    let stats_dir = tempfile::tempdir().expect("temp dir");
    let stats_file = stats_dir.path().join("stats.json");
    diff(&["--cache", cache, "--cache-stats", stats_file.to_str().expect("utf-8")]);
    let stats = valid_document(&std::fs::read_to_string(&stats_file).expect("stats written"));
    let count = |key: &str| stats[key].as_u64().expect("a count") as usize;
    assert_eq!((count("misses"), count("writes"), count("corrupt")), (0, 0, 0));
    assert_eq!(count("disk_hits"), distinct, "each distinct content read from the directory once");
    assert_eq!(count("hits"), distinct + unchanged, "an unchanged file is a hit for each tree");
    // Both trees were analysed by the cold run and are the same: read whole, neither written.
    assert_eq!((count("trees_hit"), count("trees_written")), (2, 0));
    // Without `--cache` there is nothing to report, and clap says so.
    let lonely =
        run_in(&common::workspace(), &["diff", base, head, "--json", "--cache-stats", "-"], &[]);
    assert_eq!(lonely.status.code(), Some(2));
    assert!(stderr(&lonely).contains("--cache"), "{}", stderr(&lonely));
}

#[test]
fn two_processes_share_one_cache_directory() {
    let cache = tempfile::tempdir().expect("temp dir");
    let cache = cache.path().to_str().expect("utf-8");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_cartograph"))
            .args(["diff", "tests/fixtures/diff/base", "tests/fixtures/diff/head", "--json"])
            .args(["--cache", cache])
            .current_dir(common::workspace())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("cartograph starts")
    };
    let (a, b) = (spawn(), spawn());
    let a = a.wait_with_output().expect("first run");
    let b = b.wait_with_output().expect("second run");
    assert!(a.status.success() && b.status.success(), "{}{}", stderr(&a), stderr(&b));
    assert_eq!(stdout(&a), stdout(&b));
    let warm = fixture_diff(&["--json", "--cache", cache]);
    assert_eq!(
        stdout(&warm),
        stdout(&a),
        "a warm run after concurrent writers reads sound entries"
    );
}
