//! Which OpenAI-compatible endpoint is asked: the provider name, the base URL (checked: `https`,
//! or plain `http` for a loopback host only, never a query, a fragment or credentials), and the
//! model.
//!
//! The provider's host and model are the only facts about the endpoint that reach the report
//! (`explanations.provider`). The full URL is never printed or logged.

use std::fmt;

/// The default provider's base URL (decision 0001 rule 8).
pub const GROQ_BASE_URL: &str = "https://api.groq.com/openai/v1";
/// The default model (decision 0001 rule 8).
pub const GROQ_MODEL: &str = "openai/gpt-oss-120b";
/// OpenAI's base URL.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used with `--provider openai` when `--model` is not given: a current, inexpensive
/// model that supports strict structured outputs.
pub const OPENAI_MODEL: &str = "gpt-4.1-mini";

/// A named provider. The name is also the keychain account the key is stored under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProviderName {
    Groq,
    OpenAi,
    /// Any other OpenAI-compatible server; `--base-url` and `--model` are required.
    Custom,
}

impl ProviderName {
    pub const ALL: [ProviderName; 3] =
        [ProviderName::Groq, ProviderName::OpenAi, ProviderName::Custom];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderName::Groq => "groq",
            ProviderName::OpenAi => "openai",
            ProviderName::Custom => "custom",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderName::Groq => Some(GROQ_BASE_URL),
            ProviderName::OpenAi => Some(OPENAI_BASE_URL),
            ProviderName::Custom => None,
        }
    }

    fn default_model(self) -> Option<&'static str> {
        match self {
            ProviderName::Groq => Some(GROQ_MODEL),
            ProviderName::OpenAi => Some(OPENAI_MODEL),
            ProviderName::Custom => None,
        }
    }
}

/// Why an endpoint cannot be used. Fixed sentences: the URL itself is never quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("--provider custom needs --base-url")]
    MissingBaseUrl,
    #[error("--provider custom needs --model")]
    MissingModel,
    #[error("the base URL is not a valid http(s) URL")]
    Malformed,
    #[error(
        "the base URL must use https; plain http is allowed only for 127.0.0.1, [::1] or localhost"
    )]
    Insecure,
    #[error("the base URL must not carry credentials, a query or a fragment")]
    NotPlain,
    #[error("the model name must be non-empty printable text")]
    BadModel,
    #[error(
        "CARTOGRAPH_ASK_LOOPBACK_ONLY is set: only a provider on 127.0.0.1, [::1] or localhost may be asked (give --provider custom --base-url http://127.0.0.1:PORT/v1)"
    )]
    NotLoopback,
}

/// The environment switch that confines `cartograph-ask` to this machine: with it set (to anything
/// but empty or `0`), an endpoint off loopback is refused before anything is built, and the OS
/// keychain is never opened (see [`crate::keychain::Keychain::platform_unless_confined`]). Every
/// test of the binary sets it, so no test can reach a real provider or a real keychain; a user who
/// runs a local model may set it too.
pub const LOOPBACK_ONLY_ENV: &str = "CARTOGRAPH_ASK_LOOPBACK_ONLY";

/// Whether [`LOOPBACK_ONLY_ENV`] is set, read through `env` (injected for tests).
pub fn loopback_only(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env(LOOPBACK_ONLY_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// A checked endpoint.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    provider: ProviderName,
    base_url: String,
    host: String,
    loopback_http: bool,
    model: String,
}

impl fmt::Debug for Endpoint {
    /// Prints the provider, host and model; not the URL.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("host", &self.host)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// Resolves the endpoint from the provider name and the optional overrides.
    pub fn resolve(
        provider: ProviderName,
        base_url: Option<&str>,
        model: Option<&str>,
    ) -> Result<Self, EndpointError> {
        let base_url = match base_url {
            Some(url) => url,
            None => provider.default_base_url().ok_or(EndpointError::MissingBaseUrl)?,
        };
        let model = match model {
            Some(model) => model,
            None => provider.default_model().ok_or(EndpointError::MissingModel)?,
        };
        if model.trim().is_empty() || model.chars().any(char::is_control) {
            return Err(EndpointError::BadModel);
        }
        let (host, loopback_http) = check_base_url(base_url)?;
        Ok(Self {
            provider,
            base_url: base_url.trim_end_matches('/').to_owned(),
            host,
            loopback_http,
            model: model.to_owned(),
        })
    }

    pub fn provider(&self) -> ProviderName {
        self.provider
    }

    /// The host (with its port when one is given), as shown in the report.
    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether this is a plain-http loopback endpoint (a local server).
    pub fn is_loopback_http(&self) -> bool {
        self.loopback_http
    }

    /// This endpoint, or [`EndpointError::NotLoopback`] when `confined` and its host is not
    /// loopback (https to `localhost` counts as loopback; any other host does not).
    pub fn confined_to_loopback(self, confined: bool) -> Result<Self, EndpointError> {
        if confined && !is_loopback_host(&self.host) {
            return Err(EndpointError::NotLoopback);
        }
        Ok(self)
    }

    /// `{base}/chat/completions`.
    pub fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url)
    }
}

