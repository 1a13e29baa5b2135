//! Credential modes, with keyring-core's mock store (a store per test, never the process-global
//! default, never a real keychain): set / get / delete / status, absence as `Ok(None)`, a store
//! that is unavailable, one that denies access, one that fails; the order of key sources; and the
//! key absent from every `Debug` and error.

use crate::common;

use std::sync::Arc;

use cartograph_ask::credential::{KeyOutcome, KeySource, resolve_key};
use cartograph_ask::endpoint::ProviderName;
use cartograph_ask::keychain::{KeyStatus, Keychain, KeychainError, SERVICE};
use cartograph_core::Secret;
use common::*;
use keyring_core::{CredentialStore, Entry, Error, mock};

fn mock_store() -> Arc<CredentialStore> {
    let store: Arc<CredentialStore> = mock::Store::new().expect("mock store");
    store
}

/// Makes the next operation on the (service, provider) entry of `store` fail with `error`. Mock
/// entries with the same service and user share one credential, so the keychain's own entry sees
/// it.
fn fail_next(store: &Arc<CredentialStore>, provider: ProviderName, error: Error) {
    let entry = Entry::new_in_store(store, SERVICE, provider.as_str()).unwrap();
    entry.as_any().downcast_ref::<mock::Cred>().expect("a mock credential").set_error(error);
}

#[test]
fn set_get_delete_and_status_round_trip() {
    let store = mock_store();
    let keychain = Keychain::with_store(store.clone());
    let key = fixture_key();
    assert_eq!(keychain.status(ProviderName::Groq).unwrap(), KeyStatus::Absent);
    assert!(keychain.get(ProviderName::Groq).unwrap().is_none(), "absence is Ok(None)");
    keychain.set(ProviderName::Groq, &key).unwrap();
    assert_eq!(keychain.get(ProviderName::Groq).unwrap().as_ref(), Some(&key));
    assert_eq!(keychain.status(ProviderName::Groq).unwrap(), KeyStatus::Present);
    // Stored under service "cartograph-ask", account the provider name.
    let raw = Entry::new_in_store(&store, "cartograph-ask", "groq").unwrap();
    assert_eq!(raw.get_password().unwrap(), key.expose());
    // Another provider's account is separate.
    assert_eq!(keychain.status(ProviderName::OpenAi).unwrap(), KeyStatus::Absent);
    assert!(keychain.delete(ProviderName::Groq).unwrap());
    assert!(!keychain.delete(ProviderName::Groq).unwrap(), "deleting nothing is not an error");
    assert_eq!(keychain.status(ProviderName::Groq).unwrap(), KeyStatus::Absent);
}

#[test]
fn missing_unavailable_denied_and_backend_are_distinct() {
    let store = mock_store();
    let keychain = Keychain::with_store(store.clone());
    assert_eq!(keychain.get(ProviderName::Groq), Ok(None));
    keychain.set(ProviderName::Groq, &fixture_key()).unwrap();

    fail_next(&store, ProviderName::Groq, Error::NoStorageAccess("locked".into()));
    assert_eq!(keychain.get(ProviderName::Groq), Err(KeychainError::PermissionDenied));

    fail_next(&store, ProviderName::Groq, Error::PlatformFailure("dbus said no".into()));
    assert_eq!(keychain.get(ProviderName::Groq), Err(KeychainError::Backend));

    // The stored bytes of a bad encoding are never shown.
    fail_next(&store, ProviderName::Groq, Error::BadEncoding(b"leaked-bytes".to_vec()));
    let error = keychain.get(ProviderName::Groq).unwrap_err();
    assert_eq!(error, KeychainError::Backend);
    assert!(!format!("{error} {error:?}").contains("leaked"));

    fail_next(&store, ProviderName::Groq, Error::NoDefaultStore);
    assert_eq!(keychain.get(ProviderName::Groq), Err(KeychainError::Unavailable));

    // After the one-shot errors, the key is still there.
    assert!(keychain.get(ProviderName::Groq).unwrap().is_some());
}

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn key_sources_in_order() {
    let store = mock_store();
    let keychain = Keychain::with_store(store.clone());
    let stored = fixture_key();
    keychain.set(ProviderName::Groq, &stored).unwrap();
    let from_keychain = || -> Result<Keychain, KeychainError> { Ok(keychain.clone()) };
    let piped = fixture_key_text();
    let env_value = fixture_key_text();
    let env = |name: &str| (name == "CI_SECRET").then(|| env_value.clone());

    // --api-key-stdin: the trimmed standard input.
    let mut stdin = format!("{piped}\n");
    match resolve_key(
        &KeySource::Stdin,
        ProviderName::Groq,
        &mut stdin.as_bytes(),
        &env,
        &from_keychain,
    ) {
        KeyOutcome::Found { key, source } => {
            assert_eq!(key.expose(), piped);
            assert_eq!(source, "standard input");
        }
        KeyOutcome::Missing { note } => panic!("{note}"),
    }
    stdin.clear();

    // --api-key-env NAME.
    match resolve_key(
        &KeySource::Env("CI_SECRET".into()),
        ProviderName::Groq,
        &mut "".as_bytes(),
        &env,
        &from_keychain,
    ) {
        KeyOutcome::Found { key, source } => {
            assert_eq!(key.expose(), env_value);
            assert_eq!(source, "environment");
        }
        KeyOutcome::Missing { note } => panic!("{note}"),
    }

    // Neither: the keychain.
    match resolve_key(
        &KeySource::Keychain,
        ProviderName::Groq,
        &mut "".as_bytes(),
        &env,
        &from_keychain,
    ) {
        KeyOutcome::Found { key, source } => {
            assert_eq!(&key, &stored);
            assert_eq!(source, "keychain");
        }
        KeyOutcome::Missing { note } => panic!("{note}"),
    }
}

