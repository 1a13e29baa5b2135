//! [`Redactor`]: what is taken out of a log line before it is written.

use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use cartograph_core::Secret;

/// What a secret, a bearer token or an API-key-shaped token becomes.
pub const REDACTED: &str = "<redacted>";
/// What an absolute path that is neither under a registered root nor under the home directory
/// becomes.
const ABSOLUTE: &str = "<abs>";

/// Top-level directories that hold machine paths on the common systems, whether or not they exist
/// here (a path in a message may come from another machine, such as a CI runner's).
const MACHINE_ROOTS: &[&str] = &[
    "Applications",
    "Library",
    "System",
    "Users",
    "Volumes",
    "bin",
    "builds",
    "dev",
    "etc",
    "github",
    "home",
    "lib",
    "mnt",
    "nix",
    "opt",
    "private",
    "proc",
    "root",
    "run",
    "runner",
    "sbin",
    "snap",
    "srv",
    "sys",
    "tmp",
    "usr",
    "var",
    "work",
    "workspace",
];

/// The rules one binary redacts with. Cloning shares the rules: a secret registered on one clone
/// is redacted by every writer made from any clone.
#[derive(Clone)]
pub struct Redactor {
    rules: Arc<RwLock<Rules>>,
}

#[derive(Default)]
struct Rules {
    /// Literal secret values, longest first.
    secrets: Vec<String>,
    /// Repository roots (and their Debug-escaped forms), longest first.
    roots: Vec<String>,
    /// The home directory (and its Debug-escaped form), longest first.
    home: Vec<String>,
    /// First path components that mark `/x/...` as a machine path.
    top_dirs: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor(<rules>)")
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Redactor {
    /// A redactor that knows this machine's home directory (`HOME`, or `USERPROFILE` on Windows)
    /// and its top-level directories, and no secret yet.
    pub fn new() -> Self {
        let mut rules = Rules::default();
        for var in ["HOME", "USERPROFILE"] {
            if let Some(home) = std::env::var_os(var) {
                push_path_forms(&mut rules.home, &home.to_string_lossy());
            }
        }
        let mut top: Vec<String> = MACHINE_ROOTS.iter().map(|s| (*s).to_owned()).collect();
        if let Ok(entries) = std::fs::read_dir("/") {
            top.extend(entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()));
        }
        top.retain(|t| !t.is_empty());
        top.sort();
        top.dedup();
        rules.top_dirs = top;
        Self { rules: Arc::new(RwLock::new(rules)) }
    }

    /// From now on, the secret's value is replaced by `<redacted>` wherever it appears.
    pub fn register_secret(&self, secret: &Secret) {
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        let value = secret.expose().to_owned();
        if !rules.secrets.contains(&value) {
            rules.secrets.push(value);
            rules.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// From now on, `root` (an absolute directory) and everything under it is written as
    /// `<repo>/…`.
    pub fn set_repo_root(&self, root: &Path) {
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        push_path_forms(&mut rules.roots, &root.to_string_lossy());
    }

    /// Redacts one log line (or several). In order, because each rule must see the text before
    /// the next one rewrites it:
    /// 1. every registered secret's literal value → `<redacted>`;
    /// 2. `Bearer <token>` → `Bearer <redacted>`, and tokens shaped like API keys (`gsk_…`,
    ///    `sk-…`) → `<redacted>`;
    /// 3. a registered repository root → `<repo>`;
    /// 4. the home directory → `<home>` (not `~`: a `~/…` path is itself a machine path);
    /// 5. any remaining absolute path at a token boundary → `<abs>`: `/x/…` whose first component
    ///    is a machine root (`home`, `tmp`, `Users`, … or a top-level directory of this machine),
    ///    `C:\…`, `C:/…` (also Debug-escaped, `C:\\…`), `\\server\…` and `~/…`.
    ///
    /// Route paths such as `/api/items/{}` are left alone unless their first component is a
    /// machine root.
    pub fn redact(&self, input: &str) -> String {
        let rules = self.rules.read().unwrap_or_else(PoisonError::into_inner);
        let mut text = input.to_owned();
        for secret in &rules.secrets {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), REDACTED);
            }
        }
        text = redact_tokens(&text);
        for root in &rules.roots {
            text = replace_prefix(&text, root, "<repo>");
        }
        for home in &rules.home {
            text = replace_prefix(&text, home, "<home>");
        }
        redact_absolute_paths(&text, &rules.top_dirs)
    }
}

