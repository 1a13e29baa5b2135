//! The recogniser registry as terminal text: one entry per recogniser, its languages and edges on
//! the first line, what it recognises wrapped under it.

use super::TextOptions;
use super::page::{Page, Role};

/// Renders the recogniser registry as terminal text.
pub fn render_recognisers(options: &TextOptions) -> String {
    let recognisers = cartograph_extract::recognise::registry::all();
    let mut page = Page::new(options.width);
    page.para(
        0,
        0,
        &[(Role::Strong, "Recognisers"), (Role::Dim, &format!(" ({})", recognisers.len()))],
    );
    if recognisers.is_empty() {
        page.para(2, 2, &[(Role::Plain, "Only imports are recognised so far.")]);
        return page.finish(options.color);
    }
    for r in recognisers {
        page.blank();
        let languages: Vec<&str> = r.languages.iter().map(|l| l.as_str()).collect();
        let edges: Vec<&str> = r.edges.iter().map(|e| e.as_str()).collect();
        page.put(Role::Strong, r.name);
        page.put(Role::Plain, "  ");
        let detail =
            format!("{} · {} · recognise/{}", languages.join(", "), edges.join(", "), r.file);
        page.para(0, 2, &[(Role::Dim, &detail)]);
        page.para(2, 2, &[(Role::Plain, r.summary)]);
    }
    page.finish(options.color)
}
