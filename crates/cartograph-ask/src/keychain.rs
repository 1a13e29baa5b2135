//! The OS keychain, through keyring-core and one native store per platform (decision 0005): the
//! Secret Service over zbus on Linux, the macOS Keychain, the Windows Credential
//! Manager. An entry is service [`SERVICE`], account the provider name (`groq`, `openai`,
//! `custom`); its password is the key.
//!
//! Absence is `Ok(None)`, not an error. An unreachable store (no session bus on a headless Linux
//! machine or CI), a locked or denied store, and any other store failure are three distinct
//! [`KeychainError`]s, each a fixed sentence: the platform error is dropped unprinted (it could
//! quote the stored bytes — keyring-core's `BadEncoding` carries them).

use std::fmt;
use std::sync::Arc;

use cartograph_core::Secret;
use keyring_core::{CredentialStore, Entry, Error};

use crate::endpoint::ProviderName;

/// The keychain service every entry is stored under.
pub const SERVICE: &str = "cartograph-ask";

/// Why the keychain could not answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeychainError {
    #[error(
        "the OS keychain is unavailable on this machine (no Secret Service, Keychain or Credential Manager could be reached)"
    )]
    Unavailable,
    #[error("the OS keychain denied access (it may be locked)")]
    PermissionDenied,
    #[error("the OS keychain failed to read or write the entry")]
    Backend,
    #[error("the OS keychain is not used while CARTOGRAPH_ASK_LOOPBACK_ONLY is set")]
    Confined,
}

/// Whether a key is stored for a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStatus {
    Present,
    Absent,
}

/// A credential store and the entries of this tool in it.
#[derive(Clone)]
pub struct Keychain {
    store: Arc<CredentialStore>,
}

impl fmt::Debug for Keychain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Keychain { .. }")
    }
}

impl Keychain {
    /// The platform's native store. On a machine without one (a headless Linux box with no
    /// session bus, an unsupported platform) this is [`KeychainError::Unavailable`], never a
    /// panic.
    pub fn platform() -> Result<Self, KeychainError> {
        platform_store().map(|store| Self { store }).map_err(|_| KeychainError::Unavailable)
    }

    /// [`Keychain::platform`], or [`KeychainError::Confined`] without touching the OS when
    /// `confined` ([`crate::endpoint::LOOPBACK_ONLY_ENV`] is set).
    pub fn platform_unless_confined(confined: bool) -> Result<Self, KeychainError> {
        if confined {
            return Err(KeychainError::Confined);
        }
        Self::platform()
    }

    /// A given store: keyring-core's mock store in tests.
    pub fn with_store(store: Arc<CredentialStore>) -> Self {
        Self { store }
    }

    fn entry(&self, provider: ProviderName) -> Result<Entry, KeychainError> {
        Entry::new_in_store(&self.store, SERVICE, provider.as_str()).map_err(map_error)
    }

    /// The stored key, or `None` when there is none (or it is blank).
    pub fn get(&self, provider: ProviderName) -> Result<Option<Secret>, KeychainError> {
        match self.entry(provider)?.get_password() {
            Ok(password) => Ok(Secret::new(password)),
            Err(Error::NoEntry) => Ok(None),
            Err(error) => Err(map_error(error)),
        }
    }

    /// Stores (or replaces) the key.
    pub fn set(&self, provider: ProviderName, key: &Secret) -> Result<(), KeychainError> {
        self.entry(provider)?.set_password(key.expose()).map_err(map_error)
    }

    /// Deletes the key; `Ok(false)` when there was none.
    pub fn delete(&self, provider: ProviderName) -> Result<bool, KeychainError> {
        match self.entry(provider)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(Error::NoEntry) => Ok(false),
            Err(error) => Err(map_error(error)),
        }
    }

    /// Whether a key is stored, without returning it.
    pub fn status(&self, provider: ProviderName) -> Result<KeyStatus, KeychainError> {
        Ok(match self.get(provider)? {
            Some(_) => KeyStatus::Present,
            None => KeyStatus::Absent,
        })
    }
}

/// keyring-core's error as one of three fixed outcomes; its payload is dropped.
fn map_error(error: Error) -> KeychainError {
    match error {
        Error::NoStorageAccess(_) => KeychainError::PermissionDenied,
        Error::NoDefaultStore => KeychainError::Unavailable,
        _ => KeychainError::Backend,
    }
}

#[cfg(target_os = "linux")]
fn platform_store() -> keyring_core::Result<Arc<CredentialStore>> {
    // Connects to the session bus at once: without one (CI, a container) this fails here.
    let store: Arc<CredentialStore> = zbus_secret_service_keyring_store::Store::new()?;
    Ok(store)
}

#[cfg(target_os = "macos")]
fn platform_store() -> keyring_core::Result<Arc<CredentialStore>> {
    let store: Arc<CredentialStore> = apple_native_keyring_store::keychain::Store::new()?;
    Ok(store)
}

#[cfg(windows)]
fn platform_store() -> keyring_core::Result<Arc<CredentialStore>> {
    let store: Arc<CredentialStore> = windows_native_keyring_store::Store::new()?;
    Ok(store)
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn platform_store() -> keyring_core::Result<Arc<CredentialStore>> {
    Err(Error::NoDefaultStore)
}
