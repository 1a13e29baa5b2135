//! Mechanical house rules: the dependency rules of decision 0008 (read from `cargo metadata`), a
//! `//!` doc on every module, no stubs in production code, and decision records that are complete,
//! indexed, and cited only by numbers and rules that exist.

use crate::common;
use crate::dependency_graph;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::workspace;
use dependency_graph::DependencyGraph;

#[test]
fn dependency_rules_of_the_spec_hold() {
    // The normal-dependency graph is shared with `cartograph-ask/tests/containment.rs`; a
    // reachability rule that fails names the chain of crates that breaks it.
    let graph = DependencyGraph::of_workspace();
    let members = graph.members();

    // cartograph-core depends on no other Cartograph crate.
    assert!(graph.direct("cartograph-core").iter().all(|d| !members.contains(d)));

    // petgraph is a (direct) dependency of cartograph-graph only.
    for member in members {
        if member != "cartograph-graph" {
            assert!(!graph.direct(member).contains("petgraph"), "{member} depends on petgraph");
        }
    }

    // No HTTP client or TLS stack is reachable from anything but cartograph-ask.
    let network = ["ureq", "rustls", "reqwest", "hyper", "native-tls", "openssl", "curl", "isahc"];
    let others: Vec<&str> =
        members.iter().map(String::as_str).filter(|m| *m != "cartograph-ask").collect();
    graph.assert_unreachable(&others, &network);

    // The MCP server depends on neither the CLI nor ASK (and is a member, so this is not vacuous).
    graph.assert_unreachable(&["cartograph-mcp"], &["cartograph-cli", "cartograph-ask"]);

    // Analysis crates are synchronous: no tokio.
    let analysis = [
        "cartograph-core",
        "cartograph-extract",
        "cartograph-graph",
        "cartograph-pipeline",
        "cartograph-report",
        "cartograph-query",
    ];
    graph.assert_unreachable(&analysis, &["tokio"]);

    // The reports and ASK do not reach the analyser: the analysis model lives below them.
    dependency_graph::assert_reports_and_ask_do_not_reach_the_analyser(&graph);

    // The query layer the CLI and the MCP server share sits below both front ends and apart from
    // ASK (and, above, is synchronous and offline like every analysis crate).
    graph.assert_unreachable(
        &["cartograph-query"],
        &["cartograph-ask", "cartograph-cli", "cartograph-mcp"],
    );
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().and_then(|e| e.to_str()) == Some("rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_has_a_doc_comment_and_no_stub() {
    let mut files = Vec::new();
    rust_files(&workspace().join("crates"), &mut files);
    rust_files(&workspace().join("tests/support"), &mut files);
    assert!(files.len() > 20);
    let mut undocumented = Vec::new();
    let mut stubs = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read source");
        let relative = file.strip_prefix(workspace()).unwrap_or(file).display().to_string();
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !first.starts_with("//!") {
            undocumented.push(relative.clone());
        }
        let production = !relative.contains("/tests/");
        if production {
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for stub in ["todo!(", "unimplemented!(", "dbg!("] {
                if code.contains(stub) {
                    stubs.push(format!("{relative}: {stub}"));
                }
            }
        }
    }
    assert!(undocumented.is_empty(), "modules without a //! doc: {undocumented:#?}");
    assert!(stubs.is_empty(), "stubs in production code: {stubs:#?}");
}

