//! The transport seam: one blocking `POST` of a JSON body, and nothing else.
//!
//! [`Transport`] exists so that everything that carries the privacy and credential guarantees (the
//! request bytes, the headers, the retry policy, the validation) is testable without a network.
//! [`UreqTransport`] is the production implementation: ureq over rustls, `https_only` (a plain
//! `http://` URL is allowed only for a loopback host, checked by [`crate::endpoint`]), no
//! redirects, a global timeout, no proxy unless one is configured, and a cap on the bytes read
//! back.
//!
//! The credential crosses this seam as a borrowed [`Secret`] and is exposed only at the moment the
//! `Authorization` header is written. Neither [`HttpResponse`] nor [`TransportError`] can print a
//! body, a header or a URL: their `Debug` is written by hand, and the errors carry fixed sentences.

use std::fmt;
use std::time::Duration;

use cartograph_core::Secret;

/// The most bytes of a response body that are read; a larger body is an error.
pub const DEFAULT_BODY_LIMIT: u64 = 1 << 20;

/// One request header. The value of an `Authorization` header is a borrowed [`Secret`], written as
/// `Bearer <key>` by the transport itself.
#[derive(Clone, Copy)]
pub struct Header<'a> {
    pub name: &'static str,
    pub value: HeaderValue<'a>,
}

/// A header's value: plain text chosen by this crate, or a bearer credential.
#[derive(Clone, Copy)]
pub enum HeaderValue<'a> {
    Text(&'static str),
    Bearer(&'a Secret),
}

impl HeaderValue<'_> {
    /// The value as it goes on the wire. Call only where the header is written (or, in tests,
    /// where the written header is checked).
    pub fn to_wire(&self) -> String {
        match self {
            HeaderValue::Text(text) => (*text).to_owned(),
            HeaderValue::Bearer(secret) => format!("Bearer {}", secret.expose()),
        }
    }
}

impl fmt::Debug for Header<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            HeaderValue::Text(text) => write!(f, "{}: {text}", self.name),
            HeaderValue::Bearer(_) => write!(f, "{}: Bearer <redacted>", self.name),
        }
    }
}

/// What came back: the status, the two rate-limit headers the retry policy reads, and the body.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    /// `retry-after-ms`, as sent (milliseconds, possibly fractional).
    pub retry_after_ms: Option<String>,
    /// `retry-after`, as sent (seconds, or an HTTP date).
    pub retry_after: Option<String>,
    pub body: String,
}

impl fmt::Debug for HttpResponse {
    /// Prints the status and the body's length, never the body.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// Why no response came back. Fixed sentences only: no URL, no header, no body, no underlying
/// error text (which may quote any of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    #[error("the request timed out")]
    Timeout,
    #[error("the provider could not be reached (connection failed or host not found)")]
    ConnectionFailed,
    #[error("the TLS handshake with the provider failed")]
    Tls,
    #[error("the provider URL must use https (plain http is allowed only for a loopback host)")]
    InsecureUrl,
    #[error("the provider's answer was larger than the read limit")]
    BodyTooLarge,
    #[error("the configured proxy could not be used")]
    Proxy,
    #[error("the HTTP exchange with the provider failed")]
    Protocol,
}

/// One blocking `POST` of a JSON body. Implementations must not follow redirects and must not log
/// the URL, the headers or either body.
pub trait Transport: Send + Sync {
    fn post_json(
        &self,
        url: &str,
        headers: &[Header<'_>],
        body: &str,
    ) -> Result<HttpResponse, TransportError>;
}

impl<T: Transport + ?Sized> Transport for &T {
    fn post_json(
        &self,
        url: &str,
        headers: &[Header<'_>],
        body: &str,
    ) -> Result<HttpResponse, TransportError> {
        (**self).post_json(url, headers, body)
    }
}

/// How [`UreqTransport`] is set up.
#[derive(Clone, PartialEq, Eq)]
pub struct TransportConfig {
    /// The whole exchange, body read included.
    pub timeout: Duration,
    /// Allow `http://` (for a loopback base URL only; the caller checks the host).
    pub allow_plain_http: bool,
    /// A proxy URL, only when the user configured one. The environment is not consulted.
    pub proxy: Option<String>,
    pub body_limit: u64,
    pub user_agent: String,
}

impl fmt::Debug for TransportConfig {
    /// A proxy URL may carry credentials: only whether one is set is printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransportConfig")
            .field("timeout", &self.timeout)
            .field("allow_plain_http", &self.allow_plain_http)
            .field("proxy", &self.proxy.as_ref().map(|_| "<configured>"))
            .field("body_limit", &self.body_limit)
            .finish_non_exhaustive()
    }
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            allow_plain_http: false,
            proxy: None,
            body_limit: DEFAULT_BODY_LIMIT,
            user_agent: format!("cartograph-ask/{}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// The production transport: ureq, blocking, rustls with bundled roots.
pub struct UreqTransport {
    agent: ureq::Agent,
    body_limit: u64,
}

impl fmt::Debug for UreqTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UreqTransport")
            .field("body_limit", &self.body_limit)
            .finish_non_exhaustive()
    }
}

impl UreqTransport {
    /// Builds the agent. Fails only when a configured proxy URL does not parse.
    pub fn new(config: &TransportConfig) -> Result<Self, TransportError> {
        let proxy = match &config.proxy {
            Some(url) => Some(ureq::Proxy::new(url).map_err(|_| TransportError::Proxy)?),
            // Explicitly none: ureq would otherwise read the proxy from the environment.
            None => None,
        };
        let agent = ureq::Agent::config_builder()
            .https_only(!config.allow_plain_http)
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(config.timeout))
            .proxy(proxy)
            .user_agent(config.user_agent.as_str())
            .build()
            .new_agent();
        Ok(Self { agent, body_limit: config.body_limit })
    }
}

impl Transport for UreqTransport {
    fn post_json(
        &self,
        url: &str,
        headers: &[Header<'_>],
        body: &str,
    ) -> Result<HttpResponse, TransportError> {
        let mut request = self.agent.post(url).content_type("application/json");
        for header in headers {
            request = request.header(header.name, header.value.to_wire());
        }
        let mut response = request.send(body).map_err(classify)?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
        };
        let retry_after_ms = header("retry-after-ms");
        let retry_after = header("retry-after");
        let body = response
            .body_mut()
            .with_config()
            .limit(self.body_limit)
            .read_to_string()
            .map_err(classify)?;
        Ok(HttpResponse { status, retry_after_ms, retry_after, body })
    }
}

/// Maps a ureq error to a fixed sentence. The ureq error itself is dropped unprinted: its text can
/// quote a URL.
fn classify(error: ureq::Error) -> TransportError {
    match error {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => {
            TransportError::ConnectionFailed
        }
        ureq::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                TransportError::Timeout
            }
            std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::NotConnected
            | std::io::ErrorKind::AddrNotAvailable
            | std::io::ErrorKind::HostUnreachable
            | std::io::ErrorKind::NetworkUnreachable => TransportError::ConnectionFailed,
            _ => TransportError::Protocol,
        },
        ureq::Error::RequireHttpsOnly(_) => TransportError::InsecureUrl,
        ureq::Error::BodyExceedsLimit(_) => TransportError::BodyTooLarge,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::TlsRequired => {
            TransportError::Tls
        }
        ureq::Error::InvalidProxyUrl | ureq::Error::ConnectProxyFailed(_) => TransportError::Proxy,
        _ => TransportError::Protocol,
    }
}
