//! The leak canary: unique marker strings are planted in the sources of a small full-stack
//! application — in comments, in string literals that are not routes, in environment defaults, in
//! a SQL value, in a Prisma default, in `.env` and `package.json` values, and as secret-shaped
//! tokens — and every command of the `cartograph` binary is run over it, in every output format,
//! with diagnostics at every level, through the CLI and through the MCP server, on success and on
//! error. No marker, no absolute machine path and no root of this machine may appear in any
//! stdout, stderr or written file (`tests/support/leaks.rs`). The analysis must still have found
//! the application (not vacuous): its routes, the call linked to one, its table and its
//! environment variables.

use crate::leaks;

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use leaks::LeakCheck;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_cartograph");

/// A marker unique to this run: `cnry` + kind + random hex, so no file in the repository holds it.
fn marker(kind: &str) -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write(kind.as_bytes());
    format!("cnry{kind}{:016x}", hasher.finish())
}

struct Markers {
    comment: String,
    literal: String,
    env_default: String,
    sql_value: String,
    token: String,
    bearer: String,
    prisma_default: String,
    dotenv_value: String,
    package_value: String,
    docstring: String,
}

impl Markers {
    fn new() -> Self {
        Self {
            comment: marker("comment"),
            literal: marker("literal"),
            env_default: marker("envdefault"),
            sql_value: marker("sqlvalue"),
            // Shaped like real credentials, which a redactor might treat specially.
            token: format!("ghp_{}", marker("Token")),
            bearer: format!("sk-{}", marker("bearer")),
            prisma_default: marker("prismadefault"),
            dotenv_value: marker("dotenv"),
            package_value: marker("packagejson"),
            docstring: marker("docstring"),
        }
    }