/// Checks the URL's shape and returns its host and whether it is plain http on loopback.
fn check_base_url(url: &str) -> Result<(String, bool), EndpointError> {
    let (scheme, rest) = url.split_once("://").ok_or(EndpointError::Malformed)?;
    let https = match scheme.to_ascii_lowercase().as_str() {
        "https" => true,
        "http" => false,
        _ => return Err(EndpointError::Malformed),
    };
    if rest.contains(['?', '#']) {
        return Err(EndpointError::NotPlain);
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        return Err(EndpointError::NotPlain);
    }
    if authority.is_empty()
        || authority.chars().any(|c| c.is_whitespace() || c.is_control())
        || url.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(EndpointError::Malformed);
    }
    host_without_port(authority).ok_or(EndpointError::Malformed)?;
    let loopback = is_loopback_host(authority);
    if !https && !loopback {
        return Err(EndpointError::Insecure);
    }
    Ok((authority.to_ascii_lowercase(), !https))
}

/// Whether `host[:port]` names this machine: 127.0.0.1, [::1] or localhost; `false` when the port
/// is not a number.
fn is_loopback_host(authority: &str) -> bool {
    host_without_port(authority).is_some_and(|host| {
        matches!(host.to_ascii_lowercase().as_str(), "127.0.0.1" | "[::1]" | "localhost")
    })
}

/// `host[:port]` or `[v6][:port]` → the host part; `None` when the port is not a number.
fn host_without_port(authority: &str) -> Option<&str> {
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let after = &authority[end + 1..];
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        return Some(&authority[..=end]);
    }
    match authority.split_once(':') {
        Some((host, port)) if is_port(port) && !host.is_empty() => Some(host),
        Some(_) => None,
        None => Some(authority),
    }
}

fn is_port(port: &str) -> bool {
    !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_groq_and_gpt_oss() {
        let e = Endpoint::resolve(ProviderName::Groq, None, None).unwrap();
        assert_eq!(e.chat_completions_url(), "https://api.groq.com/openai/v1/chat/completions");
        assert_eq!(e.host(), "api.groq.com");
        assert_eq!(e.model(), "openai/gpt-oss-120b");
        assert!(!e.is_loopback_http());
        let o = Endpoint::resolve(ProviderName::OpenAi, None, Some("gpt-4.1")).unwrap();
        assert_eq!(o.chat_completions_url(), "https://api.openai.com/v1/chat/completions");
        assert_eq!(o.model(), "gpt-4.1");
    }

    #[test]
    fn plain_http_only_on_loopback() {
        for ok in ["http://127.0.0.1:8080/v1", "http://localhost:11434/v1/", "http://[::1]:8000/v1"]
        {
            let e = Endpoint::resolve(ProviderName::Custom, Some(ok), Some("m")).unwrap();
            assert!(e.is_loopback_http(), "{ok}");
            assert!(e.chat_completions_url().ends_with("/v1/chat/completions"));
        }
        for bad in
            ["http://example.com/v1", "http://10.0.0.1/v1", "http://127.0.0.1.example.com/v1"]
        {
            assert_eq!(
                Endpoint::resolve(ProviderName::Custom, Some(bad), Some("m")),
                Err(EndpointError::Insecure),
                "{bad}"
            );
        }
    }

    #[test]
    fn urls_with_credentials_queries_or_odd_schemes_are_refused() {
        let check = |url: &str| Endpoint::resolve(ProviderName::Custom, Some(url), Some("m"));
        assert_eq!(check("https://user:pw@example.com/v1"), Err(EndpointError::NotPlain));
        assert_eq!(check("https://example.com/v1?key=x"), Err(EndpointError::NotPlain));
        assert_eq!(check("https://example.com/v1#x"), Err(EndpointError::NotPlain));
        assert_eq!(check("ftp://example.com"), Err(EndpointError::Malformed));
        assert_eq!(check("example.com"), Err(EndpointError::Malformed));
        assert_eq!(check("https://example.com:port/v1"), Err(EndpointError::Malformed));
        assert_eq!(check("https:///v1"), Err(EndpointError::Malformed));
        // The error text never quotes the URL.
        let text = check("https://user:pw@example.com/v1").unwrap_err().to_string();
        assert!(!text.contains("pw") && !text.contains("example.com"));
    }

    #[test]
    fn custom_needs_url_and_model() {
        assert_eq!(
            Endpoint::resolve(ProviderName::Custom, None, Some("m")),
            Err(EndpointError::MissingBaseUrl)
        );
        assert_eq!(
            Endpoint::resolve(ProviderName::Custom, Some("https://h/v1"), None),
            Err(EndpointError::MissingModel)
        );
        assert_eq!(
            Endpoint::resolve(ProviderName::Groq, None, Some(" ")),
            Err(EndpointError::BadModel)
        );
    }

    #[test]
    fn provider_names_round_trip() {
        for p in ProviderName::ALL {
            assert_eq!(ProviderName::parse(p.as_str()), Some(p));
        }
        assert_eq!(ProviderName::parse("anthropic"), None);
    }
}
