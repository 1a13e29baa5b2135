//! `cartograph snapshot --shard K/N` and `cartograph merge`: the merged snapshot is the unsharded
//! one, byte for byte, whatever the number of shards, the order of the fact files, the options and
//! the kind of tree; what cannot be merged is refused in one sentence.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{assert_no_absolute_paths, fixture, run, run_in, stderr, stdout, valid_document};

/// Writes the `count` fact files of `tree` (run in `dir`) into `out` and returns their paths.
fn shards(dir: &Path, tree: &str, count: u32, extra: &[&str], out: &Path) -> Vec<String> {
    (1..=count)
        .map(|index| {
            let file = out.join(format!("shard-{index}-of-{count}.facts"));
            let file = file.to_str().expect("utf-8").to_owned();
            let spec = format!("{index}/{count}");
            let mut args = vec!["snapshot", tree, "--shard", &spec, "-o", &file];
            args.extend_from_slice(extra);
            let output = run_in(dir, &args, &[]);
            assert!(output.status.success(), "shard {spec}: {}", stderr(&output));
            assert!(stdout(&output).is_empty(), "a shard writes only its fact file");
            file
        })
        .collect()
}

/// `cartograph merge FILES...` in `dir`, stdout.
fn merge(dir: &Path, files: &[String]) -> String {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    let output = run_in(dir, &args, &[]);
    assert!(output.status.success(), "merge: {}", stderr(&output));
    stdout(&output)
}