    fn all(&self) -> Vec<String> {
        vec![
            self.comment.clone(),
            self.literal.clone(),
            self.env_default.clone(),
            self.sql_value.clone(),
            self.token.clone(),
            self.bearer.clone(),
            self.prisma_default.clone(),
            self.dotenv_value.clone(),
            self.package_value.clone(),
            self.docstring.clone(),
        ]
    }
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The application; `head` adds a route, a call to it and a table write, so a diff has findings
/// whose evidence sits next to markers.
fn write_app(root: &Path, m: &Markers, head: bool) {
    let extra_route = if head {
        format!(
            r#"

@router.post("/items/{{item_id}}/archive")
def archive_item(item_id: int):
    # {comment} archive
    log.info("{literal} archived")
    db.execute("UPDATE items SET note = '{sql}' WHERE id = 1")
    return {{"ok": True}}
"#,
            comment = m.comment,
            literal = m.literal,
            sql = m.sql_value
        )
    } else {
        String::new()
    };
    write(
        root,
        "backend/app/main.py",
        &format!(
            r#""""The API. {docstring}"""
import os
import logging

from fastapi import APIRouter, FastAPI

from app.db import db

# {comment}: a comment that must stay in the source.
log = logging.getLogger("{literal}")
MODE = os.environ.get("APP_MODE", "{env_default}")
TOKEN = os.getenv("GITHUB_TOKEN", "{token}")

app = FastAPI()
router = APIRouter(prefix="/api")


@router.get("/items")
def list_items():
    log.info("listing {literal}")
    return db.execute("SELECT id, name FROM items WHERE note <> '{sql}'")


@router.delete("/items/{{item_id}}")
def delete_item(item_id: int):
    db.execute("DELETE FROM items WHERE id = %s", (item_id,))
    return {{"deleted": item_id}}
{extra_route}

app.include_router(router)
"#,
            docstring = m.docstring,
            comment = m.comment,
            literal = m.literal,
            env_default = m.env_default,
            token = m.token,
            sql = m.sql_value,
        ),
    );
    write(root, "backend/app/__init__.py", "");
    write(
        root,
        "backend/app/db.py",
        &format!(
            "import os\n\n# {comment}\nDATABASE_URL = os.environ[\"DATABASE_URL\"]\ndb = None\n",
            comment = m.comment
        ),
    );
    write(
        root,
        "backend/.env",
        &format!("DATABASE_URL=postgres://app:{}@db.internal/app\n", m.dotenv_value),
    );
    write(
        root,
        "backend/prisma/schema.prisma",
        &format!(
            "datasource db {{\n  provider = \"postgresql\"\n  url = env(\"DATABASE_URL\")\n}}\n\n\
             model Item {{\n  id Int @id\n  note String @default(\"{}\")\n  @@map(\"items\")\n}}\n",
            m.prisma_default
        ),
    );
    let archive_call = if head {
        format!(
            "\nexport async function archiveItem(id: number) {{\n  // {comment}\n  \
             return fetch(`/api/items/${{id}}/archive`, {{ method: \"POST\", headers: {{ \
             \"X-Note\": \"{literal}\" }} }});\n}}\n",
            comment = m.comment,
            literal = m.literal
        )
    } else {
        String::new()
    };
    write(
        root,
        "web/src/api.ts",
        &format!(
            r#"// {comment}
const KEY = process.env.API_KEY ?? "{bearer}";

export async function listItems() {{
  console.log("{literal}");
  return fetch("/api/items", {{ headers: {{ Authorization: `Bearer ${{KEY}}` }} }});
}}

export async function deleteItem(id: number) {{
  return fetch(`/api/items/${{id}}`, {{ method: "DELETE" }});
}}
{archive_call}"#,
            comment = m.comment,
            bearer = m.bearer,
            literal = m.literal,
        ),
    );
    write(
        root,
        "web/package.json",
        &format!(
            "{{\"name\": \"web\", \"description\": \"{}\", \"dependencies\": {{\"react\": \"18.0.0\"}}}}\n",
            m.package_value
        ),
    );
    write(
        root,
        "cartograph.toml",
        "[[rule]]\nid = \"web-not-backend\"\nkind = \"forbidden\"\nreason = \"The web talks \
         to the API over HTTP only.\"\nfrom = [\"web/**\"]\nto = [\"backend/**\"]\n\n\
         [[rule]]\nid = \"no-cycles\"\nkind = \"no-cycles\"\nreason = \"Modules form no cycle.\"\n",
    );
}

/// Runs `cartograph` in `dir` with a cleared environment, diagnostics at `log`, and the marked
/// environment values set (an environment value must not come out either).
fn cartograph(dir: &Path, args: &[&str], log: &str, m: &Markers) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("CARTOGRAPH_LOG", log)
        .env("APP_MODE", &m.env_default)
        .env("GITHUB_TOKEN", &m.token)
        .output()
        .expect("cartograph runs")
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// One output channel: a name and its text.
struct Channel {
    name: String,
    text: String,
}

struct World {
    _temp: tempfile::TempDir,
    root: PathBuf,
    markers: Markers,
    check: LeakCheck,
    channels: Vec<Channel>,
}

impl World {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().to_path_buf();
        let markers = Markers::new();
        write_app(&root.join("base"), &markers, false);
        write_app(&root.join("head"), &markers, true);
        // The same two trees as two commits of one repository.
        let repo = root.join("repo");
        write_app(&repo, &markers, false);
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        write_app(&repo, &markers, true);
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "head"]);
        let check = LeakCheck::new(&markers.all(), &[&root]);
        Self { _temp: temp, root, markers, check, channels: Vec::new() }
    }

    /// Runs a command, records its stdout and stderr, and returns them with the exit code.
    fn run(&mut self, dir: &str, args: &[&str], log: &str) -> (Option<i32>, String, String) {
        let output = cartograph(&self.root.join(dir), args, log, &self.markers);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let name = format!("`cartograph {}` in {dir} (log {log})", args.join(" "));
        self.channels.push(Channel { name: format!("{name}: stdout"), text: stdout.clone() });
        self.channels.push(Channel { name: format!("{name}: stderr"), text: stderr.clone() });
        (output.status.code(), stdout, stderr)
    }

    /// Records every file the commands wrote under `out/`.
    fn collect_files(&mut self) {
        let out = self.root.join("out");
        let mut names: Vec<PathBuf> =
            std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        for path in names {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = format!("file {}", path.file_name().unwrap().to_string_lossy());
            self.channels.push(Channel { name, text });
        }
    }

    fn assert_no_leak(&self) {
        let mut leaks = Vec::new();
        for channel in &self.channels {
            for leak in self.check.leaks(&channel.text) {
                leaks.push(format!("{}: {leak}", channel.name));
            }
        }
        assert!(leaks.is_empty(), "{} leaks:\n{}", leaks.len(), leaks.join("\n"));
    }
}

