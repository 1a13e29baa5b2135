//! Terminal text: the plain-text form of every command on the fixtures as insta snapshots, proof
//! that it holds no HTML and no Markdown escape, that colour follows `--color` and `NO_COLOR`,
//! that the default on a real terminal (a pseudo-terminal here) is text, and that `--markdown`
//! still writes the goldens byte for byte.

use crate::common;

use common::{run_in, stderr, stdout, workspace};

/// The width text is wrapped to in the snapshots (`COLUMNS`).
const COLUMNS: &str = "100";

/// (snapshot name, arguments run from the fixtures folder; `--text` is added)
const CASES: &[(&str, &[&str])] = &[
    ("diff", &["diff", "diff/base", "diff/head"]),
    ("diff-evidence", &["diff", "diff/base", "diff/head", "--evidence"]),
    ("diff-fail-on", &["diff", "diff/base", "diff/head", "--fail-on", "route-removed"]),
    ("diff-same-language", &["diff", "diff-same-language/base", "diff-same-language/head"]),
    ("diff-rules", &["diff", "rules/base", "rules/head"]),
    ("render-explained", &["render", "explained/diff.explained.json"]),
    ("summary", &["summary", "polyglot"]),
    ("map", &["map", "fullstack"]),
    ("blast", &["blast", "backend/app/models.py", "--in", "fullstack"]),
    (
        "trace",
        &[
            "trace",
            "frontend/src/features/orders/useOrders.ts",
            "--to",
            "table:item",
            "--max-paths",
            "6",
            "--in",
            "fullstack",
        ],
    ),
    ("check", &["check", "rules/head"]),
    ("check-evidence", &["check", "rules/head", "--evidence"]),
    ("recognisers", &["recognisers"]),
];

/// Runs a case with `--text` (and any extra arguments and variables) from the fixtures folder.
fn text_of(args: &[&str], extra: &[&str], env: &[(&str, &str)]) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--text");
    all.extend_from_slice(extra);
    let mut vars = vec![("COLUMNS", COLUMNS)];
    vars.extend_from_slice(env);
    let output = run_in(&workspace().join("tests/fixtures"), &all, &vars);
    // `diff --fail-on` met and `check` with a broken error rule exit 1, after writing the text.
    assert!(matches!(output.status.code(), Some(0 | 1)), "{all:?} failed: {}", stderr(&output));
    stdout(&output)
}

/// The tags the Markdown reports write (and a few more): text writes none. A placeholder such as
/// `<model>` in a recogniser's summary is text, not a tag.
const HTML_TAGS: &[&str] =
    &["a", "b", "br", "code", "details", "div", "i", "img", "p", "span", "sub", "summary", "wbr"];

/// Panics when `text` holds an HTML character reference (`&#95;`, `&nbsp;`, `&lt;`), an HTML tag
/// (`<code>`, `<wbr>`, `</details>`), a Mermaid block or Markdown table syntax.
fn assert_plain(name: &str, text: &str) {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'&' {
            let rest = &text[i + 1..];
            let word: String =
                rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '#').collect();
            assert!(
                !(word.len() > 1 && rest[word.len()..].starts_with(';')),
                "{name}: a character reference at byte {i}: {}",
                &text[i..(i + 12).min(text.len())]
            );
        }
        if b == b'<' {
            let rest = text[i + 1..].trim_start_matches('/');
            let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            assert!(
                !(HTML_TAGS.contains(&word.as_str()) && rest[word.len()..].starts_with(['>', ' '])),
                "{name}: an HTML tag at byte {i}: {}",
                &text[i..(i + 12).min(text.len())]
            );
        }
    }
    for markup in ["```", "mermaid", "|---", "<!--"] {
        assert!(!text.contains(markup), "{name}: Markdown `{markup}` in text");
    }
}

fn assert_no_ansi(name: &str, text: &str) {
    assert!(!text.contains('\u{1b}'), "{name}: an escape sequence in text without colour");
}

#[test]
fn every_command_has_a_text_form() {
    insta::with_settings!({ omit_expression => true }, {
        for (name, args) in CASES {
            let text = text_of(args, &[], &[]);
            assert_plain(name, &text);
            assert_no_ansi(name, &text);
            common::assert_no_absolute_paths(&text);
            for line in text.lines() {
                // A line is longer than the width only when one word is (a path stays whole).
                if line.chars().count() > 100 {
                    assert!(
                        line.trim().split(' ').any(|w| w.chars().count() > 60),
                        "{name}: a line past the width: {line}"
                    );
                }
            }
            insta::assert_snapshot!(format!("text-{name}"), text);
        }
    });
}

