//! The link half of URL resolution across modules: imported URL constants, and calls of
//! wrappers (see `wrappers.rs`) followed to the request they make.
//!
//! A call's callee is followed by name, in a fixed order and a fixed number of steps: a wrapper
//! of that name in the file; an alias of an object literal (`CTFd.fetch` → `fetch`, also under a
//! longer callee: `CTFd.api.get_item` → `api.get_item`); `this.x` through the class and the
//! classes it extends (also in other modules); `client.x` through the class of an instance
//! (`new ApiClient()`, a constructor parameter typed `ApiService`); a global `window.App`, to the
//! module publishing it (`globals.rs`); a name bound by an import, to the module it names. A
//! wrapper that calls another wrapper is followed to at most [`MAX_WRAPPERS`] wrappers in all, its
//! parameters bound to the caller's arguments at each step. Nothing here reads source: every step
//! is a lookup in the per-file summaries.
//!
//! Example: `this.get(`/api/projects/${id}/`)` in `ProjectService extends APIService`, with
//! `APIService.get(url)` calling `this.axiosInstance.get(url)` in another module → a `GET
//! /api/projects/{id}` request, via wrapper `APIService.get`.

use cartograph_core::HttpMethod;

use crate::recognise::calls::choices;
use crate::recognise::calls::url::{self, CallUrl, Part, Role};
use crate::recognise::calls::wrappers::{
    Invocation, InvocationArg, OptionsMethod, Sink, UrlConstant, Wrapper, WrapperMethod,
};
use crate::recognise::calls::{CallClient, ClientInstance};
use crate::recognise::link::{BindingTarget, FileView, LinkInput};

/// At most this many wrappers are followed from one call.
pub const MAX_WRAPPERS: usize = 6;
/// At most this many name lookups are made to find one callee or constant.
const MAX_STEPS: usize = 8;

/// A request found through wrappers.
#[derive(Debug)]
pub struct Resolved<'a> {
    pub method: Option<HttpMethod>,
    /// The URLs the request may have, one per branch of its conditionals (usually one): before
    /// the client's base (to tell whose base was stripped), and with it applied.
    pub urls: Vec<(CallUrl, CallUrl)>,
    /// Who made the request in the end: `fetch`, `axios instance this.axiosInstance`.
    pub who: String,
    pub instance: Option<&'a ClientInstance>,
    /// How the call reached the request, outermost first: `wrapper APIService.get (path:line)`.
    pub via: Vec<String>,
    /// How the URL was resolved: `URL from constant routes.base (path:line)`.
    pub notes: Vec<String>,
    /// True when a caller's literal filled a whole path segment of the wrapper's URL
    /// (`useReport("utm")` for `/reports/${type}`): the caller is the call site only when that
    /// literal meets a literal segment of the route.
    pub named_segment: bool,
}

/// Follows an invocation in `file` to the request it makes, when its callee is a wrapper.
pub fn invocation<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    inv: &Invocation,
) -> Option<Resolved<'a>> {
    // Most invocations are of no wrapper: look for one before reading the arguments.
    let (wfile, wrapper) = find(input, file, &inv.callee, inv.class.as_deref(), 0)?;
    let mut notes = Vec::new();
    let args: Vec<InvocationArg> = inv
        .args
        .iter()
        .map(|a| {
            let mut a = a.clone();
            a.parts = a.parts.map(|p| {
                // A parameter of the caller in a whole path segment is a path parameter.
                let p = if url::glued_params(&p) { p } else { without_params(p) };
                imports(input, file, p, &mut notes, 0)
            });
            a.from_caller = true;
            a
        })
        .collect();
    let mut resolved = same_name(wfile, wrapper).find_map(|w| apply(input, wfile, w, &args, 1))?;
    notes.append(&mut resolved.notes);
    resolved.notes = notes;
    Some(resolved)
}

/// A call's own URLs (one per branch of its conditionals, usually one) with the imported
/// constants it names read from their modules.
pub fn own_urls<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    call: &CallUrl,
    notes: &mut Vec<String>,
) -> Vec<CallUrl> {
    match call {
        CallUrl::Deferred { parts } => {
            let parts = imports(input, file, parts.clone(), notes, 0);
            interpret_all(&parts)
        }
        other => vec![other.clone()],
    }
}

