//! `cartograph-ask key set|delete|status`: the key in the OS keychain, managed without ever
//! printing it. `set` reads the key without echo at a terminal (rpassword) or, when standard input
//! is not a terminal, the whole of standard input; `status` says present, absent or unavailable.
//!
//! The keychain and the key input are passed in, so tests run every command against
//! keyring-core's mock store.

use std::io::{IsTerminal, Read, Write};

use cartograph_core::Secret;

use crate::endpoint::ProviderName;
use crate::keychain::{KeyStatus, Keychain, KeychainError, SERVICE};

/// The longest key read, in bytes.
const MAX_KEY_BYTES: u64 = 16 * 1024;

/// Which `key` subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCommand {
    Set,
    Delete,
    Status,
}

/// Where `key set` reads the key from.
pub trait KeyInput {
    fn read_key(&mut self, provider: ProviderName) -> std::io::Result<String>;
}

/// The terminal without echo when standard input is one, else standard input.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalOrStdin;

impl KeyInput for TerminalOrStdin {
    fn read_key(&mut self, provider: ProviderName) -> std::io::Result<String> {
        if std::io::stdin().is_terminal() {
            rpassword::prompt_password(format!(
                "API key for {} (input is hidden): ",
                provider.as_str()
            ))
        } else {
            let mut text = String::new();
            std::io::stdin().take(MAX_KEY_BYTES).read_to_string(&mut text)?;
            Ok(text)
        }
    }
}

/// A reader's whole content as the key (tests, and `key set < file`).
#[derive(Debug)]
pub struct ReaderInput<R>(pub R);

impl<R: Read> KeyInput for ReaderInput<R> {
    fn read_key(&mut self, _: ProviderName) -> std::io::Result<String> {
        let mut text = String::new();
        (&mut self.0).take(MAX_KEY_BYTES).read_to_string(&mut text)?;
        Ok(text)
    }
}

/// Why a `key` command failed. Fixed sentences; never the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyCommandError {
    #[error("{0}")]
    Keychain(KeychainError),
    #[error("no key was given; nothing was stored")]
    NoKey,
    #[error("the key could not be read ({0})")]
    Input(std::io::ErrorKind),
    #[error("the result could not be written to standard output")]
    Output,
}

/// Runs one `key` command, writing one line to `out`.
pub fn run_key_command(
    command: KeyCommand,
    provider: ProviderName,
    keychain: Result<Keychain, KeychainError>,
    input: &mut dyn KeyInput,
    out: &mut dyn Write,
) -> Result<(), KeyCommandError> {
    let name = provider.as_str();
    let line = match command {
        KeyCommand::Status => match keychain.and_then(|k| k.status(provider)) {
            Ok(KeyStatus::Present) => format!("{name}: present (OS keychain, service {SERVICE})"),
            Ok(KeyStatus::Absent) => format!("{name}: absent"),
            // Informational: an unreachable keychain is an answer to "is a key stored here?".
            Err(error) => format!("{name}: unavailable: {error}"),
        },
        KeyCommand::Delete => {
            let keychain = keychain.map_err(KeyCommandError::Keychain)?;
            if keychain.delete(provider).map_err(KeyCommandError::Keychain)? {
                format!("Deleted the API key for {name} from the OS keychain.")
            } else {
                format!("No API key for {name} was stored.")
            }
        }
        KeyCommand::Set => {
            // The keychain first: do not ask for a key that cannot be stored.
            let keychain = keychain.map_err(KeyCommandError::Keychain)?;
            let text = input.read_key(provider).map_err(|e| KeyCommandError::Input(e.kind()))?;
            let key = Secret::new(text).ok_or(KeyCommandError::NoKey)?;
            keychain.set(provider, &key).map_err(KeyCommandError::Keychain)?;
            format!("Stored the API key for {name} in the OS keychain (service {SERVICE}).")
        }
    };
    writeln!(out, "{line}").map_err(|_| KeyCommandError::Output)
}