#[test]
fn text_leads_with_the_verdict_and_groups_findings_by_severity() {
    let text = text_of(&["diff", "diff/base", "diff/head"], &[], &[]);
    let first = text.lines().next().expect("a first line");
    assert!(first.starts_with("✖ 12 findings"), "{first}");
    let at = |heading: &str| {
        text.lines().position(|l| l.starts_with(heading)).unwrap_or_else(|| panic!("{heading}"))
    };
    assert!(at("High (3)") < at("Medium (3)") && at("Medium (3)") < at("Low (6)"));
    assert!(!text.contains("FastAPI route"), "evidence sentences only with --evidence");
    let evidence = text_of(&["diff", "diff/base", "diff/head"], &["--evidence"], &[]);
    assert!(evidence.contains("FastAPI route DELETE /api/items/{item_id}"), "{evidence}");
    let gated = text_of(&["diff", "diff/base", "diff/head"], &["--fail-on", "route-removed"], &[]);
    assert!(gated.contains("fails --fail-on: 2 findings of kind route-removed"), "{gated}");
    let same = text_of(&["diff", "diff/base", "diff/base"], &[], &[]);
    assert!(same.starts_with("✔ No architectural change.\n  base → base\n"), "{same}");
    assert!(same.contains("What was not seen (head)"), "coverage is told even without change");
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let args: &[&str] = &["diff", "diff/base", "diff/head"];
    // Not a terminal: no colour unless asked.
    let auto = text_of(args, &[], &[("TERM", "xterm-256color")]);
    assert_no_ansi("auto", &auto);
    let always = text_of(args, &["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(always.contains("\u{1b}["), "--color always colours, NO_COLOR or not");
    let forced = text_of(args, &[], &[("CLICOLOR_FORCE", "1"), ("TERM", "xterm")]);
    assert!(forced.contains("\u{1b}["), "CLICOLOR_FORCE colours");
    let never = text_of(args, &["--color", "never"], &[("CLICOLOR_FORCE", "1")]);
    assert_no_ansi("never", &never);
    // Without the codes, coloured text is the plain text.
    assert_eq!(strip_ansi(&always), auto);
}

/// `text` without its SGR sequences (`ESC [ … m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn width_follows_columns() {
    let args: &[&str] = &["diff", "diff/base", "diff/head"];
    let narrow = text_of(args, &[], &[("COLUMNS", "50")]);
    let widest = narrow
        .lines()
        .filter(|l| !l.trim().split(' ').any(|w| w.chars().count() > 40))
        .map(|l| l.chars().count())
        .max();
    assert!(widest.is_some_and(|w| w <= 50), "{narrow}");
}

#[test]
fn markdown_is_the_golden_byte_for_byte() {
    // Each Markdown golden, asked for with --markdown (the goldens test runs without it).
    let cases: &[(&str, &[&str])] = &[
        ("diff-report", &["diff", "diff/base", "diff/head", "--markdown"]),
        ("polyglot-summary-report", &["summary", "polyglot", "--markdown"]),
        ("fullstack-map-report", &["map", "fullstack", "--markdown"]),
        ("rules-check-report", &["check", "rules/head", "--markdown"]),
        ("diff-explained-report", &["render", "explained/diff.explained.json", "--markdown"]),
    ];
    for (golden, args) in cases {
        let output = run_in(&workspace().join("tests/fixtures"), args, &[("TERM", "xterm")]);
        let expected =
            std::fs::read_to_string(workspace().join(format!("goldens/{golden}.snap.md")))
                .expect("golden");
        assert!(stdout(&output) == expected, "{golden}: --markdown differs from the golden");
    }
}

#[test]
fn strings_of_a_document_cannot_drive_the_terminal() {
    // The analyser refuses paths with control characters, but `render` reads a diff document
    // from anywhere (an artifact of a fork's pull request): its verdict, messages and evidence
    // may hold escape sequences that set the terminal's title or colour.
    let fixture = workspace().join("tests/fixtures/explained/diff.explained.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).expect("fixture")).expect("JSON");
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[31mred";
    doc["verdict"] = serde_json::Value::String(format!("verdict {evil}"));
    doc["findings"][0]["message"] = serde_json::Value::String(format!("message {evil}"));
    doc["findings"][0]["edges"][0]["evidence"] = serde_json::Value::String(format!("why {evil}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("evil.json");
    std::fs::write(&path, doc.to_string()).expect("write");
    let path = path.to_str().expect("utf-8");
    for extra in [&[][..], &["--evidence"], &["--color", "always"]] {
        let mut args = vec!["render", path, "--text"];
        args.extend_from_slice(extra);
        let output = run_in(&workspace(), &args, &[]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(text.contains("\u{FFFD}]0;pwned\u{FFFD}\u{FFFD}[31mred"), "{text}");
        assert!(!text.contains('\u{7}'), "{text:?}");
        assert!(!text.contains("\u{1b}]") && !text.contains("\u{1b}[31mred"), "{text:?}");
    }
}

#[test]
fn text_and_markdown_cannot_both_take_stdout() {
    let output = run_in(
        &workspace().join("tests/fixtures"),
        &["diff", "diff/base", "diff/head", "--text", "--markdown"],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("only one of --json, --markdown and --text"));
}

/// The binary on a pseudo-terminal: stdout is a terminal, so the default form is text.
#[cfg(unix)]
mod on_a_terminal {
    use std::io::Read;
    use std::process::{Command, Stdio};

    use super::{assert_no_ansi, assert_plain, workspace};

    /// Runs `cartograph ARGS` with stdout on a new pseudo-terminal 100 columns wide and the
    /// given variables; `None` when no pseudo-terminal can be opened here.
    fn on_pty(args: &[&str], env: &[(&str, &str)]) -> Option<String> {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let master = match openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY) {
            Ok(fd) => fd,
            Err(e) => {
                eprintln!("skipped: no pseudo-terminal can be opened here ({e})");
                return None;
            }
        };
        grantpt(&master).expect("grantpt");
        unlockpt(&master).expect("unlockpt");
        let name = ptsname(&master, Vec::new()).expect("ptsname");
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name.to_str().expect("a UTF-8 device name"))
            .expect("open the terminal side");
        let size = rustix::termios::Winsize { ws_row: 40, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0 };
        rustix::termios::tcsetwinsize(&slave, size).expect("set the window size");

        let mut command = Command::new(env!("CARGO_BIN_EXE_cartograph"));
        command
            .args(args)
            .current_dir(workspace().join("tests/fixtures"))
            .env_clear()
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(slave.try_clone().expect("dup"))
            // The spinner goes to stderr when it is a terminal; the test is about stdout.
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("cartograph runs");
        drop(command);
        drop(slave);
        let mut reader = std::fs::File::from(master);
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => bytes.extend_from_slice(&buffer[..n]),
                // Linux says EIO once the last holder of the terminal side has closed it.
                Err(e) if e.raw_os_error() == Some(5) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("reading the terminal: {e}"),
            }
        }
        let status = child.wait().expect("cartograph ends");
        assert!(status.success(), "cartograph failed on a terminal");
        // The terminal turns each line feed into a carriage return and a line feed.
        Some(String::from_utf8(bytes).expect("UTF-8").replace("\r\n", "\n"))
    }

    #[test]
    fn diff_on_a_terminal_is_plain_text_without_html() {
        let args = ["diff", "diff/base", "diff/head"];
        let Some(text) = on_pty(&args, &[("TERM", "xterm-256color"), ("NO_COLOR", "1")]) else {
            return;
        };
        assert!(text.starts_with("✖ 12 findings"), "{text}");
        assert_plain("diff on a terminal", &text);
        assert_no_ansi("diff on a terminal with NO_COLOR=1", &text);
        // The terminal's width is used: 100 columns.
        assert!(
            text.lines()
                .all(|l| l.chars().count() <= 100
                    || l.trim().split(' ').any(|w| w.chars().count() > 60)),
            "{text}"
        );
        let recognisers = on_pty(&["recognisers"], &[("TERM", "xterm"), ("NO_COLOR", "1")])
            .expect("a terminal, as above");
        assert_plain("recognisers on a terminal", &recognisers);
        assert!(recognisers.contains("<app_label>_<model>"), "{recognisers}");
    }

    #[test]
    fn a_terminal_gets_colour_unless_no_color_or_dumb() {
        let args = ["diff", "diff/base", "diff/head"];
        let Some(coloured) = on_pty(&args, &[("TERM", "xterm-256color")]) else {
            return;
        };
        assert!(coloured.contains("\u{1b}["), "colour on a terminal");
        // NO_COLOR set to the empty string is as if unset (no-color.org).
        let empty = on_pty(&args, &[("TERM", "xterm-256color"), ("NO_COLOR", "")]).expect("pty");
        assert!(empty.contains("\u{1b}["), "an empty NO_COLOR does not turn colour off");
        let dumb = on_pty(&args, &[("TERM", "dumb")]).expect("pty");
        assert_no_ansi("TERM=dumb", &dumb);
        // --markdown on a terminal is the golden, byte for byte.
        let markdown =
            on_pty(&["diff", "diff/base", "diff/head", "--markdown"], &[("TERM", "xterm")])
                .expect("pty");
        let golden = std::fs::read_to_string(workspace().join("goldens/diff-report.snap.md"))
            .expect("golden");
        assert!(markdown == golden, "--markdown on a terminal differs from the golden");
    }
}
