//! The explanation cache: a re-run asks only about new or changed bundles; entries are keyed by
//! bundle, model, host and prompt version; a tampered entry is ignored; concurrent writers never
//! leave half an entry.

use crate::common;

use cartograph_ask::answer::Answer;
use cartograph_ask::attach::{self, Asker, AttachOptions, KeyState, Snapshots};
use cartograph_ask::bundle::EvidenceBundle;
use cartograph_ask::cache::AnswerCache;
use cartograph_ask::endpoint::{Endpoint, ProviderName};
use cartograph_ask::provider::ChatProvider;
use cartograph_ask::select::{self, EdgePool};
use common::*;
use serde_json::json;

fn answering_transport() -> MockTransport {
    MockTransport::responding(|r| {
        let sent = read_sent_bundle(&r.body);
        let items = json!({ "items": [{ "text": "x", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 }] }] });
        Ok(response(200, &envelope(&items.to_string(), "stop")))
    })
}

fn groq() -> Endpoint {
    Endpoint::resolve(ProviderName::Groq, None, None).unwrap()
}

#[test]
fn a_rerun_asks_only_about_new_or_changed_bundles() {
    let dir = tempfile::tempdir().unwrap();
    let cache = AnswerCache::open(&dir.path().join("ask-cache")).unwrap();
    let endpoint = groq();
    let key = fixture_key();
    let input = fixture_report();

    let first = answering_transport();
    let provider = ChatProvider::new(endpoint.clone(), &first);
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: Some(&cache),
    };
    let out1 = attach::attach(&input, Snapshots::default(), &asker, &AttachOptions::default());
    assert_eq!(first.count(), 24);
    assert!(out1.explanations.as_ref().unwrap().entries.iter().all(|e| !e.cached));

    // The same report again: every answer comes from the cache, no request is made.
    let provider = ChatProvider::new(endpoint.clone(), PanickingTransport);
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: Some(&cache),
    };
    let out2 = attach::attach(&input, Snapshots::default(), &asker, &AttachOptions::default());
    let ex2 = out2.explanations.as_ref().unwrap();
    assert_eq!(ex2.explained, 24);
    assert!(ex2.entries.iter().all(|e| e.cached));
    let items = |d: &cartograph_report::diff::DiffDocument| {
        d.explanations.as_ref().unwrap().entries.iter().map(|e| e.items.clone()).collect::<Vec<_>>()
    };
    assert_eq!(items(&out1), items(&out2));

    // One edge's evidence changes: only the bundles that contain it are asked again.
    let mut changed = input;
    changed.edges.added[0].claim.evidence.push_str(" (reworded)");
    let third = answering_transport();
    let provider = ChatProvider::new(endpoint.clone(), &third);
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: Some(&cache),
    };
    let out3 = attach::attach(&changed, Snapshots::default(), &asker, &AttachOptions::default());
    let ex3 = out3.explanations.as_ref().unwrap();
    let asked = ex3.entries.iter().filter(|e| !e.cached).count();
    assert!((1..24).contains(&asked), "{asked}");
    assert_eq!(third.count(), asked);
    assert_eq!(ex3.explained, 24);
}

fn one_bundle() -> EvidenceBundle {
    let doc = fixture_report();
    let selection = select::select(&doc, 1);
    EvidenceBundle::build(&selection.selected[0], &EdgePool::new(&doc, None, None), 6 * 1024)
}

#[test]
fn the_key_depends_on_bundle_model_and_host() {
    let bundle = one_bundle();
    let groq = groq();
    let other_model =
        Endpoint::resolve(ProviderName::Groq, None, Some("openai/gpt-oss-20b")).unwrap();
    let other_host =
        Endpoint::resolve(ProviderName::OpenAi, None, Some("openai/gpt-oss-120b")).unwrap();
    let k = AnswerCache::key(&bundle, &groq);
    assert_eq!(k, AnswerCache::key(&bundle, &groq));
    assert_eq!(k.len(), 64);
    assert_ne!(k, AnswerCache::key(&bundle, &other_model));
    assert_ne!(k, AnswerCache::key(&bundle, &other_host));
}

#[test]
fn a_tampered_entry_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let cache = AnswerCache::open(dir.path()).unwrap();
    let bundle = one_bundle();
    let endpoint = groq();
    let answer = Answer::validate(&bundle, &valid_answer(&bundle)).unwrap();
    cache.store(&bundle, &endpoint, &answer).unwrap();
    assert_eq!(cache.load(&bundle, &endpoint), Some(answer.clone()));
    let path = dir.path().join(format!("{}.json", AnswerCache::key(&bundle, &endpoint)));
    let text = std::fs::read_to_string(&path).unwrap();
    // A quotation edited to say something the evidence does not.
    let quoted = serde_json::to_string(&bundle.edges()[0].claim.evidence).unwrap();
    assert!(text.contains(&quoted));
    std::fs::write(&path, text.replacen(&quoted, "\"an invented claim about this edge\"", 1))
        .unwrap();
    assert_eq!(cache.load(&bundle, &endpoint), None);
    // Garbage, and an empty file.
    std::fs::write(&path, "not json").unwrap();
    assert_eq!(cache.load(&bundle, &endpoint), None);
    std::fs::write(&path, "").unwrap();
    assert_eq!(cache.load(&bundle, &endpoint), None);
    // The next store repairs it.
    cache.store(&bundle, &endpoint, &answer).unwrap();
    assert_eq!(cache.load(&bundle, &endpoint), Some(answer));
}

#[test]
fn concurrent_writers_leave_a_whole_entry_and_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = one_bundle();
    let endpoint = groq();
    let answer = Answer::validate(&bundle, &valid_answer(&bundle)).unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let cache = AnswerCache::open(dir.path()).unwrap();
                for _ in 0..20 {
                    cache.store(&bundle, &endpoint, &answer).unwrap();
                    // A reader at any moment sees either nothing or a whole, valid entry.
                    if let Some(read) = cache.load(&bundle, &endpoint) {
                        assert_eq!(read, answer);
                    }
                }
            });
        }
    });
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [format!("{}.json", AnswerCache::key(&bundle, &endpoint))]);
}

#[test]
fn an_answer_is_stored_only_under_its_own_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let cache = AnswerCache::open(dir.path()).unwrap();
    let doc = fixture_report();
    let selection = select::select(&doc, 2);
    let pool = EdgePool::new(&doc, None, None);
    let a = EvidenceBundle::build(&selection.selected[0], &pool, 6 * 1024);
    let b = EvidenceBundle::build(&selection.selected[1], &pool, 6 * 1024);
    let answer = Answer::validate(&a, &valid_answer(&a)).unwrap();
    assert!(cache.store(&b, &groq(), &answer).is_err());
    assert_eq!(cache.load(&b, &groq()), None);
}