#[test]
fn an_explicit_source_that_is_empty_degrades_without_touching_the_keychain() {
    let untouchable =
        || -> Result<Keychain, KeychainError> { panic!("the keychain is not consulted") };
    match resolve_key(
        &KeySource::Env("UNSET_SECRET".into()),
        ProviderName::Groq,
        &mut "".as_bytes(),
        &no_env,
        &untouchable,
    ) {
        KeyOutcome::Missing { note } => {
            assert!(note.contains("UNSET_SECRET") && note.contains("enable ASK"), "{note}");
        }
        KeyOutcome::Found { .. } => panic!("no key"),
    }
    match resolve_key(
        &KeySource::Stdin,
        ProviderName::Groq,
        &mut " \n".as_bytes(),
        &no_env,
        &untouchable,
    ) {
        KeyOutcome::Missing { note } => assert!(note.starts_with("no API key")),
        KeyOutcome::Found { .. } => panic!("no key"),
    }
}

#[test]
fn credential_missing_store_unavailable_and_denied_each_say_how_to_enable_ask() {
    let store = mock_store();
    let keychain = Keychain::with_store(store.clone());
    let missing = || -> Result<Keychain, KeychainError> { Ok(keychain.clone()) };
    let unavailable = || -> Result<Keychain, KeychainError> { Err(KeychainError::Unavailable) };
    type Opener<'a> = &'a dyn Fn() -> Result<Keychain, KeychainError>;
    let cases: [(&str, Opener); 2] = [("missing", &missing), ("unavailable", &unavailable)];
    for (name, keychain) in cases {
        match resolve_key(
            &KeySource::Keychain,
            ProviderName::Groq,
            &mut "".as_bytes(),
            &no_env,
            keychain,
        ) {
            KeyOutcome::Missing { note } => {
                assert!(note.starts_with("no API key"), "{name}: {note}");
                assert!(note.contains("--api-key-env NAME"), "{name}: {note}");
                assert!(!note.contains('\n'), "one line");
            }
            KeyOutcome::Found { .. } => panic!("{name}: no key"),
        }
    }
    keychain.set(ProviderName::Groq, &fixture_key()).unwrap();
    fail_next(&store, ProviderName::Groq, Error::NoStorageAccess("locked".into()));
    match resolve_key(
        &KeySource::Keychain,
        ProviderName::Groq,
        &mut "".as_bytes(),
        &no_env,
        &missing,
    ) {
        KeyOutcome::Missing { note } => assert!(note.contains("denied"), "{note}"),
        KeyOutcome::Found { .. } => panic!("denied"),
    }
}

#[test]
fn the_key_never_appears_in_debug_or_errors() {
    let store = mock_store();
    let keychain = Keychain::with_store(store.clone());
    let key = fixture_key();
    keychain.set(ProviderName::Groq, &key).unwrap();
    let outcome = resolve_key(
        &KeySource::Keychain,
        ProviderName::Groq,
        &mut "".as_bytes(),
        &no_env,
        &|| -> Result<Keychain, KeychainError> { Ok(keychain.clone()) },
    );
    let shown = format!("{outcome:?} {keychain:?} {key:?} {:?}", keychain.get(ProviderName::Groq));
    assert!(!shown.contains(key.expose()), "{shown}");
    for error in
        [KeychainError::Unavailable, KeychainError::PermissionDenied, KeychainError::Backend]
    {
        let text = format!("{error} {error:?}");
        assert!(!text.contains(key.expose()));
    }
    assert!(Secret::new("").is_none());
}
