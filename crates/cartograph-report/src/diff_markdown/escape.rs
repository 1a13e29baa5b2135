//! Escaping of user-derived strings (file paths, route templates, table names, evidence sentences)
//! for GitHub-flavoured Markdown and for Mermaid labels.
//!
//! Every string that came from an analysed tree is hostile until escaped: a file named
//! ``a|b`<img src=x>_*.py`` must neither split a table cell, open a code span, inject HTML nor start
//! emphasis. Markdown escaping writes such characters as HTML character references, which the GFM
//! table splitter and the inline parser leave alone and the HTML output shows as the character.

/// Longest identity shown, in characters; longer ones keep their start and their end.
const MAX_IDENTITY_CHARS: usize = 160;
/// Identities up to this long are kept on one line.
const SHORT_IDENTITY_CHARS: usize = 48;
/// Identities longer than this may wrap after a `/` in a table cell.
const WRAP_IDENTITY_CHARS: usize = 40;
/// Longest sentence shown (an evidence sentence, a refusal reason, a verdict).
const MAX_SENTENCE_CHARS: usize = 400;
/// Longest paragraph shown (one item of an explanation).
const MAX_PROSE_CHARS: usize = 1_200;

/// An identity (a path, a route, a table, a label) as inline code that cannot escape its cell. A
/// short one does not wrap at its spaces (`GET /items` stays on one line).
pub(crate) fn code(text: &str) -> String {
    let escaped = entities(&clip(text, MAX_IDENTITY_CHARS));
    if text.chars().count() <= SHORT_IDENTITY_CHARS {
        format!("<code>{}</code>", escaped.replace(' ', "&nbsp;"))
    } else {
        format!("<code>{escaped}</code>")
    }
}

/// An identity as [`code`] that may wrap after a `/` when it is long (a route or a path in a
/// table cell, which would otherwise widen the whole table): `<wbr>` marks where.
pub(crate) fn code_wrapping(text: &str) -> String {
    if text.chars().count() <= WRAP_IDENTITY_CHARS {
        return code(text);
    }
    let escaped = entities(&clip(text, MAX_IDENTITY_CHARS));
    format!("<code>{}</code>", escaped.replace('/', "/<wbr>"))
}

/// A sentence as plain text. Words that GitHub would turn into a mention (`@scope/pkg`), an issue
/// link (`#12`) or a link (`https://…`, `www.…`) are set as code, where GitHub links nothing and
/// notifies no one: a pull request cannot make the report ping people or carry clickable links.
pub(crate) fn text(sentence: &str) -> String {
    words(&clip(sentence, MAX_SENTENCE_CHARS))
}

/// A word or a few as [`text`] does, never clipped: for a caller that bounds the length itself.
pub(crate) fn plain(words_: &str) -> String {
    words(words_)
}

/// A paragraph (an explanation item) as plain text, escaped like [`text`], kept whole up to a
/// longer limit.
pub(crate) fn prose(paragraph: &str) -> String {
    words(&clip(paragraph, MAX_PROSE_CHARS))
}

/// A sentence as [`text`], except that spans between backticks are set as code (escaped like
/// every identity): a note such as "run `cartograph-ask key set`" shows the command as code.
/// With an odd number of backticks the whole sentence is plain text.
pub(crate) fn text_with_code(sentence: &str) -> String {
    let clipped = clip(sentence, MAX_SENTENCE_CHARS);
    let parts: Vec<&str> = clipped.split('`').collect();
    if parts.len() < 3 || parts.len().is_multiple_of(2) {
        return words(&clipped);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { code(part) } else { words(part) })
        .collect()
}

/// Escapes a sentence word by word (see [`text`]).
fn words(clipped: &str) -> String {
    let mut out = String::with_capacity(clipped.len() + 16);
    for (i, word) in clipped.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let linkable = word.contains(['@', '#']) || word.contains("://") || word.contains("www.");
        if linkable {
            // Sentence punctuation after the word stays outside the code.
            let mut core = word.trim_end_matches(['.', ',', ';', ':', '!', '?']);
            if core.ends_with(')') && core.matches(')').count() > core.matches('(').count() {
                core = &core[..core.len() - 1];
            }
            out.push_str("<code>");
            out.push_str(&entities(core));
            out.push_str("</code>");
            out.push_str(&entities(&word[core.len()..]));
        } else {
            out.push_str(&entities(word));
        }
    }
    out
}

