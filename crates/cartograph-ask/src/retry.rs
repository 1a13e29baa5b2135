//! When a failed request is tried again: only for HTTP 429 and 5xx, at most
//! [`RetryPolicy::max_attempts`] in all. The wait is the server's `retry-after-ms`, else its
//! `retry-after` (seconds), capped at [`RetryPolicy::max_delay`]; without either, an exponential
//! backoff with jitter. Sleeping goes through [`Sleep`] so tests wait for nothing.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use crate::transport::HttpResponse;

/// How many attempts and how long between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// The first backoff when the server names no wait; doubled per attempt.
    pub base_delay: Duration,
    /// The longest wait, whatever the server asks.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

/// Whether a status is worth another attempt.
pub fn is_retryable(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

impl RetryPolicy {
    /// The wait before attempt `attempt + 1`, after `response` failed attempt `attempt` (1-based).
    /// `jitter` is a random number; only its low bits are used.
    pub fn delay(&self, attempt: u32, response: &HttpResponse, jitter: u64) -> Duration {
        if let Some(asked) = server_delay(response) {
            return asked.min(self.max_delay);
        }
        let exponent = attempt.saturating_sub(1).min(16);
        let backoff = self.base_delay.saturating_mul(1u32 << exponent);
        // Up to half the backoff again, so concurrent workers do not retry in step.
        let spread = backoff.as_millis().max(1) as u64 / 2 + 1;
        let extra = Duration::from_millis(jitter % spread);
        (backoff + extra).min(self.max_delay)
    }
}

/// The wait the server asked for: `retry-after-ms` (milliseconds, possibly fractional), then
/// `retry-after` in seconds. An HTTP-date `retry-after` is not read (backoff applies).
pub fn server_delay(response: &HttpResponse) -> Option<Duration> {
    if let Some(ms) = response.retry_after_ms.as_deref().and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms.min(86_400_000.0) / 1000.0));
    }
    if let Some(secs) = response.retry_after.as_deref().and_then(|v| v.trim().parse::<f64>().ok())
        && secs.is_finite()
        && secs >= 0.0
    {
        return Some(Duration::from_secs_f64(secs.min(86_400.0)));
    }
    None
}

/// A fresh random number for jitter, from the standard library's per-process random keys.
pub fn jitter() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0x5eed);
    hasher.finish()
}

/// Waiting between attempts.
pub trait Sleep: Send + Sync {
    fn sleep(&self, duration: Duration);
}

/// Sleeps the thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadSleep;

impl Sleep for ThreadSleep {
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(ms: Option<&str>, secs: Option<&str>) -> HttpResponse {
        HttpResponse {
            status: 429,
            retry_after_ms: ms.map(str::to_owned),
            retry_after: secs.map(str::to_owned),
            body: String::new(),
        }
    }

    #[test]
    fn retry_after_ms_wins_then_retry_after_then_backoff() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.delay(1, &response(Some("250.5"), Some("9")), 0),
            Duration::from_micros(250_500)
        );
        assert_eq!(policy.delay(1, &response(None, Some("2")), 0), Duration::from_secs(2));
        // A date is not read: backoff.
        let date = response(None, Some("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(policy.delay(1, &date, 0), Duration::from_millis(500));
        assert_eq!(policy.delay(3, &response(None, None), 0), Duration::from_secs(2));
    }

    #[test]
    fn waits_are_capped() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(1, &response(None, Some("3600")), 0), policy.max_delay);
        assert_eq!(policy.delay(1, &response(Some("1e12"), None), 0), policy.max_delay);
        assert_eq!(policy.delay(30, &response(None, None), u64::MAX), policy.max_delay);
    }

    #[test]
    fn jitter_adds_at_most_half_the_backoff() {
        let policy = RetryPolicy::default();
        for j in [0, 1, 249, 250, 251, 12345, u64::MAX] {
            let d = policy.delay(1, &response(None, None), j);
            assert!(d >= Duration::from_millis(500) && d <= Duration::from_millis(750), "{d:?}");
        }
    }

    #[test]
    fn only_429_and_5xx_are_retried() {
        for s in [429, 500, 502, 503, 504, 599] {
            assert!(is_retryable(s), "{s}");
        }
        for s in [200, 301, 400, 401, 403, 404, 413, 422, 600] {
            assert!(!is_retryable(s), "{s}");
        }
    }
}
