//! Client factories: functions that return a client instance, and the names bound to what they
//! return. A React hook is the usual shape:
//!
//! ```ts
//! export const useStaticApi = ({ prefixUrl }) => {
//!   const api = useMemo(() => ky.create({ prefixUrl }), [prefixUrl]);
//!   return api;
//! };
//! const useApi = () => useStaticApi({ prefixUrl: endpoint });
//! export default useApi;
//! ```
//!
//! Here `useStaticApi` and `useApi` are factories of the ky instance `api`, recorded as the
//! instances `useStaticApi()`, `useApi()` and `default()` of the module. In another module,
//! `const api = useApi(); api.get("api/items")` is a request on the instance `useApi` returns:
//! the call names the receiver `useApi()`, which the linker follows through the import like any
//! imported instance (`link/resolve.rs`).
//!
//! A function is a factory when it returns, from its own body (not from a callback inside it),
//! a name holding an instance of the file, a call of another factory of the file, or a client
//! constructor call. A name bound to the calls of two different functions is left out: which one
//! a call uses cannot be told without scopes.

use std::collections::HashMap;

use tree_sitter::Node;

use super::ClientInstance;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::text;

/// What a function returns, as far as it may be a client.
#[derive(Debug, Clone)]
pub(super) enum Returned {
    /// A name (`return api`).
    Name(String),
    /// A call of a function of the file or an imported one (`return useStaticApi({ … })`).
    CallOf(String),
}

/// The returns and call results of one file, read during the walk.
#[derive(Debug, Default)]
pub(super) struct Factories {
    /// `(function, what it returns)`, in source order.
    returns: Vec<(String, Returned)>,
    /// Local names bound to the result of a call of a plain function (`const api = useApi()`),
    /// by name; `None` when bound to calls of two different functions.
    results: HashMap<String, Option<String>>,
}

/// The name of the instance a factory returns: `useApi()`.
pub(super) fn returned_name(function: &str) -> String {
    format!("{function}()")
}

impl Factories {
    pub(super) fn returns(&mut self, function: String, returned: Returned) {
        self.returns.push((function, returned));
    }

    /// `const api = useApi()`: `api` holds what `useApi` returns.
    pub(super) fn bind(&mut self, name: &str, callee: &str) {
        match self.results.get_mut(name) {
            Some(slot) if slot.as_deref() != Some(callee) => *slot = None,
            Some(_) => {}
            None => {
                self.results.insert(name.to_owned(), Some(callee.to_owned()));
            }
        }
    }

    /// The function whose result `name` holds.
    pub(super) fn result_of(&self, name: &str) -> Option<&str> {
        self.results.get(name)?.as_deref()
    }

    /// The instances the file's factories return, named `function()`, from the instances the
    /// file declares (`instances`, which already holds those built in a `return`).
    pub(super) fn instances(&self, instances: &[ClientInstance]) -> Vec<ClientInstance> {
        let mut made: Vec<ClientInstance> = Vec::new();
        // A factory calling a factory declared below it is found on a later round.
        for _ in 0..4 {
            let before = made.len();
            for (function, returned) in &self.returns {
                let name = returned_name(function);
                if made.iter().any(|i| i.name == name) {
                    continue;
                }
                let source = match returned {
                    Returned::Name(n) => instances.iter().find(|i| &i.name == n),
                    Returned::CallOf(f) => {
                        let called = returned_name(f);
                        made.iter().chain(instances).find(|i| i.name == called)
                    }
                };
                if let Some(found) = source {
                    made.push(ClientInstance { name, ..found.clone() });
                }
            }
            if made.len() == before {
                break;
            }
        }
        made
    }

    pub(super) fn is_empty(&self) -> bool {
        self.returns.is_empty()
    }
}

/// True when the file imports a JavaScript client library whose instances a function of the
/// file may return: a cheap gate for reading returns.
pub(super) fn may_make_clients(libs: &super::Libraries) -> bool {
    !(libs.axios.is_empty() && libs.ky.is_empty() && libs.constructors.is_empty())
}

/// What a returned expression may be: a name, or a call of a plain function.
pub(super) fn returned(value: Node<'_>, source: &str) -> Option<Returned> {
    let value = super::unwrap_value(value);
    match value.kind_name() {
        "identifier" => Some(Returned::Name(text(value, source).to_owned())),
        "call_expression" => called_function(value, source).map(|f| Returned::CallOf(f.to_owned())),
        _ => None,
    }
}

/// The function a call calls, when it is a plain name (`useApi()`, not `api.get()`).
pub(super) fn called_function<'s>(call: Node<'_>, source: &'s str) -> Option<&'s str> {
    let callee = call.field("function")?;
    (callee.kind_name() == "identifier").then(|| text(callee, source))
}

/// `useMemo(() => ky.create(…), deps)`: the value the memoised function computes, when it is an
/// expression body; else the value itself.
pub(super) fn memoised<'t>(value: Node<'t>, source: &str) -> Node<'t> {
    if value.kind_name() != "call_expression" {
        return value;
    }
    let is_memo = value
        .field("function")
        .is_some_and(|f| matches!(text(f, source), "useMemo" | "React.useMemo"));
    let function = value.field("arguments").and_then(|a| a.named_child(0));
    match function {
        Some(f) if is_memo && f.kind_name() == "arrow_function" => match f.field("body") {
            Some(body) if body.kind_name() != "statement_block" => super::unwrap_value(body),
            _ => value,
        },
        _ => value,
    }
}

impl super::Calls {
    /// A `return` of a function, or the expression body of the arrow function bound to
    /// `function`, in a file that uses a JavaScript client library: what the function returns
    /// may be a client.
    pub(super) fn returned(
        &mut self,
        value: Node<'_>,
        function: Option<String>,
        cx: &super::Context<'_>,
        facts: &crate::FileFacts,
    ) {
        if !may_make_clients(super::libs_of(&mut self.libs, facts)) {
            return;
        }
        let value = memoised(super::unwrap_value(value), cx.source);
        if !matches!(value.kind_name(), "identifier" | "call_expression") {
            return;
        }
        let function = match function {
            Some(f) => f,
            None => {
                // Only the function's own return: one inside a callback (`items.map((i) => {
                // return i })`) returns from the callback.
                let Some(scope) = self.scope(cx) else { return };
                if super::scope::innermost_function(cx).0 != Some(scope.id) {
                    return;
                }
                let Some(function) = scope.name.clone() else { return };
                function
            }
        };
        let libs = self.libs.as_ref().expect("read above");
        let constructs = value.kind_name() == "call_expression"
            && value
                .field("function")
                .is_some_and(|f| libs.constructed_by(text(f, cx.source)).is_some());
        if constructs {
            self.instance(returned_name(&function), value, cx, facts);
            return;
        }
        if let Some(returned) = returned(value, cx.source) {
            self.factories.returns(function, returned);
        }
    }
}
