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
//! A key given without a fetcher (or with only an options object) is fetched by the global
//! fetcher of an enclosing `<SWRConfig value={{ fetcher }}>`, which requests its key: the key is
//! then read as a URL when it is written as a path (a relative `api/items` too, which the fetcher's
//! client resolves against its base), and never when it is a plain word (`"settings"`). A key
//! guarded by a condition (`id && `/api/items/${id}``, `id ? url : null`) is the URL fetched once
//! the condition holds.
//!
//! Example: ``useSWR(`/api/teams/${teamId}/documents`, fetcher)`` → `GET
//! /api/teams/{teamId}/documents`; `useSWR(id && `api/roles/${id}`)` → `GET api/roles/{id}`
//! relative to the page.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::args::{self, Args};
use super::url::{CallUrl, Env, Part};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::text;

/// What a relative key of the global fetcher is resolved against.
const GLOBAL_BASE: &str = "the base URL of the global SWR fetcher";

/// The hooks whose key is fetched with `GET`.
pub(super) const HOOKS: &[&str] = &["useSWR", "useSWRImmutable", "default"];

/// Reads the arguments of `useSWR(key, …)`; a key guarded by a condition (`id && url`, `id ?
/// url : null`) is read as the URL it guards.
pub(super) fn read(arguments: Node<'_>, source: &str, env: &Env<'_>) -> Args {
    let mut args = args::read(arguments, source, env);
    let guarded = arguments.named_child(0).and_then(|key| guarded_key(key, source));
    if let (Some(guarded), Some(first)) = (guarded, args.positional.first_mut()) {
        *first = args::arg(guarded, source, env);
    }
    args
}

/// `cond && key` → `key`; `cond ? key : null` (or `undefined`, `false`) → `key`.
fn guarded_key<'t>(key: Node<'t>, source: &str) -> Option<Node<'t>> {
    let key = super::unwrap_value(key);
    match key.kind_name() {
        "binary_expression" => {
            let operator = key.field("operator").map(|o| text(o, source));
            (operator == Some("&&")).then(|| key.field("right")).flatten()
        }
        "ternary_expression" => {
            let alternative = super::unwrap_value(key.field("alternative")?);
            matches!(alternative.kind_name(), "null" | "undefined" | "false")
                .then(|| key.field("consequence"))
                .flatten()
        }
        _ => None,
    }
}

/// Reads `useSWR(key, fetcher)`, or `useSWR(key)` with the global fetcher.
pub(super) fn interpret(args: &Args) -> Option<(Option<HttpMethod>, CallUrl)> {
    let key = args.get(0)?;
    // No fetcher of its own: the global fetcher requests the key, when it is written as a path.
    let global = args.get(1).is_none_or(|options| options.object.is_some());
    if global {
        let path = key.parts.as_deref().is_some_and(written_as_path);
        let readable = !matches!(key.url, CallUrl::Computed { .. });
        if !(path && readable) || key.parts.as_deref().is_some_and(super::url::mixed_segment) {
            return None;
        }
        // A relative key is resolved by the global fetcher's client, not by the page.
        let mut url = key.url.clone();
        if let CallUrl::Path { stripped: Some(base), .. } = &mut url
            && base.relative
        {
            base.description = GLOBAL_BASE.to_owned();
        }
        return Some((Some(HttpMethod::Get), url));
    }
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

/// True when a key starts with a literal holding a `/` before any query (`api/roles/`,
/// `/api/me`): a path, not a cache key (`"settings"`, `["user", id]`).
/// A call of an imported URL template (`buildUrl("api/roles", params)`) is written as a path when
/// its first argument is; the link half expands it.
fn written_as_path(parts: &[Part]) -> bool {
    match parts.first() {
        Some(Part::Literal(first)) => {
            let path = first.split(['?', '#']).next().unwrap_or("");
            path.contains('/') && !path.starts_with("//")
        }
        Some(Part::Hole(hole)) => match &hole.call {
            Some(args) if hole.imported => args.first().is_some_and(|a| written_as_path(a)),
            _ => false,
        },
        None => false,
    }
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

    #[test]
    fn keys_of_the_global_fetcher_are_get_requests() {
        check!(
            "web/src/pages/teams.tsx",
            r#"
import useSWR from "swr";
import { withQuery } from "@/utils/url";
export function Team({ teamId, page }) {
  const url = withQuery("api/teams", { page });
  const list = useSWR(url);
  const members = useSWR(withQuery(`api/teams/${teamId}/members`, { page }));
  const { data } = useSWR<Team>(teamId && `api/teams/${teamId}`);
  const all = useSWR<Team[]>("api/teams", { revalidateOnFocus: false });
  const mine = useSWR(teamId ? "/api/me/teams" : null);
  const word = useSWR("settings");
  const computed = useSWR(key);
  const tiered = useSWR(`/billing-${tier}`);
  return data;
}
"#
        );
    }
}
