//! The Explanations part of the Markdown report: where it sits, how a citation is tied to its
//! bundle edge, how refused and unavailable entries show the raw evidence, how a run degraded as
//! a whole reads, that hostile text in an item or a quote stays text, and that many long
//! explanations still fit one GitHub comment and say what was cut.

use std::path::Path;

use cartograph_report::diff::{
    BundleDoc, BundleEdgeDoc, CitationDoc, DiffDocument, ExplanationDoc, ExplanationItemDoc,
    STATUS_EXPLAINED, STATUS_UNAVAILABLE,
};
use cartograph_report::diff_markdown::{
    DEFAULT_BUDGET, DiffMarkdownOptions, GITHUB_COMMENT_LIMIT, render_diff,
};

fn fixture() -> DiffDocument {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/explained/diff.explained.json");
    DiffDocument::from_json(&std::fs::read_to_string(path).expect("fixture")).expect("reads")
}

fn render(doc: &DiffDocument) -> String {
    render_diff(doc, &DiffMarkdownOptions::default())
}

/// Every `<details>` is closed and no HTML tag the report does not write appears.
fn assert_well_formed(markdown: &str) {
    assert_eq!(
        markdown.matches("<details").count(),
        markdown.matches("</details>").count(),
        "unbalanced <details>"
    );
    for tag in ["<img", "<script", "<a ", "<iframe", "<table"] {
        assert!(!markdown.contains(tag), "{tag} in the report");
    }
}

#[test]
fn explanations_sit_below_the_findings_and_above_the_sections() {
    let markdown = render(&fixture());
    assert_well_formed(&markdown);
    let table = markdown.find("| # | severity |").expect("findings table");
    let explanations = markdown.find("<b>Explanations</b>").expect("explanations");
    let routes = markdown.find("<b>Routes</b>").expect("routes section");
    assert!(table < explanations && explanations < routes);
    assert!(markdown.contains(
        "<b>Explanations</b> · 2 explained · 1 refused · 1 unavailable · 20 changed edges not \
         selected</summary>"
    ));
    assert!(markdown.contains("By <code>openai/gpt-oss-120b</code> at <code>api.groq.com</code>"));
}

#[test]
fn every_citation_is_a_quote_tied_to_its_bundle_edge() {
    let markdown = render(&fixture());
    assert!(markdown.contains(
        "  > “GET \"/api/orders/export\" matches route GET /api/orders/export”<br><sub>— <b>e2</b>: \
         calls <code>web/src/api.ts</code> → <code>GET&nbsp;/api/orders/export</code></sub>"
    ));
    // Two citations of one item are two paragraphs of one quote.
    assert!(markdown.contains("</sub>\n  >\n  > “matches route GET /api/orders/{order&#95;id}"));
    // The entry's heading: the edge, what it is to the diff, the findings, the cache, the cut.
    assert!(markdown.contains(
        "**1.** <code>backend/app/api/orders.py</code> <b>serves</b> \
         <code>GET&nbsp;/api/orders/export</code> <sub>(removed · route removed, call to removed \
         route)</sub>"
    ));
    assert!(markdown.contains(
        "cached answer · evidence bundle cut to its size cap: 3 neighbouring edges not sent"
    ));
}

#[test]
fn refused_and_unavailable_entries_show_why_and_the_raw_evidence() {
    let markdown = render(&fixture());
    assert!(markdown.contains(
        "**explanation refused**: citation 1 of item 2 is not verbatim evidence of edge e2.\n\n\
         - raw evidence of this edge: FastAPI route DELETE /api/items/{item&#95;id}"
    ));
    assert!(markdown.contains(
        "**explanation unavailable**: the provider did not answer within the timeout.\n\n\
         - raw evidence of this edge: session.add on AuditLog writes table audit&#95;log"
    ));
    // The raw evidence carries its confidence and place.
    let row = markdown.find("- raw evidence of this edge: FastAPI").expect("raw evidence");
    let line_end = row + markdown[row..].find('\n').expect("line end");
    assert!(markdown[row..line_end].ends_with("<sub>(certain · line 25)</sub>"), "{markdown}");
}

#[test]
fn a_run_degraded_as_a_whole_is_one_sentence_and_the_raw_evidence() {
    let mut doc = fixture();
    let x = doc.explanations.as_mut().expect("explanations");
    x.note = Some("no API key: run `cartograph-ask key set` or pass --api-key-env NAME".into());
    for entry in &mut x.entries {
        entry.status = STATUS_UNAVAILABLE.into();
        entry.reason = Some("no API key".into());
        entry.items.clear();
        entry.cached = false;
    }
    (x.explained, x.refused, x.unavailable) = (0, 0, x.entries.len() as u64);
    let markdown = render(&doc);
    assert_well_formed(&markdown);
    assert!(
        markdown.contains("<b>Explanations</b> · 4 unavailable · 20 changed edges not selected")
    );
    assert!(markdown.contains(
        "> ⚠️ no API key: run <code>cartograph-ask&nbsp;key&nbsp;set</code> or pass \
         --api-key-env NAME"
    ));
    assert!(markdown.contains(
        "**explanation unavailable** for all 4 selected edges: no API key. Their raw evidence:\n\n- \
         <code>backend/app/api/orders.py</code> <b>serves</b>"
    ));
    assert!(!markdown.contains("**1.**"), "no per-entry headings when all share one reason");
}

