//! Promises of the README that no other test kept, through the real binary: `.gitignore` does not
//! apply to the tracked files of a revision; a covered finding still trips `--fail-on` on its own
//! kind; `--threads`, `--blast-depth`, `--cache-max-mib` and `--components` do what the CLI
//! reference says. Every expected value is derived, in a comment, from the files the test writes
//! or from a fixture.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{run, run_in, stderr, stdout, valid_document};

/// Runs `git` in `dir` with no system, global or user configuration (`home` is an empty temporary
/// folder and the global file is one that does not exist) and never signing.
fn git(home: &Path, dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(["-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("HOME", home)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
    std::fs::write(full, text).expect("write");
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// The ids of a document's nodes of one kind.
fn node_ids(doc: &serde_json::Value, kind: &str) -> BTreeSet<String> {
    doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["kind"] == kind)
        .map(|n| n["id"].as_str().expect("id").to_owned())
        .collect()
}

/// `from -> to` of a document's edges of one kind.
fn edges(doc: &serde_json::Value, kind: &str) -> BTreeSet<String> {
    doc["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["kind"] == kind)
        .map(|e| format!("{} -> {}", e["from"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect()
}

#[test]
fn gitignore_does_not_apply_to_the_tracked_files_of_a_revision() {
    let temp = tempfile::tempdir().expect("temp dir");
    let (home, repo) = (temp.path().join("home"), temp.path().join("repo"));
    std::fs::create_dir_all(&home).expect("mkdir");
    std::fs::create_dir_all(&repo).expect("mkdir");
    git(&home, &repo, &["init", "-q"]);
    // Commit 1 tracks both modules; commit 2 adds a `.gitignore` that matches one of them. The
    // file stays tracked (ignoring a tracked file does not untrack it) and stays on disk.
    write(&repo, "main.py", "import generated\n");
    write(&repo, "generated.py", "import requests\n");
    git(&home, &repo, &["add", "-A"]);
    git(&home, &repo, &["commit", "-q", "-m", "both modules"]);
    write(&repo, ".gitignore", "generated.py\n");
    git(&home, &repo, &["add", ".gitignore"]);
    git(&home, &repo, &["commit", "-q", "-m", "ignore the generated module"]);

    let home_text = utf8(&home);
    let gitconfig = home.join("gitconfig");
    let env = [
        ("HOME", home_text),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", utf8(&gitconfig)),
    ];
    let by_revision = run_in(&repo, &["snapshot", "rev:HEAD"], &env);
    assert!(by_revision.status.success(), "{}", stderr(&by_revision));
    let by_revision = valid_document(&stdout(&by_revision));
    // Both tracked files are read: two modules, `main.py` importing `generated.py`, which
    // imports the third-party `requests`.
    assert_eq!(
        node_ids(&by_revision, "module"),
        BTreeSet::from(["module:generated.py".to_owned(), "module:main.py".to_owned()])
    );
    assert_eq!(
        edges(&by_revision, "imports"),
        BTreeSet::from([
            "module:generated.py -> package:pypi:requests".to_owned(),
            "module:main.py -> module:generated.py".to_owned(),
        ])
    );
    assert_eq!(by_revision["stats"]["files_analysed"], 2);

    // The control: the same files as a directory, whose walk honours `.gitignore`, leave the
    // ignored module out, so the test above is not passing because nothing is ever ignored.
    let by_directory = run_in(&repo, &["snapshot", "dir:."], &env);
    assert!(by_directory.status.success(), "{}", stderr(&by_directory));
    let by_directory = valid_document(&stdout(&by_directory));
    assert_eq!(node_ids(&by_directory, "module"), BTreeSet::from(["module:main.py".to_owned()]));
    assert_eq!(by_directory["stats"]["files_analysed"], 1);
}

#[test]
fn a_covered_route_added_still_trips_fail_on_route_added() {
    // The same-language pair: head adds `POST /api/orders` to the Express server and a Vue
    // component's call to it. One call edge makes one `new-call` finding, which covers the
    // route's `route-added` (README: "a new route that is also newly called is one row"). The
    // covered finding keeps its kind at severity `info`, "so `--fail-on route-added` still trips
    // on a covered route".
    let output = run(&[
        "diff",
        "tests/fixtures/diff-same-language/base",
        "tests/fixtures/diff-same-language/head",
        "--json",
        "-",
        "--fail-on",
        "route-added",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("route-added"), "{}", stderr(&output));
    let doc = valid_document(&stdout(&output));
    let route_added: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "route-added")
        .collect();
    // The only `route-added` finding is the covered one: what tripped the gate is covered.
    assert_eq!(route_added.len(), 1);
    assert_eq!(route_added[0]["severity"], "info");
    assert_eq!(route_added[0]["subject"], "route:POST /api/orders");
    assert_eq!(route_added[0]["covered_by"]["kind"], "new-call");
}

#[test]
fn the_thread_count_changes_no_byte_of_any_document() {
    // README: every JSON document "is byte-identical across runs and thread counts". One worker
    // and four workers, on the diff fixture pair (every finding kind but `new-call`) and on the
    // full-stack fixture's snapshot.
    let diff = |threads: &str| {
        let output = run(&[
            "diff",
            "tests/fixtures/diff/base",
            "tests/fixtures/diff/head",
            "--json",
            "--threads",
            threads,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    let one = diff("1");
    valid_document(&one);
    assert_eq!(one, diff("4"));
    let snapshot = |threads: &str| {
        let output = run(&["snapshot", "tests/fixtures/fullstack", "--threads", threads]);
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    assert_eq!(snapshot("1"), snapshot("4"));
    // No workers is bad usage: exit 2 and one sentence.
    let zero = run(&["snapshot", "tests/fixtures/fullstack", "--threads", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(stderr(&zero).contains("--threads must be at least 1"), "{}", stderr(&zero));
}

/// The blast-radius section of a diff's Markdown: its headline, and the component column of its
/// table.
fn blast_section(markdown: &str) -> (String, Vec<String>) {
    let headline = markdown
        .lines()
        .find(|l| l.contains(" reaches **"))
        .unwrap_or_else(|| panic!("no blast headline in:\n{markdown}"))
        .to_owned();
    let rows = markdown
        .lines()
        .skip_while(|l| !l.contains(" reaches **"))
        .take_while(|l| !l.starts_with("<sub>"))
        .filter_map(|l| l.strip_prefix("| <code>"))
        .map(|l| l.split("</code>").next().unwrap_or_default().to_owned())
        .collect();
    (headline, rows)
}

#[test]
fn blast_depth_bounds_how_far_the_blast_radius_of_a_diff_ranks() {
    // A chain of imports, each module in its own folder (so its own component under
    // `depth:1`): b imports a, c imports b, d imports c. Head changes only `a/a.py` (one
    // changed module, one target). Walking importers backwards, b is 1 edge away, c 2 and d 3:
    // all 3 are reached and always counted; `--blast-depth N` ranks (as table rows, with their
    // chains) the ones within N edges and counts the other 3 - N as deeper.
    let temp = tempfile::tempdir().expect("temp dir");
    let (base, head) = (temp.path().join("base"), temp.path().join("head"));
    for tree in [&base, &head] {
        write(tree, "b/b.py", "from a import a\n");
        write(tree, "c/c.py", "from b import b\n");
        write(tree, "d/d.py", "from c import c\n");
    }
    write(&base, "a/a.py", "X = 1\n");
    write(&head, "a/a.py", "X = 2\n");
    let section = |extra: &[&str]| {
        let mut args = vec!["diff", utf8(&base), utf8(&head), "--components", "depth:1"];
        args.extend_from_slice(extra);
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        blast_section(&stdout(&output))
    };
    let depth = |n: &str| section(&["--blast-depth", n]);
    let (headline, rows) = depth("1");
    assert_eq!(
        headline,
        "1 target reaches **3 nodes**; the 1 nearest are 1 module in 1 component. \
         Counted but not ranked: 2 deeper than 1 edge."
    );
    assert_eq!(rows, ["b"]);
    let (headline, rows) = depth("2");
    assert_eq!(
        headline,
        "1 target reaches **3 nodes**; the 2 nearest are 2 modules in 2 components. \
         Counted but not ranked: 1 deeper than 2 edges."
    );
    assert_eq!(rows, ["b", "c"]);
    let (headline, rows) = depth("3");
    assert_eq!(headline, "1 target reaches **3 nodes**: 3 modules in 3 components.");
    assert_eq!(rows, ["b", "c", "d"]);
    assert_eq!(section(&[]), depth("3"), "the default depth is 3");
}

/// The `.facts` entries under a cache directory.
fn cache_entries(dir: &Path) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read cache dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "facts") {
                count += 1;
            }
        }
    }
    count
}

#[test]
fn cache_max_mib_bounds_the_cache_directory() {
    // The fixture's base tree: `snapshot` says how many files it analyses; each analysed file
    // is extracted once and written as one cache entry (the key is path and content).
    let snapshot = run(&["snapshot", "tests/fixtures/diff/base"]);
    assert!(snapshot.status.success(), "{}", stderr(&snapshot));
    let analysed = valid_document(&stdout(&snapshot))["stats"]["files_analysed"]
        .as_u64()
        .expect("files_analysed") as usize;
    assert!(analysed > 0);
    let map_with = |dir: &Path, mib: &str| {
        let output = run(&[
            "map",
            "tests/fixtures/diff/base",
            "--json",
            "--cache",
            utf8(dir),
            "--cache-max-mib",
            mib,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
    };
    // A bound far above a few kilobytes of entries keeps every one.
    let roomy = tempfile::tempdir().expect("temp dir");
    map_with(roomy.path(), "512");
    assert_eq!(cache_entries(roomy.path()), analysed);
    // A bound of 0 MiB: the least recently used entries go until the directory is within 0
    // bytes, which is all of them.
    let none = tempfile::tempdir().expect("temp dir");
    map_with(none.path(), "0");
    assert_eq!(cache_entries(none.path()), 0);
}

/// Module id → component, from a snapshot document.
fn components(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["kind"] == "module")
        .map(|n| {
            (n["name"].as_str().unwrap().to_owned(), n["component"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn components_group_modules_by_the_configured_rule() {
    // `depth:N` is the first N folders of a module's path (fewer when the path has fewer), `.`
    // for a module at the root.
    let temp = tempfile::tempdir().expect("temp dir");
    let tree = temp.path();
    write(tree, "svc/api/routes/items.py", "X = 1\n");
    write(tree, "svc/worker.py", "Y = 1\n");
    write(tree, "web/src/lib/api.ts", "export const z = 1;\n");
    write(tree, "setup.py", "Z = 1\n");
    let snapshot = |rule: &str| {
        let output = run(&["snapshot", utf8(tree), "--components", rule]);
        assert!(output.status.success(), "{}", stderr(&output));
        components(&valid_document(&stdout(&output)))
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    };
    assert_eq!(
        snapshot("depth:1"),
        pairs(&[
            ("setup.py", "."),
            ("svc/api/routes/items.py", "svc"),
            ("svc/worker.py", "svc"),
            ("web/src/lib/api.ts", "web"),
        ])
    );
    assert_eq!(
        snapshot("depth:2"),
        pairs(&[
            ("setup.py", "."),
            ("svc/api/routes/items.py", "svc/api"),
            ("svc/worker.py", "svc"),
            ("web/src/lib/api.ts", "web/src"),
        ])
    );
    // A word that is not a rule is bad usage.
    let bad = run(&["snapshot", utf8(tree), "--components", "folders:2"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("is not a rule"), "{}", stderr(&bad));
}