fn snapshot(dir: &Path, tree: &str, extra: &[&str]) -> String {
    let mut args = vec!["snapshot", tree];
    args.extend_from_slice(extra);
    let output = run_in(dir, &args, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

#[test]
fn merged_shards_are_the_unsharded_snapshot_byte_for_byte() {
    let fixtures = common::workspace().join("tests/fixtures");
    let out = tempfile::tempdir().expect("temp dir");
    for tree in ["polyglot", "fullstack", "diff/base", "diff/head", "diff-same-language/head"] {
        let whole = snapshot(&fixtures, tree, &[]);
        valid_document(&whole);
        for count in [1, 2, 3, 7] {
            let mut files = shards(&fixtures, tree, count, &[], out.path());
            // The order of the fact files on the command line does not matter.
            files.reverse();
            assert_eq!(merge(&fixtures, &files), whole, "{tree} in {count} shards");
        }
    }
    // The options that shape the analysis travel in the fact files.
    for extra in [&["--imports-only"][..], &["--components", "depth:1", "--include-builtins"]] {
        let whole = snapshot(&fixtures, "polyglot", extra);
        let files = shards(&fixtures, "polyglot", 3, extra, out.path());
        assert_eq!(merge(&fixtures, &files), whole, "{extra:?}");
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("type");
        if kind.is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn a_generated_monorepo_merges_to_its_snapshot_and_diffs_like_the_trees() {
    // Twelve services cut from the fixtures, each under its own folder, plus the root files: a
    // tree whose shards each hold files of every service and whose links cross shards.
    let repo = tempfile::tempdir().expect("temp dir");
    for i in 0..6 {
        copy_tree(&fixture("fullstack"), &repo.path().join(format!("services/full{i}")));
        copy_tree(&fixture("diff/head"), &repo.path().join(format!("services/shop{i}")));
    }
    let out = tempfile::tempdir().expect("temp dir");
    let whole = snapshot(repo.path(), ".", &[]);
    let doc = valid_document(&whole);
    assert!(doc["stats"]["files_analysed"].as_u64().unwrap_or(0) > 100, "a tree of some size");
    let files = shards(repo.path(), ".", 4, &[], out.path());
    assert_eq!(merge(repo.path(), &files), whole);

    // `diff` takes merged snapshots on both sides and reports what the trees themselves give.
    let head = tempfile::tempdir().expect("temp dir");
    copy_tree(repo.path(), head.path());
    std::fs::remove_dir_all(head.path().join("services/shop3")).expect("rm");
    let head_out = out.path().join("head");
    std::fs::create_dir(&head_out).expect("mkdir");
    let head_files = shards(head.path(), ".", 4, &[], &head_out);
    let base_json = out.path().join("base.snapshot.json");
    let head_json = out.path().join("head.snapshot.json");
    std::fs::write(&base_json, merge(repo.path(), &files)).expect("write");
    std::fs::write(&head_json, merge(head.path(), &head_files)).expect("write");
    let diff = |base: &Path, head: &Path| {
        let output = run_in(
            out.path(),
            &["diff", base.to_str().expect("utf-8"), head.to_str().expect("utf-8"), "--json"],
            &[],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        let mut doc = valid_document(&stdout(&output));
        for side in ["base", "head"] {
            doc[side]["source"] = serde_json::Value::Null;
            doc[side]["label"] = serde_json::Value::Null;
        }
        doc
    };
    let from_snapshots = diff(&base_json, &head_json);
    assert_eq!(from_snapshots, diff(repo.path(), head.path()));
    assert!(
        from_snapshots["nodes"]["removed"].as_array().is_some_and(|n| n.len() > 10),
        "the removed service's modules are in the diff"
    );
}

#[test]
fn a_shard_of_a_revision_merges_to_the_revision_snapshot() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: git is not installed (install git to run this test)");
        return;
    }
    let repo = tempfile::tempdir().expect("temp dir");
    copy_tree(&fixture("diff/base"), repo.path());
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(repo.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", repo.path().join("no-global-config"))
            .env("HOME", repo.path())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "base"]);
    // The working tree moves on; the revision is what is analysed.
    std::fs::write(repo.path().join("extra.py"), "import os\n").expect("write");
    let out = tempfile::tempdir().expect("temp dir");
    let whole = snapshot(repo.path(), "HEAD", &[]);
    let files = shards(repo.path(), "HEAD", 3, &[], out.path());
    assert_eq!(merge(repo.path(), &files), whole);
    assert!(!whole.contains("extra.py"));
}

#[test]
fn a_shard_uses_the_fact_cache() {
    let cache = tempfile::tempdir().expect("temp dir");
    let cache = cache.path().to_str().expect("utf-8");
    let out = tempfile::tempdir().expect("temp dir");
    let stats = out.path().join("stats.json");
    let stats = stats.to_str().expect("utf-8");
    let facts = out.path().join("s.facts");
    let facts = facts.to_str().expect("utf-8");
    let shard = |expect_misses: bool| {
        let output = run(&[
            "snapshot",
            "tests/fixtures/polyglot",
            "--shard",
            "1/2",
            "-o",
            facts,
            "--cache",
            cache,
            "--cache-stats",
            stats,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let doc = valid_document(&std::fs::read_to_string(stats).expect("stats"));
        assert_eq!(doc["misses"].as_u64().unwrap_or(0) > 0, expect_misses, "{doc}");
        std::fs::read(facts).expect("facts")
    };
    let cold = shard(true);
    let warm = shard(false);
    assert_eq!(cold, warm, "a fact file does not depend on the cache");
}

#[test]
fn what_cannot_be_merged_is_refused_in_one_sentence() {
    let fixtures = common::workspace().join("tests/fixtures");
    let out = tempfile::tempdir().expect("temp dir");
    let files = shards(&fixtures, "polyglot", 3, &[], out.path());
    let other = out.path().join("other");
    std::fs::create_dir(&other).expect("mkdir");
    let other_tree = shards(&fixtures, "diff/head", 3, &[], &other);
    let imports_only = out.path().join("io");
    std::fs::create_dir(&imports_only).expect("mkdir");
    let other_options = shards(&fixtures, "polyglot", 3, &["--imports-only"], &imports_only);
    let two = out.path().join("two");
    std::fs::create_dir(&two).expect("mkdir");
    let halves = shards(&fixtures, "polyglot", 2, &[], &two);
    let damaged = out.path().join("damaged.facts");
    let mut bytes = std::fs::read(&files[0]).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&damaged, bytes).expect("write");
    let not_facts = out.path().join("snapshot.json");
    std::fs::write(&not_facts, snapshot(&fixtures, "polyglot", &[])).expect("write");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();

    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![files[0].clone(), files[1].clone()], "shard 3 of 3 is missing"),
        (vec![files[0].clone(), files[0].clone(), files[1].clone()], "both shard 1"),
        (vec![files[0].clone(), files[1].clone(), other_tree[2].clone()], "another tree"),
        (vec![files[0].clone(), files[1].clone(), other_options[2].clone()], "other options"),
        (
            vec![files[0].clone(), halves[1].clone()],
            "is shard 2 of 2, but fact file 1 is of 3 shards",
        ),
        (vec![path(&damaged), files[1].clone(), files[2].clone()], "fact file 1 is damaged"),
        (vec![files[0].clone(), path(&not_facts)], "fact file 2 is not a Cartograph fact file"),
        (vec![path(&out.path().join("absent.facts"))], "cannot read fact file"),
    ];
    for (args, expected) in cases {
        let mut argv = vec!["merge"];
        argv.extend(args.iter().map(String::as_str));
        let output = run_in(&fixtures, &argv, &[]);
        assert_eq!(output.status.code(), Some(2), "{argv:?}: {}", stderr(&output));
        let message = stderr(&output);
        assert!(message.contains(expected), "{expected}: {message}");
        assert_eq!(message.trim().lines().count(), 1, "one sentence: {message}");
        assert!(stdout(&output).is_empty());
        assert_no_absolute_paths(&message);
    }

    let snapshot_file = path(&not_facts);
    for (args, expected) in [
        (vec!["snapshot", "polyglot", "--shard", "0/3", "-o", "x"], "names no shard"),
        (vec!["snapshot", "polyglot", "--shard", "4/3", "-o", "x"], "names no shard"),
        (vec!["snapshot", "polyglot", "--shard", "two", "-o", "x"], "is not K/N"),
        (vec!["snapshot", "polyglot", "--shard", "1/0", "-o", "x"], "number of shards"),
        (vec!["snapshot", &snapshot_file, "--shard", "1/2", "-o", "x"], "is a snapshot file"),
        (vec!["merge", &files[0], "--threads", "0"], "--threads must be at least 1"),
    ] {
        let output = run_in(&fixtures, &args, &[]);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(expected), "{expected}: {}", stderr(&output));
        assert_no_absolute_paths(&stderr(&output));
    }
    assert!(!fixtures.join("x").exists(), "nothing is written on a refusal");
}
