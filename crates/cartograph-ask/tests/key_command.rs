//! `key set|delete|status` against keyring-core's mock store: the key is stored under service
//! `cartograph-ask` and the provider's account, read from input (never argv), and never printed;
//! an unreachable keychain is a status line for `status` and an error for `set` and `delete`.

use crate::common;

use std::sync::Arc;

use cartograph_ask::endpoint::ProviderName;
use cartograph_ask::keychain::{Keychain, KeychainError};
use cartograph_ask::keycmd::{KeyCommand, KeyCommandError, ReaderInput, run_key_command};
use common::*;
use keyring_core::{CredentialStore, Entry, mock};

fn run(
    command: KeyCommand,
    provider: ProviderName,
    keychain: Result<Keychain, KeychainError>,
    input: &str,
) -> (Result<(), KeyCommandError>, String) {
    let mut out = Vec::new();
    let result =
        run_key_command(command, provider, keychain, &mut ReaderInput(input.as_bytes()), &mut out);
    (result, String::from_utf8(out).unwrap())
}

#[test]
fn set_status_delete_never_print_the_key() {
    let store: Arc<CredentialStore> = mock::Store::new().unwrap();
    let keychain = Keychain::with_store(store.clone());
    let key = fixture_key_text();

    let (result, out) = run(KeyCommand::Status, ProviderName::OpenAi, Ok(keychain.clone()), "");
    result.unwrap();
    assert_eq!(out, "openai: absent\n");

    let (result, out) =
        run(KeyCommand::Set, ProviderName::OpenAi, Ok(keychain.clone()), &format!("{key}\n"));
    result.unwrap();
    assert!(out.starts_with("Stored the API key for openai"), "{out}");
    assert!(!out.contains(&key));
    let raw = Entry::new_in_store(&store, "cartograph-ask", "openai").unwrap();
    assert_eq!(raw.get_password().unwrap(), key, "stored trimmed, under the provider's account");

    let (result, out) = run(KeyCommand::Status, ProviderName::OpenAi, Ok(keychain.clone()), "");
    result.unwrap();
    assert!(out.starts_with("openai: present"), "{out}");
    assert!(!out.contains(&key));
    let (_, out) = run(KeyCommand::Status, ProviderName::Groq, Ok(keychain.clone()), "");
    assert_eq!(out, "groq: absent\n");

    let (result, out) = run(KeyCommand::Delete, ProviderName::OpenAi, Ok(keychain.clone()), "");
    result.unwrap();
    assert!(out.starts_with("Deleted"), "{out}");
    let (result, out) = run(KeyCommand::Delete, ProviderName::OpenAi, Ok(keychain), "");
    result.unwrap();
    assert!(out.starts_with("No API key for openai"), "{out}");
}

#[test]
fn an_empty_key_is_not_stored() {
    let store: Arc<CredentialStore> = mock::Store::new().unwrap();
    let keychain = Keychain::with_store(store);
    let (result, out) = run(KeyCommand::Set, ProviderName::Groq, Ok(keychain.clone()), " \n");
    assert_eq!(result, Err(KeyCommandError::NoKey));
    assert!(out.is_empty());
    assert_eq!(keychain.get(ProviderName::Groq), Ok(None));
}

#[test]
fn an_unreachable_keychain() {
    let (result, out) =
        run(KeyCommand::Status, ProviderName::Groq, Err(KeychainError::Unavailable), "");
    result.unwrap();
    assert!(out.starts_with("groq: unavailable: the OS keychain is unavailable"), "{out}");
    let key = fixture_key_text();
    let (result, out) =
        run(KeyCommand::Set, ProviderName::Groq, Err(KeychainError::Unavailable), &key);
    assert_eq!(result, Err(KeyCommandError::Keychain(KeychainError::Unavailable)));
    assert!(out.is_empty());
    let (result, _) =
        run(KeyCommand::Delete, ProviderName::Groq, Err(KeychainError::PermissionDenied), "");
    assert_eq!(result, Err(KeyCommandError::Keychain(KeychainError::PermissionDenied)));
    for error in [
        KeyCommandError::Keychain(KeychainError::Backend),
        KeyCommandError::NoKey,
        KeyCommandError::Input(std::io::ErrorKind::InvalidData),
        KeyCommandError::Output,
    ] {
        assert!(!format!("{error} {error:?}").contains(&key));
    }
}