/// Every URL the parts may be, one per branch of their conditionals (branches that read the
/// same once interpreted are one).
fn interpret_all(parts: &[Part]) -> Vec<CallUrl> {
    let mut out: Vec<CallUrl> = Vec::new();
    let read = |p: Vec<Part>| {
        // `/${this.apiEndpoint}.delete`: a value glued to text in one segment would meet every
        // route's literal there as a parameter; which route it is cannot be told.
        if url::mixed_segment(&p) {
            return CallUrl::computed(
                "a path segment glues a computed value to text, so its route cannot be told",
            );
        }
        url::interpret(p, Role::Call)
    };
    for url in choices::expand(parts).into_iter().map(read) {
        if !out.contains(&url) {
            out.push(url);
        }
    }
    out
}

/// True when a parameter hole is left before the query string or fragment.
fn arg_in_path(parts: &[Part]) -> bool {
    for part in parts {
        match part {
            Part::Literal(l) if l.contains(['?', '#']) => return false,
            Part::Hole(h) if h.arg.is_some() || choices::holds_arg(h) => return true,
            _ => {}
        }
    }
    false
}

/// True when a parameter hole is left anywhere in the parts.
fn has_arg_hole(parts: &[Part]) -> bool {
    parts.iter().any(|p| matches!(p, Part::Hole(h) if h.arg.is_some() || choices::holds_arg(h)))
}

fn apply<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    wrapper: &'a Wrapper,
    args: &[InvocationArg],
    depth: usize,
) -> Option<Resolved<'a>> {
    let kind = if wrapper.generated { "generated client" } else { "wrapper" };
    let step = format!("{kind} {} ({}:{})", wrapper.name, file.path.as_str(), wrapper.line);
    match &wrapper.sink {
        Sink::Request { client, method, url } => {
            let mut notes = Vec::new();
            let mut used = false;
            let mut named_segment = false;
            let owns = match url {
                CallUrl::Deferred { parts } => {
                    let (parts, from_caller) = substitute(parts, args, &mut named_segment);
                    // A parameter of the outermost caller in the path: linked at its own
                    // callers. One in the query string only (`${path}?${qs(data)}`) is no part
                    // of what is matched.
                    if choices::expand(&parts).iter().any(|p| arg_in_path(p)) {
                        return None;
                    }
                    let parts = without_params(parts);
                    used |= from_caller;
                    interpret_all(&imports(input, file, parts, &mut notes, 0))
                }
                other => vec![other.clone()],
            };
            if let WrapperMethod::Param(k) | WrapperMethod::Options(k) = *method {
                let given = args.get(usize::from(k));
                // The method is a parameter of the outermost caller: linked at its callers.
                if given.is_some_and(|a| a.param.is_some()) {
                    return None;
                }
                used |= given.is_some_and(|a| a.from_caller);
            }
            // Only a request the caller's arguments flow into is the caller's, unless the
            // wrapper is generated client code, whose fixed request its callers make.
            // A URL that cannot be read stays the caller's refusal.
            let unread = owns
                .iter()
                .all(|o| matches!(o, CallUrl::Computed { .. } | CallUrl::Deferred { .. }));
            if !used && !wrapper.generated && !unread {
                return None;
            }
            let method = match *method {
                WrapperMethod::Known(m) => Some(m),
                WrapperMethod::Param(k) => args
                    .get(usize::from(k))
                    .and_then(|a| a.literal.as_deref())
                    .and_then(HttpMethod::parse)
                    .filter(|m| *m != HttpMethod::Any),
                WrapperMethod::Options(k) => match args.get(usize::from(k)) {
                    None => Some(HttpMethod::Get),
                    Some(a) => match a.options {
                        Some(OptionsMethod::Absent) => Some(HttpMethod::Get),
                        Some(OptionsMethod::Known(m)) => Some(m),
                        _ => None,
                    },
                },
                WrapperMethod::Unknown => None,
            };
            let (who, instance) = client_of(input, file, client)?;
            let base = instance.and_then(|i| i.base.as_ref());
            let urls = owns
                .into_iter()
                .map(|own| {
                    let url = CallUrl::joined(base, &own);
                    (own, url)
                })
                .collect();
            Some(Resolved { method, urls, who, instance, via: vec![step], notes, named_segment })
        }
        Sink::Call(inner) => {
            if depth >= MAX_WRAPPERS {
                return None;
            }
            let mut notes = Vec::new();
            let mut named = false;
            let bound: Vec<InvocationArg> = inner
                .args
                .iter()
                .map(|a| bind(input, file, a, args, &mut notes, &mut named))
                .collect();
            let (next_file, next) = find(input, file, &inner.callee, inner.class.as_deref(), 0)?;
            let mut resolved = same_name(next_file, next)
                .find_map(|w| apply(input, next_file, w, &bound, depth + 1))?;
            resolved.named_segment |= named;
            resolved.via.insert(0, step);
            notes.append(&mut resolved.notes);
            resolved.notes = notes;
            Some(resolved)
        }
    }
}