/// Writes every character that means something to Markdown, GFM tables or HTML as a numeric
/// character reference, and every line break or control character as a space.
fn entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '`' => out.push_str("&#96;"),
            '*' => out.push_str("&#42;"),
            '_' => out.push_str("&#95;"),
            '~' => out.push_str("&#126;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '\\' => out.push_str("&#92;"),
            '$' => out.push_str("&#36;"),
            '!' => out.push_str("&#33;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    // GitHub's autolinker runs on text, inside `<code>` too; a character reference splits the text
    // so that `https://…` and `www.…` stay plain.
    if out.contains("://") || out.contains("www.") {
        out = out.replace("://", "&#58;//").replace("www.", "www&#46;");
    }
    out
}

/// A Mermaid node label, for use inside `["…"]`: quotes, brackets, pipes, angle brackets, `#`, `&`,
/// `;` and backticks as Mermaid entity codes (`#quot;`, `#35;`), so a route such as
/// `GET /items/{}` or a path with odd characters cannot end the label or the statement.
pub(crate) fn mermaid_label(text: &str, max_chars: usize) -> String {
    let clipped = clip_start(text, max_chars);
    let mut out = String::with_capacity(clipped.len() + 8);
    for c in clipped.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            '`' => out.push_str("#96;"),
            ';' => out.push_str("#59;"),
            '[' => out.push_str("#91;"),
            ']' => out.push_str("#93;"),
            '{' => out.push_str("#123;"),
            '}' => out.push_str("#125;"),
            '(' => out.push_str("#40;"),
            ')' => out.push_str("#41;"),
            '\\' => out.push_str("#92;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Keeps the start and the end of a long string, with an ellipsis between.
pub(crate) fn clip(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars || max_chars < 3 {
        return text.to_owned();
    }
    let head = max_chars * 2 / 5;
    let tail = max_chars - head - 1;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count - tail).collect();
    format!("{start}…{end}")
}

/// Keeps the end of a long string (the informative part of a path), cut after a `/` when one is
/// near.
pub(crate) fn clip_start(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars || max_chars < 2 {
        return text.to_owned();
    }
    let end: String = text.chars().skip(count - (max_chars - 1)).collect();
    let trimmed = match end.find('/') {
        Some(i) if i + 1 < end.len() && end[..i].chars().count() < max_chars / 3 => &end[i..],
        _ => end.as_str(),
    };
    format!("…{trimmed}")
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_cannot_break_a_table_or_inject_html() {
        let hostile = "a|b`c<img src=x onerror=alert(1)>_*[x](y)\\\n.py";
        let out = code(hostile);
        assert!(!out[6..out.len() - 7].contains(['|', '`', '<', '>', '_', '*', '[', '\n']));
        assert_eq!(
            out,
            "<code>a&#124;b&#96;c&lt;img&nbsp;src=x&nbsp;onerror=alert(1)&gt;&#95;&#42;&#91;x&#93;(y)\
             &#92;&nbsp;.py</code>"
        );
    }

    #[test]
    fn long_identities_may_wrap_after_a_slash_and_short_ones_do_not() {
        assert_eq!(code_wrapping("GET /api/v2/x"), "<code>GET&nbsp;/api/v2/x</code>");
        let long = "PATCH /api/v2/dags/{}/dagRuns/{}/taskInstances/{}/state-store";
        assert_eq!(
            code_wrapping(long),
            "<code>PATCH /<wbr>api/<wbr>v2/<wbr>dags/<wbr>{}/<wbr>dagRuns/<wbr>{}/<wbr>\
             taskInstances/<wbr>{}/<wbr>state-store</code>"
        );
        assert_eq!(code_wrapping("a|b/<x>/".repeat(8).as_str()).matches("<wbr>").count(), 16);
        assert!(!code_wrapping(&"a|b/<x>/".repeat(8)).contains("<x>"));
    }

    #[test]
    fn mentions_links_and_issue_links_become_code() {
        assert_eq!(text("import of @angular/core"), "import of <code>@angular/core</code>");
        assert_eq!(text("see #12 now"), "see <code>#12</code> now");
        assert_eq!(text("calls https://e.com."), "calls <code>https&#58;//e.com</code>.");
        assert_eq!(text("(see @a/b)"), "(see <code>@a/b</code>)");
        assert_eq!(text("from @get(\"/x\") on f"), "from <code>@get(\"/x\")</code> on f");
        assert_eq!(
            text("post to \"https://e.com/x\" now"),
            "post to <code>\"https&#58;//e.com/x\"</code> now"
        );
    }

    #[test]
    fn backticked_spans_become_code_and_nothing_else_does() {
        assert_eq!(
            text_with_code("no API key: run `cartograph-ask key set` now"),
            "no API key: run <code>cartograph-ask&nbsp;key&nbsp;set</code> now"
        );
        assert_eq!(text_with_code("odd ` tick <b>"), "odd &#96; tick &lt;b&gt;");
        assert_eq!(text_with_code("`<img src=x>`"), "<code>&lt;img&nbsp;src=x&gt;</code>");
        let long = "word ".repeat(300);
        assert!(prose(&long).chars().count() > text(&long).chars().count());
    }

    #[test]
    fn mermaid_labels_have_no_raw_delimiters() {
        let out = mermaid_label("GET /items/{} \"x\" <b>|#&;`[](", 200);
        assert!(!out.contains(['"', '<', '>', '|', '`', '[', ']', '{', '}', '(', ')']));
        assert!(out.starts_with("GET /items/#123;#125; #quot;x#quot; #lt;b#gt;#124;#35;#amp;#59;"));
    }

    #[test]
    fn clipping_and_numbers() {
        assert_eq!(clip("abcdefghij", 5), "ab…ij");
        assert_eq!(clip("abc", 5), "abc");
        assert_eq!(clip_start("backend/app/api/routes/items.py", 20), "…/routes/items.py");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234), "1,234");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