#[test]
fn stderr_goes_through_the_redactor_and_only_ask_can_open_a_socket() {
    // Decision 0007: every line on stderr is redacted. A binary's own lines go through
    // `cartograph_diagnostics::stderr_line` (or `tracing`); `eprintln!`, `eprint!` and a raw
    // `std::io::stderr()` would bypass the redactor, so they exist only in that crate. And decision
    // 0008 rule 3 at the level of the standard library: no crate but cartograph-ask names
    // `std::net`.
    let mut files = Vec::new();
    rust_files(&workspace().join("crates"), &mut files);
    let mut bypasses = Vec::new();
    let mut sockets = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(workspace()).unwrap_or(file).display().to_string();
        let relative = relative.replace('\\', "/");
        // Tests, benchmarks and developer examples are not what a user runs.
        if ["/tests/", "/benches/", "/examples/"].iter().any(|d| relative.contains(d)) {
            continue;
        }
        // Asking whether stderr is a terminal writes nothing.
        let text = std::fs::read_to_string(file)
            .expect("read source")
            .replace("io::stderr().is_terminal()", "");
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        if !relative.starts_with("crates/cartograph-diagnostics/") {
            for bypass in ["eprintln!", "eprint!", "io::stderr()", "dbg!"] {
                if code.contains(bypass) {
                    bypasses.push(format!("{relative}: {bypass}"));
                }
            }
        }
        if !relative.starts_with("crates/cartograph-ask/") {
            for socket in ["std::net", "TcpStream", "UdpSocket", "TcpListener", "ToSocketAddrs"] {
                if code.contains(socket) {
                    sockets.push(format!("{relative}: {socket}"));
                }
            }
        }
    }
    assert!(files.len() > 50, "{} files", files.len());
    assert!(bypasses.is_empty(), "stderr written around the redactor: {bypasses:#?}");
    assert!(sockets.is_empty(), "sockets outside cartograph-ask: {sockets:#?}");
}

/// The decision records, `docs/decisions/NNNN-name.md`: number → file name and the numbers of the
/// rules of its `## Decision` section (the lines that start with `N. `).
fn decision_records() -> BTreeMap<String, (String, BTreeSet<u32>)> {
    let dir = workspace().join("docs/decisions");
    let mut records = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("docs/decisions exists") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        let Some((number, rest)) = leading_number(&name, Some(4)) else { continue };
        if !rest.starts_with('-') || !rest.ends_with(".md") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&name)).expect("read record");
        let rules = text
            .lines()
            .skip_while(|l| *l != "## Decision")
            .skip(1)
            .take_while(|l| !l.starts_with("## "))
            .filter_map(|l| l.split_once(". ").and_then(|(n, _)| n.parse().ok()))
            .collect();
        let number = number.to_owned();
        assert!(!records.contains_key(&number), "two decision records are numbered {number}");
        records.insert(number, (name, rules));
    }
    records
}

/// Our own text, where a citation may be: Rust sources, manifests, docs, the Action, scripts,
/// workflows and the benchmark harness. Fixtures and goldens are analysed data and are left out.
fn citing_files() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
            if path.is_dir() {
                if !["fixtures", "node_modules", "target", "work", ".venv"].contains(&name) {
                    walk(&path, out);
                }
            } else if ["rs", "toml", "md", "py", "sh", "mjs", "yml", "yaml"].contains(&extension) {
                out.push(path);
            }
        }
    }
    let root = workspace();
    let mut files = vec![root.join("Cargo.toml"), root.join("README.md")];
    for dir in ["crates", "docs", "action", "scripts", "bench", ".github"] {
        walk(&root.join(dir), &mut files);
    }
    files
}

/// A file's text as running prose: every line without its indentation and comment marker, joined
/// by single spaces, so that a citation wrapped across two lines reads as one; and where each line
/// starts in that prose, to name the line of a finding.
fn prose(text: &str) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut starts = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let line = ["//!", "///", "//", "#"]
            .iter()
            .find_map(|marker| line.strip_prefix(marker))
            .map_or(line, str::trim_start);
        starts.push(out.len());
        out.push_str(line);
        out.push(' ');
    }
    (out, starts)
}

/// The number `text` starts with, when it has `digits` digits (any number of them for `None`),
/// and the text after it.
fn leading_number(text: &str, digits: Option<usize>) -> Option<(&str, &str)> {
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    (end > 0 && digits.is_none_or(|d| d == end)).then(|| text.split_at(end))
}

/// The numbers a citation lists — `3`, `2 and 3`, `2, 3 and 5` — at the start of `text`.
fn number_list(mut text: &str, digits: Option<usize>) -> Vec<String> {
    let mut numbers = Vec::new();
    while let Some((number, rest)) = leading_number(text, digits) {
        numbers.push(number.to_owned());
        match [", ", " and "].iter().find_map(|sep| rest.strip_prefix(sep)) {
            Some(next) if leading_number(next, digits).is_some() => text = next,
            _ => break,
        }
    }
    numbers
}

