//! The provider: one OpenAI-compatible chat-completions endpoint, asked about one bundle at a time
//! (decision 0001 rule 4). [`Provider::explain`] takes the bundle, the question and the
//! credential — borrowed for the call, never stored — and returns a validated [`Answer`] or a
//! [`ProviderError`].
//!
//! [`ProviderError`] carries an HTTP status, a provider error type from a fixed vocabulary, and
//! fixed sentences. It has no field that could hold a body, a header, a URL or a key.

use std::time::Duration;

use cartograph_core::Secret;

use crate::answer::{Answer, AnswerError};
use crate::bundle::EvidenceBundle;
use crate::endpoint::Endpoint;
use crate::retry::{self, RetryPolicy, Sleep, ThreadSleep};
use crate::transport::{Header, HeaderValue, HttpResponse, Transport, TransportError};
use crate::wire::{self, ChatRequest, ChatResponse, EnvelopeError, Question};

/// Explains one bundle.
pub trait Provider: Send + Sync {
    fn explain(
        &self,
        bundle: &EvidenceBundle,
        question: &Question,
        credential: &Secret,
    ) -> Result<Answer, ProviderError>;
}

/// Why there is no answer. `Display` is a fixed sentence naming at most a status code, a
/// provider error type from a fixed list, and an attempt count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("{0}")]
    Transport(TransportError),
    #[error("the provider rejected the API key (HTTP {status})")]
    Unauthorized { status: u16 },
    #[error("the provider refused access to this model (HTTP {status}, {error_type})")]
    Forbidden { status: u16, error_type: &'static str },
    #[error("the provider has no such endpoint or model (HTTP 404)")]
    NotFound,
    #[error("the request was too large for the provider (HTTP 413)")]
    TooLarge,
    #[error("the provider rejected the request (HTTP {status}, {error_type})")]
    Rejected { status: u16, error_type: &'static str },
    #[error("the provider's rate limit was still exceeded after {attempts} attempt(s) (HTTP 429)")]
    RateLimited { attempts: u32 },
    #[error("the provider failed (HTTP {status}) after {attempts} attempt(s)")]
    ServerError { status: u16, attempts: u32 },
    #[error("the provider answered with a redirect (HTTP {status}), which is not followed")]
    Redirect { status: u16 },
    #[error("the provider answered with unexpected HTTP status {status}")]
    UnexpectedStatus { status: u16 },
    #[error("{0}")]
    Envelope(EnvelopeError),
    #[error("{0}")]
    Answer(AnswerError),
}

impl ProviderError {
    /// Whether the provider answered but the answer broke the contract (the entry is `refused`),
    /// as opposed to no answer at all (`unavailable`).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ProviderError::Answer(_) | ProviderError::Envelope(EnvelopeError::Unfinished(_))
        )
    }
}

/// An OpenAI-compatible chat-completions provider over a [`Transport`].
pub struct ChatProvider<T: Transport> {
    endpoint: Endpoint,
    transport: T,
    retry: RetryPolicy,
    sleep: Box<dyn Sleep>,
}

impl<T: Transport> std::fmt::Debug for ChatProvider<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatProvider")
            .field("endpoint", &self.endpoint)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl<T: Transport> ChatProvider<T> {
    pub fn new(endpoint: Endpoint, transport: T) -> Self {
        Self { endpoint, transport, retry: RetryPolicy::default(), sleep: Box::new(ThreadSleep) }
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    pub fn with_sleep(mut self, sleep: impl Sleep + 'static) -> Self {
        self.sleep = Box::new(sleep);
        self
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Sends the request, retrying 429 and 5xx as [`RetryPolicy`] says, and returns the last
    /// response.
    fn send(
        &self,
        request: &ChatRequest,
        credential: &Secret,
    ) -> Result<(HttpResponse, u32), ProviderError> {
        let url = self.endpoint.chat_completions_url();
        let headers = [
            Header { name: "Authorization", value: HeaderValue::Bearer(credential) },
            Header { name: "Accept", value: HeaderValue::Text("application/json") },
        ];
        let mut attempt = 1;
        loop {
            let response = self
                .transport
                .post_json(&url, &headers, request.body())
                .map_err(ProviderError::Transport)?;
            let retry = retry::is_retryable(response.status) && attempt < self.retry.max_attempts;
            if !retry {
                return Ok((response, attempt));
            }
            let wait: Duration = self.retry.delay(attempt, &response, retry::jitter());
            tracing::info!(
                status = response.status,
                attempt,
                wait_ms = wait.as_millis() as u64,
                "provider asked to retry"
            );
            self.sleep.sleep(wait);
            attempt += 1;
        }
    }
}

impl<T: Transport> Provider for ChatProvider<T> {
    fn explain(
        &self,
        bundle: &EvidenceBundle,
        question: &Question,
        credential: &Secret,
    ) -> Result<Answer, ProviderError> {
        let request = ChatRequest::build(&self.endpoint, bundle, question);
        let (response, attempts) = self.send(&request, credential)?;
        let status = response.status;
        match status {
            200..=299 => {}
            300..=399 => return Err(ProviderError::Redirect { status }),
            401 => return Err(ProviderError::Unauthorized { status }),
            403 => {
                return Err(ProviderError::Forbidden {
                    status,
                    error_type: wire::error_type(&response.body),
                });
            }
            404 => return Err(ProviderError::NotFound),
            413 => return Err(ProviderError::TooLarge),
            429 => return Err(ProviderError::RateLimited { attempts }),
            400..=499 => {
                return Err(ProviderError::Rejected {
                    status,
                    error_type: wire::error_type(&response.body),
                });
            }
            500..=599 => return Err(ProviderError::ServerError { status, attempts }),
            _ => return Err(ProviderError::UnexpectedStatus { status }),
        }
        let chat = ChatResponse::parse(&response.body).map_err(ProviderError::Envelope)?;
        Answer::validate(bundle, chat.content()).map_err(ProviderError::Answer)
    }
}