/// Who a wrapper's request is made by, and the client instance whose base applies.
fn client_of<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    client: &'a CallClient,
) -> Option<(String, Option<&'a ClientInstance>)> {
    match client {
        CallClient::Library(name) => Some((super::library_label(name).to_owned(), None)),
        CallClient::Instance(i) => Some((format!("{} instance {}", i.library, i.name), Some(i))),
        CallClient::Imported { receiver } => {
            let (instance, module) = imported_instance(input, file, receiver)?;
            Some((
                format!("{} instance {receiver} imported from {module}", instance.library),
                Some(instance),
            ))
        }
    }
}

/// The client instance an imported receiver names, and the module declaring it.
pub(crate) fn imported_instance<'a>(
    input: &'a LinkInput<'_>,
    file: &FileView<'_>,
    receiver: &str,
) -> Option<(&'a ClientInstance, &'a str)> {
    // `useApi()`: the instance the imported function `useApi` returns (see `factories.rs`).
    let (receiver, returned) = match receiver.strip_suffix("()") {
        Some(function) => (function, "()"),
        None => (receiver, ""),
    };
    let (head, rest) = match receiver.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (receiver, None),
    };
    let binding = input.binding(file.path, head)?;
    let BindingTarget::Module(module) = &binding.target else { return None };
    let name = match (&binding.member, rest) {
        (Some(member), None) => &**member,
        (None, Some(member)) if !member.contains('.') => member,
        _ => return None,
    };
    let target = input.file(module)?;
    let clients = &target.facts.calls.clients;
    let instance = clients.iter().find(|i| i.name.strip_suffix(returned) == Some(name))?;
    Some((instance, target.path.as_str()))
}

/// An argument of a call inside a wrapper, with the wrapper's parameters bound to its caller's
/// arguments and its imported constants read.
fn bind<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    arg: &InvocationArg,
    outer: &[InvocationArg],
    notes: &mut Vec<String>,
    named_segment: &mut bool,
) -> InvocationArg {
    if let Some(k) = arg.param {
        return outer.get(usize::from(k)).cloned().unwrap_or_default();
    }
    let mut from_caller = false;
    let parts = arg.parts.as_ref().map(|p| {
        let (parts, used) = substitute(p, outer, named_segment);
        from_caller = used;
        imports(input, file, parts, notes, 0)
    });
    // `{ method, body }` with `method` the wrapper's parameter: the caller's literal names it.
    let options = match arg.method_param.and_then(|k| outer.get(usize::from(k))) {
        Some(given) => match given.literal.as_deref().and_then(HttpMethod::parse) {
            Some(m) if m != HttpMethod::Any => Some(OptionsMethod::Known(m)),
            _ => Some(OptionsMethod::Unknown),
        },
        None => arg.options,
    };
    let from_caller = from_caller
        || arg.method_param.and_then(|k| outer.get(usize::from(k))).is_some_and(|a| a.from_caller);
    InvocationArg {
        parts,
        literal: arg.literal.clone(),
        options,
        param: None,
        method_param: None,
        from_caller,
    }
}

