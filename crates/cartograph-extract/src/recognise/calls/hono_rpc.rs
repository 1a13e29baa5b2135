//! Hono RPC clients: `hc<AppType>(baseUrl)` from `hono/client` makes a client whose property
//! chain is the request path and whose final `$get` / `$post` / `$put` / `$patch` / `$delete`
//! is the method: `client.users[":id"].$get({ param })` is `GET {base}/users/{id}`.
//!
//! A property written `[":name"]` is a path parameter; a property held in a variable
//! (`client[key]`) makes the path unknown and the call is left out, never guessed. The client is
//! an instance of the file (`this.client = hc(…)`, `const client = hc(…)`, also through a
//! factory, see `factories.rs`) or a name imported from another module, which the linker
//! follows to an instance there. Its base URL is read like any client's.
//!
//! Example: `const client = hc<AppType>("/api"); client.posts[":id"].$delete()` →
//! `DELETE /api/posts/{id}`.

use cartograph_core::HttpMethod;
use tree_sitter::Node;

use super::args::Args;
use super::url::CallUrl;
use super::{CallClient, CallFact};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, text};

/// The library's name for its instances.
pub(super) const LIBRARY: &str = "hono";

/// Members of `hono/client` that make a client.
pub(super) const CONSTRUCTORS: &[&str] = &["hc"];

/// The method a `$verb` member requests.
pub(super) fn method(verb: &str) -> Option<HttpMethod> {
    match verb {
        "$get" => Some(HttpMethod::Get),
        "$post" => Some(HttpMethod::Post),
        "$put" => Some(HttpMethod::Put),
        "$patch" => Some(HttpMethod::Patch),
        "$delete" => Some(HttpMethod::Delete),
        _ => None,
    }
}

/// The base URL of `hc(baseUrl)`.
pub(super) fn base(args: &Args) -> Option<CallUrl> {
    Some(args.get(0)?.base())
}

/// One `$verb` call, whose receiver is decided at the end of the file.
#[derive(Debug)]
pub(super) struct RpcCall {
    line: u32,
    column: u32,
    method: HttpMethod,
    /// The property chain before `$verb`, outermost first: `this`, `client`, `users`, `:id`.
    chain: Vec<Link>,
}

#[derive(Debug)]
struct Link {
    name: String,
    /// True when written as a plain name (`.users`), so that it may be part of the receiver.
    dotted: bool,
}

/// Reads `object.$verb(…)`: `None` when the chain has a computed property.
pub(super) fn read(
    object: Node<'_>,
    method: HttpMethod,
    (line, column): (u32, u32),
    source: &str,
) -> Option<RpcCall> {
    let mut chain = Vec::new();
    let mut node = object;
    for _ in 0..32 {
        match node.kind_name() {
            "member_expression" => {
                let property = node.field("property")?;
                chain.push(Link { name: text(property, source).to_owned(), dotted: true });
                node = node.field("object")?;
            }
            "subscript_expression" => {
                let index = node.field("index")?;
                let name = literal_string(index, source)?;
                chain.push(Link { name, dotted: false });
                node = node.field("object")?;
            }
            "identifier" | "this" => {
                chain.push(Link { name: text(node, source).to_owned(), dotted: true });
                chain.reverse();
                return Some(RpcCall { line, column, method, chain });
            }
            "parenthesized_expression" | "non_null_expression" => node = node.named_child(0)?,
            _ => return None,
        }
    }
    None
}

impl RpcCall {
    /// The request, when the chain starts with a Hono client: the longest receiver naming an
    /// instance of `instances`, or an imported name (`imported` says whether one is).
    pub(super) fn resolve(
        &self,
        instances: &[super::ClientInstance],
        imported: impl Fn(&str) -> bool,
    ) -> Option<CallFact> {
        let receivers = self.chain.iter().take_while(|l| l.dotted).count();
        let (client, rest) = (1..=receivers).rev().find_map(|k| {
            let receiver: Vec<&str> = self.chain[..k].iter().map(|l| l.name.as_str()).collect();
            let receiver = receiver.join(".");
            let instance = instances.iter().find(|i| i.name == receiver && i.library == LIBRARY);
            match instance {
                Some(i) => Some((CallClient::Instance(i.clone()), k)),
                None if k == 1 && receiver != "this" && imported(&receiver) => {
                    Some((CallClient::Imported { receiver }, k))
                }
                None => None,
            }
        })?;
        let segments: Vec<String> = self.chain[rest..]
            .iter()
            .map(|l| match l.name.strip_prefix(':') {
                Some(param) => format!("{{{}}}", param.trim_end_matches('?')),
                None => l.name.clone(),
            })
            .collect();
        // `index` is Hono's name for the route at the path itself.
        let segments: Vec<&str> =
            segments.iter().map(String::as_str).filter(|s| *s != "index").collect();
        if segments.iter().any(|s| s.is_empty() || s.contains(['/', '?', '#'])) {
            return None;
        }
        let path = format!("/{}", segments.join("/"));
        let url = CallUrl::Path { path, stripped: None };
        Some(CallFact {
            line: self.line,
            column: self.column,
            client,
            method: Some(self.method),
            url,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::described;

    #[test]
    fn rpc_property_chains_are_paths() {
        check!(
            "web/src/auth/client.ts",
            r#"
import { hc } from "hono/client";
import { other } from "./other";
export class SessionClient {
  constructor(options) {
    this.rpc = hc<AppType>(options.baseUrl);
  }
  async signOut() {
    await this.rpc.logout.$post();
  }
  async remove(id) {
    return this.rpc["linked-accounts"][":accountId"].$delete({ param: { accountId: id } });
  }
  async computed(key) {
    return this.rpc[key].$get();
  }
}
const api = hc<AppType>("/api");
api.posts.index.$get();
other.items.$put({ json: {} });
notAClient.items.$get();
"#
        );
    }
}
