//! SWR: `useSWR(key, fetcher)` and `useSWRImmutable(key, fetcher)`, imported from `swr`, whose
//! key is the URL the fetcher requests: a `GET` of that URL.
//!
//! Only a key written as a URL (a string, a template or a concatenation starting with `/`, a
//! scheme or a base) with a fetcher given counts; a key that is `null` or a condition (`id ? url :
//! null`), a function, a plain cache key (`"INSTANCE_CONFIGURATIONS"`) or a key with a segment
//! gluing a name to a value (`/billing-${tier}`) is left out, since
//! whether and what it fetches is decided by the fetcher at run time.
//! `useSWRMutation(key, fetcher)` is left out too: its fetcher decides the method.
//!
//! Example: ``useSWR(`/api/teams/${teamId}/documents`, fetcher)`` → `GET
//! /api/teams/{teamId}/documents`.

use cartograph_core::HttpMethod;

use super::args::Args;
use super::url::CallUrl;

/// The hooks whose key is fetched with `GET`.
pub(super) const HOOKS: &[&str] = &["useSWR", "useSWRImmutable", "default"];

/// Reads `useSWR(key, fetcher)`.
pub(super) fn interpret(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let key = args.get(0)?;
    args.get(1)?;
    // A key that is not written as a URL is a cache key (`"INSTANCE_CONFIGURATIONS"`), whose
    // fetcher decides what is requested.
    let relative = matches!(&key.url, CallUrl::Path { stripped: Some(s), .. } if s.relative);
    if relative || matches!(key.url, CallUrl::Computed { .. } | CallUrl::Deferred { .. }) {
        return None;
    }
    // A segment that glues a name to a value (`/billing-${tier}`) is a cache key shaped like a
    // path, not a path a server routes: no route segment is `billing-` and a value.
    if key.parts.as_deref().is_some_and(super::url::mixed_segment) {
        return None;
    }
    Some((Some(HttpMethod::Get), key.url.clone()))
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn swr_keys_are_get_requests() {
        check!(
            "web/src/hooks/documents.ts",
            r#"
import useSWR from "swr";
import { useSWRImmutable as useOnce } from "swr/immutable";
const fetcher = (url) => fetch(url).then((r) => r.json());
export function useDocuments(teamId) {
  const { data } = useSWR(`/api/teams/${teamId}/documents`, fetcher);
  const me = useOnce("/api/me", fetcher);
  const maybe = useSWR(teamId ? `/api/teams/${teamId}` : null, fetcher);
  const bare = useSWR("/api/no-fetcher");
  const keyed = useSWR("INSTANCE_CONFIGURATIONS", () => service.list());
  return data;
}
"#
        );
    }
}