/// The rules cited right after a record (` rule 3`, ` rules 2 and 3`), if any.
fn cited_rules(after: &str) -> Vec<String> {
    ["rule ", "rules "]
        .iter()
        .find_map(|word| after.strip_prefix(' ').and_then(|a| a.strip_prefix(word)))
        .map(|list| number_list(list, None))
        .unwrap_or_default()
}

/// One citation of a decision record: where it is in the prose, the record's number, the file name
/// when the citation names one, and the rules it cites.
struct Citation {
    at: usize,
    record: String,
    file: Option<String>,
    rules: Vec<String>,
}

/// Every citation of a decision record in `prose`, in these forms: `decision NNNN`, optionally
/// followed by `rule N` or `rules N and M`; `decisions NNNN, MMMM and KKKK`; a path
/// `decisions/NNNN-name.md`; and, inside `docs/decisions`, a link `](NNNN-name.md)`, optionally
/// followed by rules. `Decision` at the start of a sentence counts the same.
fn citations_in(prose: &str, in_records: bool) -> Vec<Citation> {
    let mut found = Vec::new();
    let lower = prose.to_ascii_lowercase();
    for (at, word) in lower.match_indices("decision") {
        if prose[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let after = &prose[at + word.len()..];
        let cite =
            |record: &str, file, rules| Citation { at, record: record.to_owned(), file, rules };
        if let Some(list) = after.strip_prefix("s ") {
            found.extend(number_list(list, Some(4)).iter().map(|n| cite(n, None, Vec::new())));
        } else if let Some((number, rest)) =
            after.strip_prefix(' ').and_then(|a| leading_number(a, Some(4)))
        {
            found.push(cite(number, None, cited_rules(rest)));
        } else if let Some((number, rest)) =
            after.strip_prefix("s/").and_then(|a| leading_number(a, Some(4)))
        {
            let slug = rest.strip_prefix('-').map(|r| {
                &r[..r.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(r.len())]
            });
            let file = slug
                .filter(|slug| !slug.is_empty() && rest[1 + slug.len()..].starts_with(".md"))
                .map(|slug| format!("{number}-{slug}.md"));
            found.push(cite(number, file, Vec::new()));
        }
    }
    if in_records {
        for (at, _) in prose.match_indices("](") {
            let target = &prose[at + 2..];
            let Some((link, after)) = target.split_once(')') else { continue };
            if let Some((number, _)) = leading_number(link, Some(4))
                && link.ends_with(".md")
                && !link.contains('/')
            {
                let (record, file) = (number.to_owned(), Some(link.to_owned()));
                found.push(Citation { at, record, file, rules: cited_rules(after) });
            }
        }
    }
    found
}

#[test]
fn every_decision_citation_names_a_record_and_a_rule_that_exist() {
    let records = decision_records();
    assert!(records.len() >= 8, "docs/decisions holds the records: {records:#?}");
    // Design notes that are not in the repository, spelled in pieces so that this file does not
    // match itself: their names, the specification beside them, and their amendments.
    let foreign = [concat!("ADR", "-00"), concat!("SPEC", ".md"), concat!("seeds", "/")];
    let amendment = concat!("Amend", "ment");
    let mut count = 0;
    let mut broken = Vec::new();
    for file in citing_files() {
        let text = std::fs::read_to_string(&file).expect("read text");
        let relative = file.strip_prefix(workspace()).unwrap_or(&file).display().to_string();
        let (prose, starts) = prose(&text);
        let place = |at: usize| format!("{relative}:{}", starts.partition_point(|&s| s <= at));
        for needle in foreign {
            for (at, _) in prose.match_indices(needle) {
                broken.push(format!("{}: `{needle}` is not in the repository", place(at)));
            }
        }
        for (at, _) in prose.match_indices(amendment) {
            let after = prose[at + amendment.len()..].trim_start_matches('s');
            if after.strip_prefix(' ').and_then(|a| leading_number(a, None)).is_some() {
                broken.push(format!(
                    "{}: an {amendment} of a record not in docs/decisions",
                    place(at)
                ));
            }
        }
        for citation in citations_in(&prose, relative.starts_with("docs/decisions/")) {
            count += 1;
            let (place, number) = (place(citation.at), &citation.record);
            let Some((file_name, rules)) = records.get(number) else {
                broken.push(format!("{place}: decision {number} is not in docs/decisions"));
                continue;
            };
            if let Some(file) = citation.file.filter(|f| f != file_name) {
                broken.push(format!("{place}: no {file}; decision {number} is {file_name}"));
            }
            for rule in citation.rules {
                if !rule.parse().is_ok_and(|r: u32| rules.contains(&r)) {
                    broken.push(format!("{place}: decision {number} has no rule {rule}"));
                }
            }
        }
    }
    assert!(count > 50, "the check found the citations ({count})");
    assert!(broken.is_empty(), "citations that point nowhere: {broken:#?}");
}

#[test]
fn decision_records_are_complete_and_indexed() {
    let dir = workspace().join("docs/decisions");
    let index = std::fs::read_to_string(dir.join("README.md")).expect("docs/decisions/README.md");
    let sections =
        ["## Context", "## Decision", "## Consequences", "## Where in the code, and which tests"];
    let mut problems = Vec::new();
    for (number, (name, rules)) in decision_records() {
        let text = std::fs::read_to_string(dir.join(&name)).expect("read record");
        if !text.starts_with(&format!("# {number}. ")) {
            problems.push(format!("{name}: the first line is not `# {number}. Title`"));
        }
        if !text.lines().any(|l| l.starts_with("Status: ")) {
            problems.push(format!("{name}: no `Status:` line"));
        }
        let at: Option<Vec<usize>> =
            sections.iter().map(|s| text.find(&format!("\n{s}\n"))).collect();
        if !at.is_some_and(|at| at.is_sorted()) {
            problems.push(format!("{name}: the sections are not {sections:?}, in that order"));
        }
        if rules.is_empty() || !rules.iter().copied().eq(1..=rules.len() as u32) {
            problems.push(format!("{name}: the rules are not numbered from 1: {rules:?}"));
        }
        if !index.contains(&format!("]({name})")) {
            problems.push(format!("{name}: not listed in docs/decisions/README.md"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// FNV-1a (64 bits) of `bytes`: a fixed checksum the standard library can compute, so the test
/// needs no hashing crate.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A licence expression of `cargo metadata` (SPDX, with the legacy `/` for OR) is satisfied by
/// `accepted` the way cargo-about and cargo-deny read it: one alternative of an OR, every part
/// of an AND; `X WITH EXCEPTION` only when accepted as written. `Err` when it does not parse.
fn licence_accepted(expression: &str, accepted: &BTreeSet<String>) -> Result<bool, String> {
    let spaced = expression.replace('(', " ( ").replace(')', " ) ").replace('/', " OR ");
    let mut reader = LicenceReader { tokens: spaced.split_whitespace().collect(), at: 0, accepted };
    let value = reader.any_of()?;
    match reader.tokens.get(reader.at) {
        None => Ok(value),
        Some(token) => Err(format!("`{expression}`: unexpected `{token}`")),
    }
}

/// A recursive-descent reader of one licence expression: OR binds looser than AND.
struct LicenceReader<'a> {
    tokens: Vec<&'a str>,
    at: usize,
    accepted: &'a BTreeSet<String>,
}

impl LicenceReader<'_> {
    fn any_of(&mut self) -> Result<bool, String> {
        let mut any = self.all_of()?;
        while self.tokens.get(self.at) == Some(&"OR") {
            self.at += 1;
            any |= self.all_of()?;
        }
        Ok(any)
    }

    fn all_of(&mut self) -> Result<bool, String> {
        let mut all = self.term()?;
        while self.tokens.get(self.at) == Some(&"AND") {
            self.at += 1;
            all &= self.term()?;
        }
        Ok(all)
    }

    fn term(&mut self) -> Result<bool, String> {
        let token = *self.tokens.get(self.at).ok_or("the expression ends early")?;
        self.at += 1;
        if token == "(" {
            let value = self.any_of()?;
            if self.tokens.get(self.at) != Some(&")") {
                return Err("a `(` is not closed".to_owned());
            }
            self.at += 1;
            return Ok(value);
        }
        if ["AND", "OR", "WITH", ")"].contains(&token) {
            return Err(format!("`{token}` where a licence was expected"));
        }
        if self.tokens.get(self.at) == Some(&"WITH") {
            let exception = self.tokens.get(self.at + 1).ok_or("`WITH` names no exception")?;
            self.at += 2;
            return Ok(self.accepted.contains(&format!("{token} WITH {exception}")));
        }
        Ok(self.accepted.contains(token))
    }
}

#[test]
fn licence_expressions_are_read_as_cargo_about_reads_them() {
    let accepted: BTreeSet<String> =
        ["Apache-2.0", "MIT", "Unicode-3.0"].into_iter().map(str::to_owned).collect();
    let read = |expression| licence_accepted(expression, &accepted);
    assert_eq!(read("MIT OR Apache-2.0 OR LGPL-2.1-or-later"), Ok(true));
    assert_eq!(read("(MIT OR Apache-2.0) AND Unicode-3.0"), Ok(true));
    assert_eq!(read("Apache-2.0 AND ISC"), Ok(false));
    assert_eq!(read("Apache-2.0/MIT"), Ok(true));
    assert_eq!(read("Apache-2.0 WITH LLVM-exception"), Ok(false));
    assert_eq!(read("Apache-2.0 WITH LLVM-exception OR MIT"), Ok(true));
    assert!(read("(MIT OR").is_err() && read("MIT Apache-2.0").is_err());
}

/// One step's `run:` script of a workflow (the lines below `- name: STEP` up to the next step),
/// or the empty string when there is no such step.
fn workflow_step(workflow: &str, step: &str) -> String {
    let header = format!("- name: {step}");
    let mut lines = workflow.lines().skip_while(|l| l.trim() != header);
    let Some(first) = lines.next() else { return String::new() };
    let indent = first.len() - first.trim_start().len();
    lines
        .take_while(|l| {
            let trimmed = l.trim_start();
            l.trim().is_empty() || l.len() - trimmed.len() > indent || !trimmed.starts_with('-')
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn licences_ship_and_every_dependency_licence_is_accepted() {
    let root = workspace();

    // LICENSE is the Apache License 2.0 the manifests declare, verbatim: apache.org's
    // LICENSE-2.0.txt (SHA-256 cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30,
    // 11,358 bytes), compared with line endings as committed (a Windows checkout may add CRs).
    let license = std::fs::read_to_string(root.join("LICENSE")).expect("LICENSE at the root");
    let license = license.replace("\r\n", "\n");
    assert!(license.trim_start().starts_with("Apache License\n"), "LICENSE is not Apache-2.0");
    assert!(license.contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"));
    assert_eq!(
        (license.len(), fnv1a(license.as_bytes())),
        (11_358, 0x2eb9_294a_0308_d938),
        "LICENSE differs from the Apache License 2.0 text"
    );
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = manifest.parse().expect("Cargo.toml parses");
    assert_eq!(manifest["workspace"]["package"]["license"].as_str(), Some("Apache-2.0"));

    // about.toml (the release's third-party licence file) and deny.toml (CI) accept the same
    // licences, in the same order.
    let read_toml = |name: &str| -> toml::Table {
        let text = std::fs::read_to_string(root.join(name)).unwrap_or_else(|_| panic!("{name}"));
        text.parse().unwrap_or_else(|e| panic!("{name} parses: {e}"))
    };
    let names = |value: &toml::Value| -> Vec<String> {
        let list = value.as_array().expect("a list of licences");
        list.iter().map(|v| v.as_str().expect("a licence id").to_owned()).collect()
    };
    let about = names(&read_toml("about.toml")["accepted"]);
    let deny = names(&read_toml("deny.toml")["licenses"]["allow"]);
    assert_eq!(about, deny, "about.toml `accepted` and deny.toml `licenses.allow` differ");
    let accepted: BTreeSet<String> = about.into_iter().collect();

    // Every package of the build (the host platform's, offline) has a licence expression the
    // list satisfies. The workspace's own crates are Apache-2.0 and left to the check above.
    let meta = dependency_graph::host_metadata();
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .expect("workspace members")
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    let mut licences = BTreeMap::new();
    let mut refused = Vec::new();
    for package in meta["packages"].as_array().expect("packages") {
        if members.contains(package["id"].as_str().unwrap_or_default()) {
            continue;
        }
        let version = package["version"].as_str().unwrap_or("?");
        let name = format!("{} {version}", package["name"].as_str().unwrap_or("?"));
        let Some(expression) = package["license"].as_str() else {
            refused.push(format!("{name}: no `license` expression (only a licence file)"));
            continue;
        };
        match licence_accepted(expression, &accepted) {
            Ok(true) => {}
            Ok(false) => refused.push(format!("{name}: `{expression}` is not accepted")),
            Err(error) => refused.push(format!("{name}: {error}")),
        }
        licences.insert(package["name"].as_str().unwrap_or_default().to_owned(), expression);
    }
    assert!(licences.len() > 100, "cargo metadata lists the dependencies ({})", licences.len());
    assert!(
        refused.is_empty(),
        "licences not on about.toml's accepted list (add one only if it allows shipping the crate \
         in an Apache-2.0 binary, to about.toml and deny.toml alike): {refused:#?}"
    );

    // The licence that started this: cartograph-ask embeds webpki-roots' root certificates,
    // data under CDLA-Permissive-2.0.
    assert_eq!(licences.get("webpki-roots").copied(), Some("CDLA-Permissive-2.0"));
    assert!(accepted.contains("CDLA-Permissive-2.0"));

    // The release generates the third-party file with cargo-about (failing on a licence not
    // accepted), every archive ships it and LICENSE, and the release checks that they do.
    let release =
        std::fs::read_to_string(root.join(".github/workflows/release.yml")).expect("release.yml");
    let generate = workflow_step(&release, "Third-party licences");
    assert!(
        generate.contains("cargo install cargo-about --version ") && generate.contains("--locked"),
        "release.yml installs a pinned cargo-about: {generate}"
    );
    assert!(
        generate.contains("cargo about generate") && generate.contains("--fail"),
        "release.yml generates THIRD-PARTY-LICENSES.md with cargo-about --fail: {generate}"
    );
    let package = workflow_step(&release, "Package");
    for shipped in ["cp LICENSE \"dist/$name/\"", "THIRD-PARTY-LICENSES.md \"dist/$name/\""] {
        assert!(package.contains(shipped), "release.yml's Package step lacks `{shipped}`");
    }
    let check = workflow_step(&release, "Every archive ships the licences");
    for file in ["/LICENSE", "/THIRD-PARTY-LICENSES.md"] {
        assert!(check.contains(file), "release.yml does not check archives for {file}: {check}");
    }
    let ci = std::fs::read_to_string(root.join(".github/workflows/ci.yml")).expect("ci.yml");
    assert!(ci.contains("cargo deny") && ci.contains("check licenses"), "ci.yml checks licences");
}

/// `scripts/test.sh` checks its prerequisites before anything else: without npm (and node) it
/// stops at once, with exit code 2 and one sentence naming what to install.
#[test]
fn the_test_script_names_a_missing_prerequisite_in_one_sentence() {
    let root = workspace();
    let bin = tempfile::tempdir().unwrap();
    // A PATH with everything the script needs except node and npm.
    for tool in
        ["bash", "env", "dirname", "cargo", "cargo-fmt", "cargo-clippy", "rustc", "git", "python3"]
    {
        let Some(found) = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| p.is_file())
        }) else {
            eprintln!("skipped: {tool} is not on PATH");
            return;
        };
        std::os::unix::fs::symlink(found, bin.path().join(tool)).unwrap();
    }
    let output = std::process::Command::new(bin.path().join("bash"))
        .arg(root.join("scripts/test.sh"))
        .env("PATH", bin.path())
        .env("CARTOGRAPH_TEST_PREREQUISITES_ONLY", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing ran before the check");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one sentence: {stderr}");
    assert!(stderr.starts_with("scripts/test.sh needs node npm:"), "{stderr}");
    assert!(!stderr.contains(&*bin.path().to_string_lossy()), "no machine path: {stderr}");
}
