//! Where the API key comes from, in this order: `--api-key-stdin`, `--api-key-env NAME`, the OS
//! keychain. Never argv, never a configuration file.
//!
//! The two explicit sources are exclusive: when one is named, it is the only one consulted (so a
//! CI job that names a secret never falls back to a keychain, and a fork pull request whose secret
//! is empty degrades instead of failing). Without either, the keychain entry of the provider is
//! read. No key is not an error: it is degraded mode, described by one [`KeyOutcome::Missing`]
//! line that says how to enable ASK.

use std::io::Read;

use cartograph_core::Secret;

use crate::endpoint::ProviderName;
use crate::keychain::{Keychain, KeychainError};

/// The longest key read from standard input, in bytes.
const MAX_STDIN_KEY: u64 = 16 * 1024;

/// Which source the user named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Stdin,
    /// The name of an environment variable (the name, never its value, may be shown).
    Env(String),
    Keychain,
}

/// The key, or the one line that explains its absence.
#[derive(Debug)]
pub enum KeyOutcome {
    Found { key: Secret, source: &'static str },
    Missing { note: String },
}

/// Resolves the key. `stdin`, `env` and `keychain` are injected so tests use a buffer, a map and
/// keyring-core's mock store.
pub fn resolve_key(
    source: &KeySource,
    provider: ProviderName,
    stdin: &mut dyn Read,
    env: &dyn Fn(&str) -> Option<String>,
    keychain: &dyn Fn() -> Result<Keychain, KeychainError>,
) -> KeyOutcome {
    match source {
        KeySource::Stdin => {
            let mut text = String::new();
            let read = stdin.take(MAX_STDIN_KEY).read_to_string(&mut text);
            match read.ok().and_then(|_| Secret::new(text)) {
                Some(key) => KeyOutcome::Found { key, source: "standard input" },
                None => KeyOutcome::Missing {
                    note: "no API key: --api-key-stdin was given but standard input held no key; \
                           ASK explanations are unavailable"
                        .to_owned(),
                },
            }
        }
        KeySource::Env(name) => match env(name).and_then(Secret::new) {
            Some(key) => KeyOutcome::Found { key, source: "environment" },
            None => KeyOutcome::Missing {
                note: format!(
                    "no API key: the environment variable {} named by --api-key-env is unset or \
                     empty; set it (for example from a CI secret) to enable ASK",
                    printable_name(name)
                ),
            },
        },
        KeySource::Keychain => {
            let enable = format!(
                "run `cartograph-ask key set --provider {}` or pass --api-key-env NAME to enable ASK",
                provider.as_str()
            );
            match keychain().and_then(|k| k.get(provider)) {
                Ok(Some(key)) => KeyOutcome::Found { key, source: "keychain" },
                Ok(None) => KeyOutcome::Missing {
                    note: format!(
                        "no API key in the OS keychain for {}: {enable}",
                        provider.as_str()
                    ),
                },
                Err(KeychainError::Unavailable) => KeyOutcome::Missing {
                    note:
                        "no API key: the OS keychain is unavailable here; pass --api-key-env NAME \
                           or --api-key-stdin to enable ASK"
                            .to_owned(),
                },
                Err(KeychainError::PermissionDenied) => KeyOutcome::Missing {
                    note: format!(
                        "no API key: the OS keychain denied access (is it locked?); {enable}"
                    ),
                },
                Err(KeychainError::Confined) => KeyOutcome::Missing {
                    note: "no API key: the OS keychain is not used while \
                           CARTOGRAPH_ASK_LOOPBACK_ONLY is set; pass --api-key-env NAME or \
                           --api-key-stdin to enable ASK"
                        .to_owned(),
                },
                Err(KeychainError::Backend) => KeyOutcome::Missing {
                    note: format!("no API key: the OS keychain could not be read; {enable}"),
                },
            }
        }
    }
}

/// An environment variable's name as shown: the name itself when it is a plain identifier,
/// otherwise a placeholder (the name is user input and could be anything).
fn printable_name(name: &str) -> &str {
    let plain = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if plain { name } else { "(given)" }
}