#[test]
fn no_planted_marker_or_machine_path_reaches_any_output_of_any_command() {
    let mut w = World::new();
    std::fs::create_dir_all(w.root.join("out")).unwrap();
    let o = |name: &str| format!("../out/{name}");
    for log in ["trace", "warn"] {
        let tag = |name: &str| o(&format!("{log}-{name}"));
        // Every document of every command, in every format.
        let (code, snapshot, _) = w.run("head", &["snapshot", "."], log);
        assert_eq!(code, Some(0));
        w.run(
            "head",
            &["summary", ".", "--json", &tag("summary.json"), "--markdown", &tag("summary.md")],
            log,
        );
        w.run("head", &["map", "--json", &tag("map.json"), "--markdown", &tag("map.md")], log);
        w.run(
            "head",
            &[
                "trace",
                "web/src/api.ts",
                "--json",
                &tag("trace.json"),
                "--markdown",
                &tag("trace.md"),
            ],
            log,
        );
        w.run(
            "head",
            &[
                "blast",
                "backend/app/main.py",
                "--json",
                &tag("blast.json"),
                "--markdown",
                &tag("blast.md"),
            ],
            log,
        );
        w.run(
            "head",
            &["check", ".", "--json", &tag("check.json"), "--markdown", &tag("check.md")],
            log,
        );
        w.run("head", &["check", ".", "--sarif", &tag("check.sarif")], log);
        w.run("head", &["baseline", "write", ".", "-o", &tag("baseline.json")], log);
        let (code, _, stderr) = w.run(
            "head",
            &[
                "diff",
                "../base",
                ".",
                "--json",
                &tag("diff.json"),
                "--markdown",
                &tag("diff.md"),
                "--sarif",
                &tag("diff.sarif"),
            ],
            log,
        );
        assert!(matches!(code, Some(0 | 1)), "{stderr}");
        w.run(
            "out",
            &["render", &format!("{log}-diff.json"), "--markdown", &format!("{log}-render.md")],
            log,
        );
        let (code, _, stderr) = w.run(
            "repo",
            &[
                "diff",
                "HEAD~1",
                "HEAD",
                "--json",
                &tag("diff-git.json"),
                "--markdown",
                &tag("diff-git.md"),
            ],
            log,
        );
        assert!(matches!(code, Some(0 | 1)), "{stderr}");

        // The analysis found the application: routes, the call linked to one, the table, env vars.
        if log == "warn" {
            for needle in [
                "route:GET /api/items",
                "route:DELETE /api/items/{}",
                "route:POST /api/items/{}/archive",
                "table:items",
                "env_var:APP_MODE",
                "env_var:DATABASE_URL",
            ] {
                assert!(snapshot.contains(needle), "the analysis missed {needle}");
            }
            let diff = std::fs::read_to_string(w.root.join("out/warn-diff.json")).unwrap();
            let diff: Value = serde_json::from_str(&diff).unwrap();
            let added = diff["edges"]["added"].as_array().unwrap();
            assert!(
                added.iter().any(|e| e["kind"] == "calls"
                    && e["from"] == "module:web/src/api.ts"
                    && e["to"] == "route:POST /api/items/{}/archive"),
                "the new call is linked to its route"
            );
        }

        // Errors: bad targets (absolute paths among them), bad trees, bad revisions, bad flags.
        let (code, _, stderr) = w.run("head", &["blast", "/opt/canary/secret.py"], log);
        assert_eq!(code, Some(2), "{stderr}");
        let (code, _, stderr) = w.run("head", &["trace", "/srv/canary/thing"], log);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("the given absolute path (not repeated)"), "{stderr}");
        let absolute_tree = w.root.join("head").to_string_lossy().into_owned();
        w.run("head", &["map", "--in", "/var/folders/canary/T/tree"], log);
        w.run("head", &["map", "--in", &absolute_tree, "--json", "-"], log);
        w.run("repo", &["diff", "no-such-rev", "HEAD"], log);
        w.run("head", &["diff", &format!("{absolute_tree}/missing"), "."], log);
        w.run("head", &["snapshot", "--no-such-flag", "/private/var/canary"], log);
        w.run("head", &["render", "/tmp/canary/none.json"], log);
        w.run("head", &["check", ".", "--config", "/etc/canary/cartograph.toml"], log);
    }

    // The MCP server: every tool, granted and refused, good and bad arguments.
    let (stdout, stderr) = mcp_session(&w);
    w.channels.push(Channel { name: "mcp stdout".to_owned(), text: stdout });
    w.channels.push(Channel { name: "mcp stderr".to_owned(), text: stderr });

    w.collect_files();
    assert!(w.channels.len() > 100, "{} channels", w.channels.len());
    w.assert_no_leak();
}