/// Adds a path and, when it has backslashes, its Debug-escaped form (`C:\\Users\\…`), keeping the
/// list longest first. A trailing separator is dropped; a bare root (`/`) is ignored.
fn push_path_forms(list: &mut Vec<String>, path: &str) {
    let path = path.trim_end_matches(['/', '\\']);
    if path.len() < 2 {
        return;
    }
    let mut forms = vec![path.to_owned()];
    if path.contains('\\') {
        forms.push(path.replace('\\', "\\\\"));
    }
    for form in forms {
        if !list.contains(&form) {
            list.push(form);
        }
    }
    list.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// Whether `c` may continue a path or token (so a match ending before it is not a whole one).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Whether a path or token may start right after `prev` (`None`: at the start of the text).
fn is_boundary(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => {
            c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | '[' | '{' | '=' | ',' | ';')
        }
    }
}

/// Where a path ends: whitespace, a quote, a closing bracket or a separator between values.
fn is_path_end(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ')' | ']' | '}' | ',' | ';' | '<' | '>')
}

/// Replaces `prefix` with `with` wherever it is followed by the end of the text, a separator or a
/// character that cannot continue a name (so `/home/al` does not match inside `/home/alice`).
fn replace_prefix(text: &str, prefix: &str, with: &str) -> String {
    if !text.contains(prefix) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let whole = after.chars().next().is_none_or(|c| !is_name_char(c));
        out.push_str(&rest[..at]);
        out.push_str(if whole { with } else { prefix });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Rule 2: bearer tokens and API-key-shaped tokens.
fn redact_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let prev = text[..i].chars().next_back();
        if prev.is_none_or(|c| !is_name_char(c))
            && let Some(len) = token_at(rest)
        {
            out.push_str(&rest[..len.keep]);
            out.push_str(REDACTED);
            i += len.keep + len.secret;
            continue;
        }
        let c = rest.chars().next().expect("i is inside the text");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// How much of a token to keep (`Bearer `) and how much is secret.
struct TokenLen {
    keep: usize,
    secret: usize,
}

/// A bearer token or API-key-shaped token starting at the beginning of `rest`, if any.
fn token_at(rest: &str) -> Option<TokenLen> {
    let len_while = |s: &str, f: fn(char) -> bool| -> usize {
        s.chars().take_while(|&c| f(c)).map(char::len_utf8).sum()
    };
    if rest.len() > 7 && rest.is_char_boundary(7) && rest[..7].eq_ignore_ascii_case("bearer ") {
        let secret = len_while(&rest[7..], |c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~' | '+' | '/' | '=')
        });
        return (secret > 0).then_some(TokenLen { keep: 7, secret });
    }
    for prefix in ["gsk_", "sk-"] {
        if let Some(body) = rest.strip_prefix(prefix) {
            let len = len_while(body, |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
            if len >= 8 {
                return Some(TokenLen { keep: 0, secret: prefix.len() + len });
            }
        }
    }
    None
}

/// Rule 5: absolute paths that survived rules 3 and 4.
fn redact_absolute_paths(text: &str, top_dirs: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let prev = text[..i].chars().next_back();
        if is_boundary(prev) && starts_absolute_path(rest, top_dirs) {
            let len: usize =
                rest.chars().take_while(|&c| !is_path_end(c)).map(char::len_utf8).sum();
            out.push_str(ABSOLUTE);
            i += len.max(1);
            continue;
        }
        let c = rest.chars().next().expect("i is inside the text");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Whether `rest` starts with an absolute machine path.
fn starts_absolute_path(rest: &str, top_dirs: &[String]) -> bool {
    let b = rest.as_bytes();
    // `C:\`, `C:/`, `C:\\` (Debug-escaped).
    if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
    {
        return true;
    }
    // `\\server\share`, `\\?\C:\`, and their Debug-escaped forms.
    if rest.starts_with("\\\\") && rest.len() > 2 {
        let c = rest[2..].chars().next().unwrap_or(' ');
        return c.is_alphanumeric() || c == '?' || c == '\\';
    }
    // `~/…`: a path under someone's home directory.
    if rest.starts_with("~/") || rest.starts_with("~\\") {
        return true;
    }
    if let Some(path) = rest.strip_prefix('/') {
        let first: String = path.chars().take_while(|&c| c != '/' && !is_path_end(c)).collect();
        return !first.is_empty() && top_dirs.contains(&first);
    }
    false
}

#[cfg(test)]
mod tests;
