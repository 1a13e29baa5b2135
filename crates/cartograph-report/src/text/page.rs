//! A page of terminal text: styled spans, word-wrapped to a width, and written out with or without
//! ANSI colour.
//!
//! Every string from an analysed tree is hostile: a file name may hold an escape sequence that
//! would drive the reader's terminal. So the page keeps what the renderers give it as spans, and
//! [`Page::finish`] replaces every control character (but the line feed) before it adds colour of
//! its own; no renderer writes to the output string directly.

use anstyle::{AnsiColor, Style};

/// What a span is, which decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Plain,
    /// A heading or a word to catch the eye.
    Strong,
    /// Secondary detail: locations, notes, evidence.
    Dim,
    High,
    Medium,
    Low,
    Info,
    /// Nothing to worry about: all rules hold, no findings.
    Good,
}

impl Role {
    /// The role of a finding severity (`high`, `medium`, `low`, anything else is info).
    pub(crate) fn of_severity(severity: &str) -> Self {
        match severity {
            "high" => Self::High,
            "medium" => Self::Medium,
            "low" => Self::Low,
            _ => Self::Info,
        }
    }

    fn style(self) -> Style {
        let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
        match self {
            Self::Plain => Style::new(),
            Self::Strong => Style::new().bold(),
            Self::Dim => Style::new().dimmed(),
            Self::High => fg(AnsiColor::Red).bold(),
            Self::Medium => fg(AnsiColor::Yellow).bold(),
            Self::Low => fg(AnsiColor::Cyan),
            Self::Info => fg(AnsiColor::Blue),
            Self::Good => fg(AnsiColor::Green).bold(),
        }
    }
}

/// A page being written: spans and line ends.
pub(crate) struct Page {
    width: usize,
    spans: Vec<(Role, String)>,
    /// Characters on the current line so far.
    column: usize,
}

/// The narrowest page: below this, lines are wrapped as if the terminal were this wide.
const MIN_WIDTH: usize = 40;

impl Page {
    pub(crate) fn new(width: usize) -> Self {
        Self { width: width.max(MIN_WIDTH), spans: Vec::new(), column: 0 }
    }

    /// Writes `text` on the current line as it is (no wrapping); `text` holds no line feed.
    pub(crate) fn put(&mut self, role: Role, text: &str) {
        if text.is_empty() {
            return;
        }
        self.column += text.chars().count();
        self.spans.push((role, text.to_owned()));
    }

    /// Ends the current line.
    pub(crate) fn end_line(&mut self) {
        self.spans.push((Role::Plain, "\n".to_owned()));
        self.column = 0;
    }

    /// Ends the current line if anything is on it, then leaves one empty line (never two).
    pub(crate) fn blank(&mut self) {
        if self.column > 0 {
            self.end_line();
        }
        if !self.spans.is_empty() && !self.ends_with_blank() {
            self.end_line();
        }
    }

    fn ends_with_blank(&self) -> bool {
        let mut feeds = 0;
        for (_, text) in self.spans.iter().rev() {
            if text == "\n" {
                feeds += 1;
                if feeds == 2 {
                    return true;
                }
            } else {
                return false;
            }
        }
        false
    }

    /// Writes the spans as one paragraph, word-wrapped: the first line after `indent` spaces (or
    /// after what the current line already holds), the others after `hang` spaces. A word never
    /// breaks, so a path longer than the line stands on a line of its own, whole. Ends the line.
    pub(crate) fn para(&mut self, indent: usize, hang: usize, spans: &[(Role, &str)]) {
        if self.column == 0 {
            self.put(Role::Plain, &" ".repeat(indent));
        }
        let mut words_on_line = 0;
        let mut pending_space = false;
        for (role, text) in spans {
            for (i, word) in text.split(' ').enumerate() {
                if i > 0 {
                    pending_space = true;
                }
                if word.is_empty() {
                    continue;
                }
                let len = word.chars().count();
                let space = usize::from(pending_space && self.column > 0);
                if words_on_line > 0 && self.column + space + len > self.width {
                    self.end_line();
                    self.put(Role::Plain, &" ".repeat(hang));
                } else if space == 1 {
                    self.put(Role::Plain, " ");
                }
                self.put(*role, word);
                words_on_line += 1;
                pending_space = false;
            }
        }
        self.end_line();
    }

    /// A `label  value` line: the label padded to `label_width`, the value wrapped under itself.
    pub(crate) fn field(&mut self, indent: usize, label_width: usize, label: &str, value: &str) {
        self.put(Role::Plain, &" ".repeat(indent));
        self.put(Role::Strong, label);
        let pad = label_width.saturating_sub(label.chars().count()) + 2;
        self.put(Role::Plain, &" ".repeat(pad));
        let hang = indent + label_width.max(label.chars().count()) + 2;
        self.para(0, hang, &[(Role::Plain, value)]);
    }

    /// The text: control characters from the spans replaced, colour added when asked, and one
    /// final line feed.
    pub(crate) fn finish(mut self, color: bool) -> String {
        while self.spans.last().is_some_and(|(_, t)| t == "\n") {
            self.spans.pop();
        }
        let mut out = String::new();
        for (role, text) in &self.spans {
            let clean = clean(text);
            let style = role.style();
            if color && !style.is_plain() && text != "\n" {
                out.push_str(&format!("{style}{clean}{style:#}"));
            } else {
                out.push_str(&clean);
            }
        }
        out.push('\n');
        out
    }
}

/// `text` with every control character but the line feed shown as `�`: an analysed tree cannot
/// move the cursor, clear the screen or set a title on the reader's terminal.
fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\n' { '\u{FFFD}' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_under_the_hang_and_never_break() {
        let mut page = Page::new(40);
        page.para(
            2,
            4,
            &[(Role::Plain, "a long sentence that goes past forty columns"), (Role::Plain, " and")],
        );
        page.para(
            0,
            2,
            &[(Role::Plain, "x backend/app/some/very/long/path/to/a/module/file.py y")],
        );
        let text = page.finish(false);
        assert_eq!(
            text,
            "  a long sentence that goes past forty\n    columns and\n\
             x\n  backend/app/some/very/long/path/to/a/module/file.py\n  y\n"
        );
    }

    #[test]
    fn control_characters_are_replaced_and_colour_is_only_ours() {
        let mut page = Page::new(80);
        page.para(0, 0, &[(Role::High, "evil\u{1b}[2Jname"), (Role::Plain, " \u{7}bell")]);
        let plain = page.finish(false);
        assert_eq!(plain, "evil\u{FFFD}[2Jname \u{FFFD}bell\n");
        let mut page = Page::new(80);
        page.para(0, 0, &[(Role::High, "evil\u{1b}[2J")]);
        let coloured = page.finish(true);
        assert!(coloured.starts_with("\u{1b}["), "{coloured:?}");
        assert!(coloured.contains("evil\u{FFFD}[2J"));
    }

    #[test]
    fn a_blank_line_is_never_doubled() {
        let mut page = Page::new(80);
        page.put(Role::Plain, "a");
        page.blank();
        page.blank();
        page.put(Role::Plain, "b");
        assert_eq!(page.finish(false), "a\n\nb\n");
    }
}