/// One MCP session over `cartograph mcp`: every tool with good and bad arguments. Returns all of
/// stdout and stderr.
fn mcp_session(w: &World) -> (String, String) {
    let mut child = Command::new(BIN)
        .args(["mcp", "--grant", "canary", "--tree", "head", "--tree", "repo"])
        .current_dir(&w.root)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("CARTOGRAPH_LOG", "trace")
        .env("APP_MODE", &w.markers.env_default)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // stderr is read as it comes: at trace level it outgrows a pipe's buffer, and a server blocked
    // on a full pipe answers nothing.
    let mut err = child.stderr.take().unwrap();
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut err, &mut text).unwrap();
        text
    });
    let mut stdout = String::new();
    let absolute = w.root.join("head").to_string_lossy().into_owned();
    let calls: Vec<(&str, Value)> = vec![
        ("map", json!({"tree": "head"})),
        ("trace", json!({"tree": "head", "from": "web/src/api.ts"})),
        ("blast", json!({"tree": "head", "targets": ["backend/app/main.py"]})),
        ("check", json!({"tree": "head"})),
        ("diff", json!({"base": "repo@rev:HEAD~1", "head": "repo@rev:HEAD"})),
        (
            "evidence",
            json!({"tree": "head", "kind": "serves", "from": "module:backend/app/main.py",
                   "to": "route:GET /api/items"}),
        ),
        // Granted, though named by its absolute path; then refused and bad: absolute paths, an
        // ungranted tree, unknown nodes.
        ("map", json!({"tree": absolute})),
        ("map", json!({"tree": "/opt/canary/tree"})),
        ("trace", json!({"tree": "head", "from": "/opt/canary/x"})),
        ("blast", json!({"tree": "head", "targets": ["/Users/canary/app.py", "C:\\canary\\x.py"]})),
        (
            "evidence",
            json!({"tree": "head", "kind": "calls", "from": "/home/canary/x", "to": "~/y"}),
        ),
        ("diff", json!({"base": "repo@rev:no-such-rev", "head": "/var/folders/x"})),
    ];
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "canary", "version": "0"}}}));
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (i, (name, arguments)) in calls.iter().enumerate() {
        send(json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}));
    }
    let mut answered = 0;
    let mut errors = 0;
    while answered < calls.len() + 1 {
        let line = lines.next().expect("a response").expect("readable");
        stdout.push_str(&line);
        stdout.push('\n');
        let message: Value = serde_json::from_str(&line).expect("JSON-RPC only");
        if message.get("id").is_some() {
            answered += 1;
            if message["result"]["isError"] == true {
                errors += 1;
            }
        }
    }
    // Seven calls answered — the six good ones, and `map` of the granted tree named by its
    // absolute path, which resolves to that tree and is labelled by its grant name — and the five
    // bad ones were refused as errors.
    assert_eq!(errors, 5, "{stdout}");
    drop(stdin);
    child.wait().unwrap();
    (stdout, stderr_reader.join().unwrap())
}
