//! The MCP tools over an in-process rmcp client on a duplex pipe: every tool on the fixture trees,
//! decision 0002's refusal cases (with proof that a refused query read no file), bad arguments, and
//! the session cache.

use crate::common;

use std::sync::Arc;

use common::git::git_in;
use common::{answer_schema, connect, document, refusal, session, workspace};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_six_tools_with_described_inputs() {
    let fixtures = workspace().join("tests/fixtures");
    let c = connect(session(&["fullstack"], &fixtures)).await;
    let tools = c.client.list_all_tools().await.expect("tools");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["blast", "check", "diff", "evidence", "map", "trace"]);
    // The envelope schema rejects what it should.
    assert!(!answer_schema().is_valid(&json!({"tool": "map"})));
    let mismatched = json!({"tool": "map", "summary": "s", "truncated": [],
        "document": {"schema": "diff", "schema_version": "1.0", "tool_version": "0"}});
    assert!(!answer_schema().is_valid(&mismatched));
    for tool in &tools {
        assert!(tool.description.as_ref().is_some_and(|d| d.len() > 40), "{}", tool.name);
        let properties = tool.input_schema.get("properties").and_then(Value::as_object);
        for (name, property) in properties.expect("properties") {
            assert!(
                property.get("description").is_some(),
                "{}.{name} has no description",
                tool.name
            );
        }
    }
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn map_trace_blast_and_evidence_on_the_fullstack_fixture() {
    let fixtures = workspace().join("tests/fixtures");
    let s = session(&["fullstack"], &fixtures);
    let c = connect(Arc::clone(&s)).await;

    let map = document(&c.call("map", json!({"tree": "fullstack"})).await);
    cartograph_report::schema::validate(&map).expect("a valid map document");
    assert!(map["components"]["total"].as_u64().unwrap_or(0) > 0);

    let trace = document(
        &c.call(
            "trace",
            json!({"tree": "fullstack", "from": "frontend/src/features/orders/useOrders.ts",
                   "to": "table:item", "max_paths": 3}),
        )
        .await,
    );
    cartograph_report::schema::validate(&trace).expect("a valid trace document");
    let paths = trace["paths"].as_array().expect("paths");
    assert!(!paths.is_empty() && paths.len() <= 3);

    let blast = document(
        &c.call("blast", json!({"tree": "./fullstack/", "targets": ["backend/app/models.py"]}))
            .await,
    );
    cartograph_report::schema::validate(&blast).expect("a valid blast document");
    assert!(blast["truncation"]["reachable"].as_u64().unwrap_or(0) > 0);

    // One hop of the trace, asked for its evidence.
    let hop = &paths[0]["hops"][0];
    let (kind, from, to) = (hop["kind"].clone(), hop["from"].clone(), hop["to"].clone());
    let evidence = document(
        &c.call("evidence", json!({"tree": "fullstack", "kind": kind, "from": from, "to": to}))
            .await,
    );
    let edge = &evidence["edges"][0];
    for field in ["evidence", "provenance", "confidence", "location"] {
        assert!(!edge[field].is_null(), "evidence lacks {field}: {evidence}");
    }

    // Four queries on one tree: one analysis, three answers from the cache.
    assert_eq!(s.analyses_run(), 1);
    assert!(s.cache_hits() >= 3);
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_answers_from_the_rules_file_inside_the_granted_tree() {
    let fixtures = workspace().join("tests/fixtures");
    let s = session(&["rules/head", "fullstack"], &fixtures);
    let c = connect(Arc::clone(&s)).await;
    let result = c.call("check", json!({"tree": "rules/head", "limit": 1})).await;
    let summary = result.structured_content.clone().expect("structured")["summary"].clone();
    assert!(
        summary.as_str().is_some_and(|t| t.starts_with("check of head: 10 violations reported of 11 rules (7 error, 2 warning, 1 info), 1 accepted by the baseline, 1 stale baseline entry")),
        "{summary}"
    );
    let doc = document(&result);
    let findings = doc["findings"].as_array().expect("findings");
    // Every error violation is kept; one other finding besides.
    assert_eq!(findings.iter().filter(|f| f["severity"] == "high").count(), 7);
    assert_eq!(findings.len(), 8);
    // A tree without a rules file is refused, naming what to write.
    let message = refusal(&c.call("check", json!({"tree": "fullstack"})).await);
    assert!(message.contains("has no rules file: write cartograph.toml"), "{message}");
    // A rules file that is a link (which could lead out of the tree) is never read.
    #[cfg(unix)]
    {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.py"), "import os\n").expect("write");
        std::os::unix::fs::symlink(
            fixtures.join("rules/head/cartograph.toml"),
            dir.path().join("cartograph.toml"),
        )
        .expect("link");
        let tree = dir.path().to_string_lossy().into_owned();
        let linked = session(&[tree.as_str()], dir.path());
        let c2 = connect(linked).await;
        let message = refusal(&c2.call("check", json!({"tree": tree})).await);
        assert!(message.contains("cartograph.toml cannot be read"), "{message}");
        c2.close().await;
    }
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_of_the_fixture_pair_names_the_high_findings_first() {
    let fixtures = workspace().join("tests/fixtures");
    let s = session(&["diff/base", "diff/head"], &fixtures);
    let c = connect(Arc::clone(&s)).await;
    let result = c.call("diff", json!({"base": "diff/base", "head": "diff/head"})).await;
    let doc = document(&result);
    let findings = doc["findings"].as_array().expect("findings");
    let kinds: Vec<&str> = findings.iter().filter_map(|f| f["kind"].as_str()).collect();
    assert!(kinds.contains(&"route-removed") && kinds.contains(&"call-to-removed-route"));
    assert_eq!(findings[0]["severity"], "high");

    // The stale call's head edge, asked for its evidence.
    let stale = findings.iter().find(|f| f["kind"] == "call-to-removed-route").expect("finding");
    let head_edge = stale["edges"]
        .as_array()
        .and_then(|edges| edges.iter().find(|e| e["side"] == "head"))
        .expect("the head call");
    let evidence = document(
        &c.call(
            "evidence",
            json!({"tree": "diff/head", "kind": head_edge["kind"], "from": head_edge["from"],
                   "to": head_edge["to"]}),
        )
        .await,
    );
    assert_eq!(evidence["edges"][0]["confidence"], "possible");

    // A tight limit keeps every high finding, cuts the rest and says so.
    let small = c.call("diff", json!({"base": "diff/base", "head": "diff/head", "limit": 1})).await;
    let value = small.structured_content.clone().expect("structured");
    let high = findings.iter().filter(|f| f["severity"] == "high").count();
    let kept = value["document"]["findings"].as_array().expect("findings");
    assert_eq!(kept.iter().filter(|f| f["severity"] == "high").count(), high);
    assert!(kept.len() <= high + 1);
    let cut: Vec<&str> = value["truncated"]
        .as_array()
        .expect("truncated")
        .iter()
        .filter_map(|t| t["list"].as_str())
        .collect();
    assert!(cut.contains(&"findings"), "{cut:?}");
    cartograph_report::schema::validate(&value["document"]).expect("a cut diff is still valid");

    // The same diff again: no new analysis.
    assert_eq!(s.analyses_run(), 2);
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_come_before_any_file_is_read() {
    let fixtures = workspace().join("tests/fixtures");
    // The session is granted A (diff/base) only; B (diff/head) is a readable tree beside it.
    let s = session(&["diff/base"], &fixtures);
    let c = connect(Arc::clone(&s)).await;
    let cases = [
        ("diff", json!({"base": "diff/base", "head": "diff/head"}), "diff/head"),
        ("diff", json!({"base": "diff/head", "head": "diff/base"}), "diff/head"),
        ("map", json!({"tree": "diff/head"}), "diff/head"),
        ("map", json!({"tree": "diff/base/.."}), "diff/base/.."),
        ("map", json!({"tree": "diff"}), "diff"),
        ("map", json!({"tree": "diff/base/api"}), "diff/base/api"),
        ("trace", json!({"tree": "fullstack", "from": "x"}), "fullstack"),
        (
            "blast",
            json!({"tree": "../fixtures/diff/head", "targets": ["x"]}),
            "../fixtures/diff/head",
        ),
        (
            "evidence",
            json!({"tree": "diff/head", "kind": "calls", "from": "a", "to": "b"}),
            "diff/head",
        ),
        ("map", json!({"tree": "rev:HEAD"}), "HEAD"),
    ];
    for (tool, args, named) in cases {
        let message = refusal(&c.call(tool, args.clone()).await);
        assert!(message.contains(&format!("`{named}`")), "{tool} {args}: {message}");
    }
    // An absolute request is echoed by its last name only, and no parent is named.
    let absolute = fixtures.join("diff/head");
    let message = refusal(&c.call("map", json!({"tree": absolute.to_string_lossy()})).await);
    assert_eq!(message, "tree `.../head` is not granted to this session");
    // The same sentence whether or not the path exists.
    let message = refusal(&c.call("map", json!({"tree": "diff/nowhere"})).await);
    assert_eq!(message, "tree `diff/nowhere` is not granted to this session");

    // Nothing was analysed and no file was read.
    assert_eq!(s.analyses_run(), 0);
    assert_eq!(s.files_read(), 0);

    // A + A is allowed.
    let same = document(&c.call("diff", json!({"base": "diff/base", "head": "./diff/base"})).await);
    assert_eq!(same["verdict"].as_str().map(|v| v.is_empty()), Some(false));
    assert!(s.files_read() > 0);
    c.close().await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_out_of_a_granted_tree_is_refused_unread() {
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path();
    std::fs::create_dir_all(base.join("granted")).expect("mkdir");
    std::fs::create_dir_all(base.join("secret")).expect("mkdir");
    std::fs::write(base.join("granted/app.py"), "import os\n").expect("write");
    std::fs::write(base.join("secret/keys.py"), "KEY = 1\n").expect("write");
    std::os::unix::fs::symlink(base.join("secret"), base.join("granted/link")).expect("link");
    let s = session(&["granted"], base);
    let c = connect(Arc::clone(&s)).await;
    refusal(&c.call("map", json!({"tree": "granted/link"})).await);
    refusal(&c.call("map", json!({"tree": "granted/link/.."})).await);
    assert_eq!(s.files_read(), 0);
    document(&c.call("map", json!({"tree": "granted"})).await);
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_tool_errors() {
    let fixtures = workspace().join("tests/fixtures");
    let s = session(&["fullstack"], &fixtures);
    let c = connect(Arc::clone(&s)).await;
    for (tool, args, expect) in [
        ("map", json!({}), "tree"),
        ("map", json!({"tree": "fullstack", "extra": 1}), "extra"),
        ("map", json!({"tree": ""}), "empty"),
        ("trace", json!({"tree": "fullstack", "from": "a", "depth": 0}), "depth"),
        ("trace", json!({"tree": "fullstack", "from": "a", "max_paths": 100000}), "max_paths"),
        ("blast", json!({"tree": "fullstack", "targets": []}), "targets"),
        ("diff", json!({"base": "fullstack", "head": "fullstack", "limit": 0}), "limit"),
        ("evidence", json!({"tree": "fullstack", "kind": "", "from": "a", "to": "b"}), "kind"),
    ] {
        let message = refusal(&c.call(tool, args.clone()).await);
        assert!(message.contains(expect), "{tool} {args}: {message}");
    }
    assert_eq!(s.files_read(), 0, "argument errors come before analysis");
    let message =
        refusal(&c.call("trace", json!({"tree": "fullstack", "from": "no/such/file.py"})).await);
    assert!(message.contains("no/such/file.py"), "{message}");
    let message = refusal(
        &c.call(
            "evidence",
            json!({"tree": "fullstack", "kind": "calls", "from": "module:nope", "to": "b"}),
        )
        .await,
    );
    assert!(message.contains("module:nope"), "{message}");
    // An unknown tool is a protocol error.
    let unknown = c
        .client
        .call_tool(CallToolRequestParams::new("shell").with_arguments(serde_json::Map::new()))
        .await;
    assert!(unknown.is_err());
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revisions_of_a_granted_repository_and_a_changed_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("app")).expect("mkdir");
    std::fs::write(repo.join("app/main.py"), "import app.db\n").expect("write");
    std::fs::write(repo.join("app/db.py"), "import os\n").expect("write");
    let git = |args: &[&str]| git_in(&repo, args);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "one"]);
    std::fs::write(repo.join("app/cache.py"), "import app.db\n").expect("write");
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "two"]);

    let s = session(&["repo"], dir.path());
    let c = connect(Arc::clone(&s)).await;
    let result = c.call("diff", json!({"base": "rev:HEAD~1", "head": "rev:HEAD"})).await;
    let doc = document(&result);
    assert_eq!(doc["base"]["source"], "revision");
    assert!(doc["base"]["label"].as_str().is_some_and(|l| l.starts_with("HEAD~1 (")));
    assert_eq!(doc["summary"]["nodes_added"], 1, "{doc}");
    document(&c.call("diff", json!({"base": "repo@rev:HEAD", "head": "repo"})).await);
    let message = refusal(&c.call("map", json!({"tree": "rev:no-such-branch"})).await);
    assert!(message.contains("no-such-branch"), "{message}");

    // The directory changes: the next query sees it (a new analysis), an unchanged one is cached.
    document(&c.call("map", json!({"tree": "repo"})).await);
    let before = s.analyses_run();
    document(&c.call("map", json!({"tree": "repo"})).await);
    assert_eq!(s.analyses_run(), before);
    std::fs::write(repo.join("app/extra.py"), "import app.cache\n").expect("write");
    document(&c.call("map", json!({"tree": "repo"})).await);
    assert_eq!(s.analyses_run(), before + 1);
    c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_holds_a_bounded_number_of_analyses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("app")).expect("mkdir");
    let git = |args: &[&str]| git_in(&repo, args);
    git(&["init", "-q"]);
    let revisions = cartograph_mcp::session::MAX_ANALYSES + 3;
    for i in 0..revisions {
        std::fs::write(repo.join(format!("app/m{i}.py")), "import os\n").expect("write");
        git(&["add", "."]);
        git(&["commit", "-q", "-m", &format!("c{i}")]);
    }
    let s = session(&["repo"], dir.path());
    let c = connect(Arc::clone(&s)).await;
    for back in (0..revisions).rev() {
        document(&c.call("map", json!({"tree": format!("rev:HEAD~{back}")})).await);
        assert!(s.analyses_held() <= cartograph_mcp::session::MAX_ANALYSES);
    }
    assert_eq!(s.analyses_run(), revisions as u64);
    // The most recent revision is still held; the oldest was evicted and is analysed again.
    document(&c.call("map", json!({"tree": "rev:HEAD~0"})).await);
    assert_eq!(s.analyses_run(), revisions as u64);
    document(&c.call("map", json!({"tree": format!("rev:HEAD~{}", revisions - 1)})).await);
    assert_eq!(s.analyses_run(), revisions as u64 + 1);
    c.close().await;
}