/// Parts with each parameter hole replaced by the caller's argument (a plain hole when the
/// caller gives none or an unreadable one), and whether an argument of the outermost caller
/// was used.
///
/// Where every parameter is a whole path segment (`/reports/${type}`), only a literal argument
/// (`"utm"`) is taken: it names the route, so the caller is the call site. Any other argument
/// leaves the segment a path parameter and is not counted as used, so the request stays the
/// function's own call site and its callers get no edge for it.
fn substitute(
    parts: &[Part],
    args: &[InvocationArg],
    named_segment: &mut bool,
) -> (Vec<Part>, bool) {
    let segments_only = !url::glued_params(parts);
    let mut out = Vec::new();
    let mut used = false;
    for part in parts {
        match part {
            Part::Hole(h) if h.arg.is_some() => {
                let given = h.arg.and_then(|k| args.get(usize::from(k)));
                let given = given.and_then(|a| a.parts.as_ref().map(|p| (p, a.from_caller)));
                let literal = |p: &Vec<Part>| p.iter().all(|p| matches!(p, Part::Literal(_)));
                let given = given.filter(|(p, _)| !segments_only || literal(p));
                match given {
                    Some((parts, from_caller)) => {
                        used |= from_caller;
                        *named_segment |= segments_only && from_caller;
                        out.extend(parts.iter().cloned());
                    }
                    None => {
                        let mut h = h.clone();
                        h.arg = None;
                        out.push(Part::Hole(h));
                    }
                }
            }
            // A conditional or an imported call whose branches or arguments hold parameters.
            Part::Hole(h) if choices::holds_arg(h) => {
                let mut h = h.clone();
                for choice in &mut h.choices {
                    let (parts, from_caller) = substitute(choice, args, named_segment);
                    used |= from_caller;
                    *choice = parts;
                }
                for arg in h.call.iter_mut().flatten() {
                    let (parts, from_caller) = substitute(arg, args, named_segment);
                    used |= from_caller;
                    *arg = parts;
                }
                out.push(Part::Hole(h));
            }
            other => out.push(other.clone()),
        }
    }
    (merge_literals(out), used)
}

fn without_params(parts: Vec<Part>) -> Vec<Part> {
    parts
        .into_iter()
        .map(|p| match p {
            Part::Hole(mut h) => {
                h.arg = None;
                h.choices = h.choices.into_iter().map(without_params).collect();
                h.call = h.call.map(|args| args.into_iter().map(without_params).collect());
                Part::Hole(h)
            }
            other => other,
        })
        .collect()
}

fn merge_literals(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    for part in parts {
        match (out.last_mut(), part) {
            (Some(Part::Literal(last)), Part::Literal(l)) => last.push_str(&l),
            (_, part) => out.push(part),
        }
    }
    out
}

/// Parts with every imported name read from the module that exports it, when that module
/// declares it as a URL constant.
fn imports<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    parts: Vec<Part>,
    notes: &mut Vec<String>,
    depth: usize,
) -> Vec<Part> {
    let later = |p: &Part| matches!(p, Part::Hole(h) if h.imported || !h.choices.is_empty());
    if !parts.iter().any(later) {
        return parts;
    }
    let mut out = Vec::new();
    for part in parts {
        let Part::Hole(h) = &part else {
            out.push(part);
            continue;
        };
        if depth >= MAX_STEPS {
            out.push(part);
            continue;
        }
        if !h.choices.is_empty() {
            let mut h = h.clone();
            for choice in &mut h.choices {
                *choice = imports(input, file, std::mem::take(choice), notes, depth + 1);
            }
            out.push(Part::Hole(h));
            continue;
        }
        if !h.imported {
            out.push(part);
            continue;
        }
        match imported_constant(input, file, &h.dotted) {
            Some((target, constant)) => {
                let mut inner = Vec::new();
                // A URL template (`buildPath(path, params)`) is expanded with the call's
                // arguments; a constant holding parameters is no value without them.
                let own = match &h.call {
                    Some(args) => match choices::bind_args(&constant.parts, args) {
                        Some(parts) => parts,
                        None => {
                            out.push(part);
                            continue;
                        }
                    },
                    None if has_arg_hole(&constant.parts) => {
                        out.push(part);
                        continue;
                    }
                    None => constant.parts.clone(),
                };
                let parts = imports(input, target, own, &mut inner, depth + 1);
                // The value as a path template, when it reads as one: the resolved URL, never
                // the source text.
                let value = match url::interpret(parts.clone(), Role::Call) {
                    CallUrl::Path { path, stripped: None } => {
                        format!(
                            " = \"{}\"",
                            cartograph_core::RouteTemplate::parse(&path).identity()
                        )
                    }
                    _ => String::new(),
                };
                let what = if h.call.is_some() { "function" } else { "constant" };
                notes.push(format!(
                    "URL from {what} {}{value} ({}:{})",
                    constant.name,
                    target.path.as_str(),
                    constant.line
                ));
                notes.append(&mut inner);
                out.extend(parts);
            }
            None => out.push(part),
        }
    }
    merge_literals(out)
}

