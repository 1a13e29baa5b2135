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
use cartograph_report::explain::{Unverified, entry_scope, verify_entry};

fn fixture() -> DiffDocument {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/explained/diff.explained.json");
    DiffDocument::from_json(&std::fs::read_to_string(path).expect("fixture")).expect("reads")
}

/// Recomputes the scope id of the entry's bundle, as `cartograph-ask` would have for that bundle:
/// what a hand-made entry needs to pass verification when the report is rendered.
fn seal(entry: &mut ExplanationDoc) {
    entry.bundle.scope = entry_scope(entry);
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
    // In a neighbour's evidence (e1 must stay the diff's own evidence of the changed edge), quoted
    // verbatim, and the bundle sealed again: the entry passes verification and is shown.
    let entry = &mut x.entries[0];
    let evidence = &mut entry.bundle.edges[1].claim.evidence;
    *evidence = format!("{evidence} and says {hostile}");
    entry.items[0].text = hostile.into();
    entry.items[0].citations[0] = CitationDoc { edge: "e2".into(), text: hostile.into() };
    seal(entry);
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
        "</code><script>",
    ] {
        assert!(!markdown.contains(raw), "{raw:?} reached the report raw");
    }
    assert!(markdown.contains("&lt;img src=x "));
    assert!(markdown.contains("<b>Explanations</b> · 2 explained ·"), "shown as explained");
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
                edge.claim.from = entry.edge.from.clone();
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
        seal(&mut entry);
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

#[test]
fn the_fixture_s_explained_entries_verify() {
    // The fixture stands for what cartograph-ask writes: its bundles hash to their scope ids.
    let doc = fixture();
    let x = doc.explanations.as_ref().expect("explanations");
    let mut wrong = Vec::new();
    for entry in x.entries.iter().filter(|e| e.status == STATUS_EXPLAINED) {
        let mut sealed = entry.clone();
        seal(&mut sealed);
        if entry.bundle.scope != sealed.bundle.scope {
            wrong.push(format!("{} should be {}", entry.bundle.scope, sealed.bundle.scope));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("; "));
    for entry in &x.entries {
        assert_eq!(verify_entry(&doc, entry), Ok(()));
    }
}

/// The fixture with its first entry (explained) changed by `edit`; the rendered report.
fn edited(edit: impl FnOnce(&mut ExplanationDoc)) -> (DiffDocument, String) {
    let mut doc = fixture();
    edit(&mut doc.explanations.as_mut().expect("explanations").entries[0]);
    let markdown = render(&doc);
    assert_well_formed(&markdown);
    (doc, markdown)
}

/// Asserts the first entry is shown unverified for `why`, without its answer, and counted so.
fn assert_unverified(doc: &DiffDocument, markdown: &str, why: Unverified, reason: &str) {
    let entry = &doc.explanations.as_ref().expect("explanations").entries[0];
    assert_eq!(verify_entry(doc, entry), Err(why));
    assert!(
        markdown
            .contains(&format!("**explanation unverified**: {reason}; its answer is not shown.")),
        "{markdown}"
    );
    // The counts are the entries' as verified: the document's own say 2 explained.
    assert!(markdown.contains("<b>Explanations</b> · 1 explained · 1 unverified · 1 refused"));
    for item in &entry.items {
        assert!(!markdown.contains(&item.text), "an unverified answer was shown");
    }
    // Its raw evidence is shown instead.
    assert!(markdown.contains("- raw evidence of this edge: FastAPI route GET /api/orders/export"));
}

#[test]
fn an_invented_quotation_in_a_report_read_from_disk_is_not_shown_as_checked() {
    let invented = "the export endpoint leaked customer data";
    let (doc, markdown) = edited(|entry| {
        entry.items[0].text = "It leaked data.".into();
        entry.items[0].citations[0].text = invented.into();
    });
    assert!(!markdown.contains(invented));
    assert_unverified(
        &doc,
        &markdown,
        Unverified::Citation {
            item: 1,
            citation: 1,
            error: cartograph_report::explain::CitationError::NotVerbatim { edge: 1 },
        },
        "citation 1 of item 1 is not verbatim evidence of edge e1",
    );
}

#[test]
fn a_citation_of_an_edge_the_bundle_does_not_have_is_unverified() {
    let (doc, markdown) = edited(|entry| {
        entry.items[1].citations.push(CitationDoc { edge: "e9<b>".into(), text: "x".repeat(20) });
    });
    assert_unverified(
        &doc,
        &markdown,
        Unverified::Citation {
            item: 2,
            citation: 3,
            error: cartograph_report::explain::CitationError::UnknownEdge,
        },
        "citation 3 of item 2 names an edge that is not in the bundle",
    );
    assert!(!markdown.contains("e9"), "the invented edge id is not repeated");
}

#[test]
fn evidence_edited_together_with_its_quotation_no_longer_matches_the_scope() {
    // The edit is consistent — the quotation is in the edited evidence — but the bundle was not
    // what was sent: its bytes no longer hash to its scope id.
    let (doc, markdown) = edited(|entry| {
        entry.bundle.edges[1].claim.evidence =
            "calls GET /api/orders/export with admin rights".into();
        entry.items[1].citations[0] =
            CitationDoc { edge: "e2".into(), text: "with admin rights".into() };
    });
    assert_unverified(
        &doc,
        &markdown,
        Unverified::BundleChanged,
        "its evidence bundle no longer matches its scope id (the document was changed after ASK ran)",
    );
}

#[test]
fn a_resealed_bundle_must_still_begin_with_the_diff_s_own_evidence() {
    // Edited and sealed again (the hash is no secret): the changed edge's evidence now differs
    // from the diff's own record of that edge, which the document also carries.
    let (doc, markdown) = edited(|entry| {
        entry.bundle.edges[0].claim.evidence =
            "FastAPI route GET /api/orders/export, unauthenticated".into();
        entry.items[0].citations[0] =
            CitationDoc { edge: "e1".into(), text: "unauthenticated".into() };
        seal(entry);
    });
    assert_unverified(
        &doc,
        &markdown,
        Unverified::NotThisEdge,
        "its evidence bundle does not begin with this diff's own evidence of the changed edge",
    );
}

#[test]
fn an_explained_entry_without_items_or_with_an_uncited_item_is_unverified() {
    let (doc, markdown) = edited(|entry| entry.items[1].citations.clear());
    assert_unverified(
        &doc,
        &markdown,
        Unverified::UncitedItem { item: 2 },
        "item 2 cites no evidence",
    );
    let (doc, markdown) = edited(|entry| entry.items.clear());
    assert_unverified(&doc, &markdown, Unverified::NoItems, "it has no explanation items");
}
