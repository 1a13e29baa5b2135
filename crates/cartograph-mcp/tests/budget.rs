//! Every tool keeps its word on a tree large enough to need cutting: the tool result the client
//! receives is within `max_bytes` (the default and small explicit budgets), `truncated` says what
//! was left out and agrees with the document, the counts of one answer agree with each other, every
//! answer names the content it was computed from, and a budget too small for the answer with every
//! list empty is an error that names the smallest budget that would do.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use cartograph_mcp::tools::{DEFAULT_MAX_BYTES, MIN_MAX_BYTES};
use common::{connect, document, refusal, result_bytes, session};
use serde_json::{Value, json};

/// Route modules in the generated backend (two routes each).
const MODULES: usize = 120;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A FastAPI app mounting [`MODULES`] route modules (each with two routes, an environment variable
/// and a table write, all importing one `db` module) and a TypeScript client calling every
/// route, gathered by one index module; with a rules file that every module breaks. `changed`
/// makes the head of a diff: a third of the route modules removed (their calls stay), a third
/// with a new route, environment variable and table, and new clients calling the new routes.
fn generate(root: &Path, changed: bool) {
    write(root, "backend/app/__init__.py", "");
    write(root, "backend/app/api/__init__.py", "");
    write(root, "backend/app/db.py", "import os\n\nDATABASE = os.environ.get(\"DATABASE_URL\")\n");
    let mut index = String::new();
    let mut app = String::from("from fastapi import FastAPI\n\n");
    let mut mounts = String::from("\napp = FastAPI()\n");
    for i in 0..MODULES {
        let removed = changed && i % 3 == 0;
        let grown = changed && i % 3 == 1;
        if !removed {
            let mut module = format!(
                "import os\n\nfrom fastapi import APIRouter\n\nfrom app import db\n\nrouter = APIRouter(prefix=\"/api/r{i}\")\n\n\n@router.get(\"/items/{{item_id}}\")\ndef read_item(item_id: int):\n    return os.environ.get(\"SETTING_{i}\")\n\n\n@router.post(\"/items\")\ndef create_item(cursor):\n    cursor.execute(\"INSERT INTO table_{i} (a) VALUES (1)\")\n"
            );
            if grown {
                let _ = write!(
                    module,
                    "\n\n@router.delete(\"/items/{{item_id}}\")\ndef delete_item(item_id: int, cursor):\n    cursor.execute(\"DELETE FROM archive_{i} WHERE id = 1\")\n    return os.environ.get(\"FEATURE_{i}\")\n"
                );
            }
            write(root, &format!("backend/app/api/r{i}.py"), &module);
            let _ = writeln!(app, "from app.api import r{i}");
            let _ = writeln!(mounts, "app.include_router(r{i}.router)");
        }
        write(
            root,
            &format!("web/src/api/c{i}.ts"),
            &format!(
                "export async function load{i}() {{\n  const res = await fetch(\"/api/r{i}/items/1\");\n  return res.json();\n}}\n\nexport async function save{i}() {{\n  return fetch(\"/api/r{i}/items\", {{ method: \"POST\" }});\n}}\n"
            ),
        );
        if grown {
            write(
                root,
                &format!("web/src/api/d{i}.ts"),
                &format!(
                    "export async function drop{i}() {{\n  return fetch(\"/api/r{i}/items/1\", {{ method: \"DELETE\" }});\n}}\n"
                ),
            );
            let _ = writeln!(index, "import {{ drop{i} }} from \"./api/d{i}\";");
        }
        let _ = writeln!(index, "import {{ load{i}, save{i} }} from \"./api/c{i}\";");
    }
    write(root, "web/src/index.ts", &index);
    write(root, "backend/app/main.py", &format!("{app}{mounts}"));
    write(
        root,
        "cartograph.toml",
        "[[rule]]\nid = \"env-in-config\"\nkind = \"forbidden\"\nseverity = \"warning\"\nreason = \"Settings are read in one place.\"\nedges = [\"reads_env\"]\nfrom = [\"backend/**\", \"!backend/app/db.py\"]\nto = \"env:*\"\n\n[[rule]]\nid = \"writes-in-db\"\nkind = \"forbidden\"\nreason = \"Tables are written by the db module only.\"\nedges = [\"writes\"]\nfrom = \"backend/app/api/**\"\nto = \"table:*\"\n",
    );
}

/// Follows a truncation note's list name into the document: the entries it lists.
fn listed(document: &Value, list: &str) -> Option<usize> {
    let mut value = document;
    for part in list.split('.') {
        if part.contains('[') {
            return None;
        }
        value = &value[part];
    }
    let items = if value.get("items").is_some() { &value["items"] } else { value };
    items.as_array().map(Vec::len)
}

/// Checks one answer within `budget`: in budget (by `document`), every top-level note agreeing
/// with the list it describes, and the tree named by content. Returns the envelope.
fn checked(result: &rmcp::model::CallToolResult, budget: usize) -> Value {
    document(result);
    let envelope = result.structured_content.clone().expect("structured content");
    assert_eq!(envelope["max_bytes"], budget, "{}", envelope["summary"]);
    assert!(result_bytes(result) <= budget);
    for note in envelope["truncated"].as_array().expect("truncated") {
        let list = note["list"].as_str().expect("list");
        if let Some(shown) = listed(&envelope["document"], list) {
            assert_eq!(Some(shown as u64), note["shown"].as_u64(), "{list}: {note}");
        }
        let cut_by = note["cut_by"].as_array().expect("cut_by");
        assert!(!cut_by.is_empty(), "{note}");
    }
    for tree in envelope["computed_from"].as_array().expect("computed_from") {
        let fingerprint = tree["content_fingerprint"].as_str().expect("a directory's fingerprint");
        assert!(fingerprint.starts_with("blake3:") && fingerprint.len() == 39, "{fingerprint}");
    }
    envelope
}

/// Whether the budget cut something in this answer.
fn cut_by_budget(envelope: &Value) -> bool {
    envelope["truncated"]
        .as_array()
        .expect("truncated")
        .iter()
        .any(|n| n["cut_by"].as_array().is_some_and(|c| c.iter().any(|by| by == "max_bytes")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_fits_its_budget_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    generate(&dir.path().join("base"), false);
    generate(&dir.path().join("head"), true);
    let s = session(&["base", "head"], dir.path());
    let c = connect(Arc::clone(&s)).await;

    let queries = [
        ("map", json!({"tree": "head", "limit": 500})),
        ("trace", json!({"tree": "head", "from": "web/src/index.ts", "max_paths": 200})),
        ("blast", json!({"tree": "head", "targets": ["backend/app/db.py"], "limit": 1000})),
        ("diff", json!({"base": "base", "head": "head"})),
        ("diff", json!({"base": "base", "head": "head", "limit": 1000})),
        ("check", json!({"tree": "head", "limit": 1000})),
    ];
    let mut sizes = Vec::new();
    for (tool, args) in &queries {
        // The default budget: the answer needs cutting, and is cut to fit.
        let result = c.call(tool, args.clone()).await;
        let envelope = checked(&result, DEFAULT_MAX_BYTES);
        assert!(cut_by_budget(&envelope), "{tool}: nothing cut: {}", envelope["summary"]);
        sizes.push((tool.to_owned(), result_bytes(&result)));
        // Small explicit budgets: still within, still saying what was cut.
        for budget in [24_000, 12_000] {
            let mut args = args.clone();
            args["max_bytes"] = budget.into();
            let result = c.call(tool, args).await;
            let envelope = checked(&result, budget);
            assert!(cut_by_budget(&envelope), "{tool} {budget}: {}", envelope["summary"]);
        }
    }
    // The budget is used, not merely respected: every default answer is within a few entries of it.
    for (tool, bytes) in &sizes {
        assert!(*bytes > DEFAULT_MAX_BYTES / 2, "{tool}: {bytes} bytes");
    }

    // A diff's counts agree: the summary's, the document's and the notes' totals.
    let result = c.call("diff", json!({"base": "base", "head": "head", "max_bytes": 12_000})).await;
    let envelope = checked(&result, 12_000);
    let doc = &envelope["document"];
    let findings: u64 = doc["summary"]["findings_by_severity"]
        .as_object()
        .expect("by severity")
        .values()
        .filter_map(Value::as_u64)
        .sum();
    let summary = envelope["summary"].as_str().expect("summary");
    assert!(summary.contains(&format!(": {findings} findings (")), "{summary}");
    let note = envelope["truncated"]
        .as_array()
        .expect("truncated")
        .iter()
        .find(|n| n["list"] == "findings")
        .expect("findings were cut");
    assert_eq!(note["total"].as_u64(), Some(findings));
    assert_eq!(note["shown"].as_u64(), doc["findings"].as_array().map(|f| f.len() as u64));
    let edges_added = doc["summary"]["edges_added"].as_u64().expect("edges added");
    let note = envelope["truncated"]
        .as_array()
        .expect("truncated")
        .iter()
        .find(|n| n["list"] == "edges.added")
        .expect("added edges were cut");
    assert_eq!(note["total"].as_u64(), Some(edges_added));
    // Raw lists go before findings.
    assert!(doc["edges"]["added"].as_array().is_some_and(Vec::is_empty), "{summary}");
    // Both trees are named by content, base then head, and they differ.
    let from = envelope["computed_from"].as_array().expect("computed_from");
    assert_eq!((from[0]["role"].as_str(), from[1]["role"].as_str()), (Some("base"), Some("head")));
    assert_ne!(from[0]["content_fingerprint"], from[1]["content_fingerprint"]);

    // The same content gives the same fingerprint, in another session too.
    let again = session(&["base"], dir.path());
    let c2 = connect(again).await;
    let map = c2.call("map", json!({"tree": "base"})).await;
    let map = checked(&map, DEFAULT_MAX_BYTES);
    assert_eq!(map["computed_from"][0]["content_fingerprint"], from[0]["content_fingerprint"]);
    c2.close().await;

    // A trace whose search stopped does not know its total: at least one more path exists.
    let result =
        c.call("trace", json!({"tree": "head", "from": "web/src/index.ts", "max_paths": 5})).await;
    let envelope = checked(&result, DEFAULT_MAX_BYTES);
    let note = &envelope["truncated"][0];
    assert_eq!((note["list"].as_str(), note["exact"].as_bool()), (Some("paths"), Some(false)));
    assert_eq!(note["cut_by"], json!(["limit"]));
    assert!(envelope["summary"].as_str().is_some_and(|s| s.contains("paths 5 of at least 6")));

    // Too small for even the empty answer: an error naming the budget that would do.
    let result =
        c.call("diff", json!({"base": "base", "head": "head", "max_bytes": MIN_MAX_BYTES})).await;
    let message = refusal(&result);
    assert!(message.contains("is too small for this answer"), "{message}");
    let needed: usize = message
        .rsplit("at least ")
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the smallest budget");
    let result = c.call("diff", json!({"base": "base", "head": "head", "max_bytes": needed})).await;
    let envelope = checked(&result, needed);
    assert!(envelope["document"]["findings"].as_array().is_some_and(Vec::is_empty));
    // `evidence` keeps its word too: within the default budget, and at the smallest budget the
    // error names.
    let args = json!({"tree": "head", "kind": "imports", "from": "module:web/src/index.ts",
                      "to": "module:web/src/api/c1.ts"});
    let envelope = checked(&c.call("evidence", args.clone()).await, DEFAULT_MAX_BYTES);
    assert_eq!(envelope["document"]["total"], 1, "{envelope}");
    let mut small = args.clone();
    small["max_bytes"] = MIN_MAX_BYTES.into();
    let message = refusal(&c.call("evidence", small.clone()).await);
    let needed: usize = message
        .rsplit("at least ")
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the smallest budget");
    small["max_bytes"] = needed.into();
    let envelope = checked(&c.call("evidence", small).await, needed);
    let note = &envelope["truncated"][0];
    assert_eq!((note["list"].as_str(), note["omitted"].as_u64()), (Some("edges"), Some(1)));
    // Out of range is an argument error before any analysis.
    for budget in [0, MIN_MAX_BYTES - 1, 1_000_001] {
        let message = refusal(&c.call("map", json!({"tree": "head", "max_bytes": budget})).await);
        assert!(message.contains("`max_bytes` must be"), "{message}");
    }
    c.close().await;
}