fn imported_constant<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    dotted: &str,
) -> Option<(&'a FileView<'a>, &'a UrlConstant)> {
    let (head, rest) = match dotted.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (dotted, None),
    };
    let binding = input.binding(file.path, head)?;
    let BindingTarget::Module(module) = &binding.target else { return None };
    let key = match (&binding.member, rest) {
        (Some(m), None) => m.to_string(),
        (Some(m), Some(r)) => format!("{m}.{r}"),
        (None, Some(r)) => r.to_owned(),
        (None, None) => return None,
    };
    let target = input.file(module)?;
    let constant = target.facts.calls.constants.iter().find(|c| c.name == key)?;
    Some((target, constant))
}

/// The wrapper a callee names, seen from `file` (in the class `class`).
fn find<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    callee: &str,
    class: Option<&str>,
    steps: usize,
) -> Option<(&'a FileView<'a>, &'a Wrapper)> {
    if steps >= MAX_STEPS {
        return None;
    }
    let calls = &file.facts.calls;
    let (head, rest) = match callee.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (callee, None),
    };
    if matches!(head, "this" | "super") {
        let (class, rest) = (class?, rest?);
        return match rest.rsplit_once('.') {
            None if head == "this" => class_member(input, file, class, rest, steps + 1),
            None => {
                let parent = calls.classes.iter().find(|c| c.name == class)?.extends.as_deref()?;
                class_member(input, file, parent, rest, steps + 1)
            }
            Some((field, member)) => {
                let name = format!("this.{field}");
                let object = calls
                    .objects
                    .iter()
                    .find(|o| o.name == name && o.scope.as_deref() == Some(class))
                    .or_else(|| calls.objects.iter().find(|o| o.name == name))?;
                class_member(input, file, &object.class, member, steps + 1)
            }
        };
    }
    if let Some(w) = named(file, callee) {
        return Some(w);
    }
    if let Some((_, target)) = calls.aliases.iter().find(|(a, _)| a == callee) {
        return find(input, file, target, None, steps + 1);
    }
    if let Some(rest) = rest {
        // The longest aliased head: `CTFd.api.get_item` through `CTFd.api` → `api`.
        let aliased = callee.match_indices('.').rev().find_map(|(at, _)| {
            let prefix = &callee[..at];
            calls.aliases.iter().find(|(a, _)| a == prefix).map(|(_, t)| (t, &callee[at + 1..]))
        });
        if let Some((target, rest)) = aliased {
            return find(input, file, &format!("{target}.{rest}"), None, steps + 1);
        }
        if !rest.contains('.')
            && let Some(object) = calls.objects.iter().find(|o| o.name == head)
        {
            return class_member(input, file, &object.class, rest, steps + 1);
        }
    }
    if head == "window" {
        let target = global_target(input, file, rest?.split('.').next()?)?;
        return find(input, target, callee, class, steps + 1);
    }
    let Some(binding) = input.binding(file.path, head) else {
        // A barrel file re-exporting the name with `export * from "./m"`.
        let target = star_target(input, file, head)?;
        return find(input, target, callee, class, steps + 1);
    };
    let BindingTarget::Module(module) = &binding.target else { return None };
    let target = input.file(module)?;
    let name = match (&binding.member, rest) {
        (Some(m), None) => m.to_string(),
        (Some(m), Some(r)) => format!("{m}.{r}"),
        (None, Some(r)) => r.to_owned(),
        (None, None) => return None,
    };
    find(input, target, &name, None, steps + 1)
}

/// The module publishing the global `window.{name}` (see `globals.rs`) nearest to `file`: the
/// one sharing the longest directory with it, then the first by path.
fn global_target<'a>(
    input: &'a LinkInput<'a>,
    file: &FileView<'_>,
    name: &str,
) -> Option<&'a FileView<'a>> {
    let key = format!("window.{name}");
    let shared = |other: &str| {
        let mine = file.path.as_str().split('/');
        mine.zip(other.split('/')).take_while(|(a, b)| a == b).count()
    };
    input
        .assigning_global(&key)
        .iter()
        .map(|&i| &input.files[i])
        .filter(|f| f.path != file.path)
        .min_by_key(|f| (std::cmp::Reverse(shared(f.path.as_str())), f.path.as_str()))
}