#[test]
fn hostile_text_in_an_item_and_a_quote_stays_text() {
    let hostile = "</details></sub><img src=x onerror=alert(1)>\n# Heading\n| a | b |\n```\n\
                   [click](javascript:alert(1)) @everyone #1 https://evil.example *bold* _it_ \
                   <!-- cartograph-report -->";
    let mut doc = fixture();
    let x = doc.explanations.as_mut().expect("explanations");
    let entry = &mut x.entries[0];
    entry.bundle.edges[0].claim.evidence = format!("evidence says {hostile}");
    entry.items[0].text = hostile.into();
    entry.items[0].citations[0].text = hostile.into();
    entry.items[0].citations.push(CitationDoc { edge: "e9<b>".into(), text: hostile.into() });
    x.provider.model = "m</code><script>x</script>".into();
    x.note = Some(hostile.into());
    let markdown = render(&doc);
    assert_well_formed(&markdown);
    for raw in [
        "</details></sub>",
        "onerror=alert(1)>",
        "\n# Heading",
        "| a | b |",
        "```\n[click]",
        "[click](javascript",
        " @everyone",
        " #1 ",
        "https://evil",
        "*bold*",
        "_it_",
        "<!-- cartograph-report -->\n",
        "<b>e9<b>",
        "</code><script>",
    ] {
        assert!(!markdown.contains(raw), "{raw:?} reached the report raw");
    }
    assert!(markdown.contains("&lt;img src=x "));
    assert!(markdown.contains("<b>e9&lt;b&gt;</b>: not an edge of the bundle"));
}

/// A long evidence sentence, and the quotes cut from it.
fn long_evidence(i: usize) -> String {
    format!("{i:04} ").repeat(79) + "end"
}

/// A document with `n` explained entries, each with three long items of three long citations.
fn many_long(n: usize) -> DiffDocument {
    let mut doc = fixture();
    let x = doc.explanations.as_mut().expect("explanations");
    let template = x.entries[0].clone();
    let findings = doc.findings.clone();
    let mut entries = Vec::new();
    for i in 0..n {
        let mut entry: ExplanationDoc = template.clone();
        // Half the entries are behind a high finding, half behind none.
        let finding = &findings[if i % 2 == 0 { 0 } else { findings.len() - 1 }];
        entry.findings = if i % 2 == 0 { vec![finding.kind.clone()] } else { Vec::new() };
        entry.edge.from = format!("module:backend/app/generated/module_{i:03}.py");
        let edges: Vec<BundleEdgeDoc> = (1..=3)
            .map(|k| {
                let mut edge = template.bundle.edges[0].clone();
                edge.id = format!("e{k}");
                edge.claim.evidence = long_evidence(i * 10 + k);
                edge
            })
            .collect();
        entry.items = (0..3)
            .map(|j| ExplanationItemDoc {
                text: format!("Item {j} of entry {i}: ") + &"a long explanation ".repeat(60),
                citations: edges
                    .iter()
                    .map(|e| CitationDoc { edge: e.id.clone(), text: e.claim.evidence.clone() })
                    .collect(),
            })
            .collect();
        entry.bundle = BundleDoc { edges, ..template.bundle.clone() };
        entry.status = STATUS_EXPLAINED.into();
        entry.reason = None;
        entries.push(entry);
    }
    x.selected = n as u64;
    (x.explained, x.refused, x.unavailable) = (n as u64, 0, 0);
    x.entries = entries;
    doc
}

#[test]
fn many_long_explanations_fit_one_comment_and_say_what_was_cut() {
    let doc = many_long(25);
    let full = render_diff(&doc, &DiffMarkdownOptions { budget: usize::MAX, ..Default::default() });
    assert!(full.chars().count() > GITHUB_COMMENT_LIMIT, "the test needs an oversized report");

    let markdown = render(&doc);
    assert!(markdown.chars().count() <= DEFAULT_BUDGET);
    assert!(markdown.chars().count() <= GITHUB_COMMENT_LIMIT);
    assert_well_formed(&markdown);
    assert!(markdown.contains("**Shortened to fit one GitHub comment.**"));
    assert!(markdown.contains("explanation entries"), "the note names the cut");
    assert!(markdown.contains("more entries left out to fit one GitHub comment"));
    // The findings table is whole, and the entries kept are those behind the high finding.
    for finding in 1..=doc.findings.len() {
        assert!(markdown.contains(&format!("\n| {finding} | ")), "finding {finding} was cut");
    }
    assert!(markdown.contains("module&#95;000.py"));
    assert!(
        !markdown.contains("module&#95;001.py"),
        "an entry behind no finding outlived a severe one"
    );
}

#[test]
fn under_a_small_budget_only_the_counts_stay() {
    let doc = many_long(25);
    let options = DiffMarkdownOptions { budget: 12_000, ..Default::default() };
    let markdown = render_diff(&doc, &options);
    assert!(markdown.chars().count() <= 12_000);
    assert_well_formed(&markdown);
    assert!(markdown.contains("<b>Explanations</b> · 25 explained"));
    assert!(markdown.contains("These 25 entries are left out to fit one GitHub comment"));
    assert!(markdown.contains("25 explanation entries"));
}