/// At most this many modules are looked through for a name re-exported with `export *`.
const MAX_STAR_MODULES: usize = 64;

/// The module that declares `name` (a class, a wrapper, an object, or an import of it), found
/// through the star re-exports (`export * from "./m"`) of `file`, breadth first; `None` when
/// none does within [`MAX_STAR_MODULES`] modules.
fn star_target<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    name: &str,
) -> Option<&'a FileView<'a>> {
    let stars = |f: &'a FileView<'a>| {
        f.bindings.iter().filter(|b| &*b.local == "*").filter_map(|b| match &b.target {
            BindingTarget::Module(m) => input.file(m),
            BindingTarget::Package(_) => None,
        })
    };
    let prefix = format!("{name}.");
    let declares = |f: &FileView<'_>| {
        let calls = &f.facts.calls;
        calls.classes.iter().any(|c| c.name == name)
            || calls.wrappers.iter().any(|w| w.name == name || w.name.starts_with(&prefix))
            || calls.objects.iter().any(|o| o.name == name)
            || f.bindings.iter().any(|b| &*b.local == name)
    };
    let mut queue: std::collections::VecDeque<&'a FileView<'a>> = stars(file).collect();
    let mut seen: Vec<&str> = vec![file.path.as_str()];
    while let Some(next) = queue.pop_front() {
        if seen.contains(&next.path.as_str()) {
            continue;
        }
        if seen.len() > MAX_STAR_MODULES {
            return None;
        }
        seen.push(next.path.as_str());
        if declares(next) {
            return Some(next);
        }
        queue.extend(stars(next));
    }
    None
}

/// The wrapper `member` of `class` (or of a class it extends), seen from `file`.
fn class_member<'a>(
    input: &'a LinkInput<'a>,
    file: &'a FileView<'a>,
    class: &str,
    member: &str,
    steps: usize,
) -> Option<(&'a FileView<'a>, &'a Wrapper)> {
    if steps >= MAX_STEPS {
        return None;
    }
    if let Some(w) = named(file, &format!("{class}.{member}")) {
        return Some(w);
    }
    let calls = &file.facts.calls;
    if let Some(declared) = calls.classes.iter().find(|c| c.name == class) {
        let parent = declared.extends.as_deref()?;
        return class_member(input, file, parent, member, steps + 1);
    }
    let (head, rest) = match class.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (class, None),
    };
    let Some(binding) = input.binding(file.path, head) else {
        let target = star_target(input, file, head)?;
        return class_member(input, target, class, member, steps + 1);
    };
    let BindingTarget::Module(module) = &binding.target else { return None };
    let target = input.file(module)?;
    let name = match (&binding.member, rest) {
        (Some(m), None) => m.to_string(),
        (None, Some(r)) => r.to_owned(),
        _ => return None,
    };
    let name = if name == "default" {
        let aliases = &target.facts.calls.aliases;
        aliases.iter().find(|(a, _)| a == "default").map(|(_, t)| t.clone())?
    } else {
        name
    };
    class_member(input, target, &name, member, steps + 1)
}

/// At most this many summaries of one function are tried (one per call in it that may make its
/// request: `ApiClient.fetch` checks a permission with the path before it fetches it).
const MAX_SAME_NAME: usize = 8;

/// The summaries of the function `first` summarises, in line order, `first` first.
fn same_name<'a>(file: &'a FileView<'a>, first: &'a Wrapper) -> impl Iterator<Item = &'a Wrapper> {
    let wrappers = &file.facts.calls.wrappers;
    let at = wrappers.partition_point(|w| w.name < first.name);
    wrappers[at..].iter().take_while(|w| w.name == first.name).take(MAX_SAME_NAME)
}

/// The first wrapper of `file` called `name`.
fn named<'a>(file: &'a FileView<'a>, name: &str) -> Option<(&'a FileView<'a>, &'a Wrapper)> {
    let wrappers = &file.facts.calls.wrappers;
    let at = wrappers.partition_point(|w| w.name.as_str() < name);
    let w = wrappers.get(at).filter(|w| w.name == name)?;
    Some((file, w))
}
