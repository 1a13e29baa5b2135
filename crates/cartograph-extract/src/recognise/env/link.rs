//! Environment variable reads: `reads_env` edges from modules to `env_var` nodes.
//!
//! Every read a recogniser found with a literal name becomes an edge from the reading module to
//! the variable, named but never valued; reads with a computed name were refused at extraction.
//! A settings class or a validated schema read in another module is the declaring module's read.
//!
//! Then the helpers (`wrappers.rs`): a call passing a literal name to a function whose
//! parameter names a read (`get_bool_from_env("APP_DEBUG")`), in the same module or imported
//! from another (import bindings followed, re-exports included, a bounded number of steps), is
//! a read of that name by the calling module. A helper that forwards its parameter to another
//! helper is a helper too, [`MAX_DEPTH`] helpers deep at most. Calls of a django-environ `Env`
//! instance and member reads of an environment object imported from another module are joined
//! the same way. Provenance `resolver` across modules (`syntax` within one), confidence
//! `likely`: the helper's body is a read, but what it does around the read is not followed.

use std::collections::BTreeMap;

use cartograph_core::{
    Confidence, Edge, EdgeKind, Evidence, Node, NodeKey, Provenance, RepoPath, SourceLocation,
};

use super::names::{self, NamePart};
use super::{EnvInvocation, ObjectKind};
use crate::recognise::link::{BindingTarget, FileView, LinkInput, Linked};

/// How many helpers deep a forwarded name is followed.
const MAX_DEPTH: usize = 3;
/// How many import bindings are followed to find a helper (re-exports).
const MAX_HOPS: usize = 4;

/// Links this family's facts.
pub fn link(input: &LinkInput<'_>, linked: &mut Linked) {
    let next_configs: Vec<(&str, &[String])> = input
        .files
        .iter()
        .filter(|f| !f.facts.env.next_env_keys.is_empty())
        .map(|f| {
            let path = f.path.as_str();
            (path.rsplit_once('/').map_or("", |(dir, _)| dir), f.facts.env.next_env_keys.as_slice())
        })
        .collect();
    for file in &input.files {
        let inlined = next_inlined(&next_configs, file.path);
        for read in &file.facts.env.reads {
            if read.process_env_member && inlined.is_some_and(|keys| keys.contains(&read.name)) {
                continue;
            }
            let location = SourceLocation::new(file.path.clone(), read.line, read.column);
            let edge = Reading {
                name: &read.name,
                recogniser: read.recogniser,
                evidence: read.evidence.clone(),
                provenance: read.provenance,
                confidence: read.confidence,
            };
            edge.push(file.path, location, linked);
        }
    }
    let summaries = Summaries::build(input);
    for file in &input.files {
        for inv in &file.facts.env.invocations {
            invocation(input, &summaries, file, inv, linked);
        }
    }
}

/// The `env` keys of the Next.js config of the app `path` belongs to (the nearest
/// `next.config.*` in its folder or above), when `path` is not that config itself: Next.js
/// inlines `process.env.KEY` for them from the config at build time.
fn next_inlined<'a>(configs: &[(&str, &'a [String])], path: &RepoPath) -> Option<&'a [String]> {
    let path = path.as_str();
    let file = path.rsplit('/').next().unwrap_or(path);
    if file.starts_with("next.config.") {
        return None;
    }
    configs
        .iter()
        .filter(|(dir, _)| {
            dir.is_empty() || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|(dir, _)| dir.len())
        .map(|(_, keys)| *keys)
}

/// One read to become an edge.
struct Reading<'a> {
    name: &'a str,
    recogniser: &'static str,
    evidence: String,
    provenance: Provenance,
    confidence: Confidence,
}

impl Reading<'_> {
    fn push(self, from: &RepoPath, location: SourceLocation, linked: &mut Linked) {
        let key = NodeKey::env_var(self.name);
        let mut node = Node::new(key.clone());
        node.attrs.framework = Some(self.recogniser.to_owned());
        linked.edge(
            Edge {
                kind: EdgeKind::ReadsEnv,
                from: NodeKey::module(from),
                to: key,
                evidence: Evidence::new(self.evidence),
                provenance: self.provenance,
                confidence: self.confidence,
                location,
                type_only: false,
                occurrences: 1,
            },
            node,
        );
    }
}

/// What one helper reads, in terms of its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Summary {
    params: Vec<String>,
    /// The literal defaults of the parameters that have one.
    defaults: Vec<Option<String>>,
    parts: Vec<NamePart>,
    /// How the innermost helper reads: `os.getenv`.
    how: String,
    /// Where: `settings/helpers.py:12`.
    site: String,
    /// The helpers the name is forwarded through, outermost first.
    via: Vec<String>,
}

/// Every helper of the analysis, by module and function name.
struct Summaries<'a> {
    by_function: BTreeMap<(&'a str, String), Vec<Summary>>,
}

impl<'a> Summaries<'a> {
    fn build(input: &LinkInput<'a>) -> Self {
        let mut by_function: BTreeMap<(&'a str, String), Vec<Summary>> = BTreeMap::new();
        for file in &input.files {
            for w in &file.facts.env.wrappers {
                by_function.entry((file.path.as_str(), w.name.clone())).or_default().push(
                    Summary {
                        params: w.params.clone(),
                        defaults: w.defaults.clone(),
                        parts: w.parts.clone(),
                        how: w.how.clone(),
                        site: format!("{}:{}", file.path.as_str(), w.line),
                        via: Vec::new(),
                    },
                );
            }
        }
        let mut summaries = Summaries { by_function };
        // Helpers that forward their parameter to a helper, one level per round.
        for _ in 1..MAX_DEPTH {
            let mut added: Vec<((&'a str, String), Summary)> = Vec::new();
            for file in &input.files {
                for inv in &file.facts.env.invocations {
                    let Some(within) = &inv.within else { continue };
                    let Some(Target::Function { key, .. }) =
                        resolve(input, &summaries, file, &inv.callee)
                    else {
                        continue;
                    };
                    for s in summaries.by_function.get(&key).into_iter().flatten() {
                        let Some(parts) = substitute(s, inv) else { continue };
                        if !names::has_param(&parts) {
                            continue;
                        }
                        let mut via = vec![inv.callee.clone()];
                        via.extend(s.via.iter().cloned());
                        let summary = Summary {
                            params: inv.within_params.clone(),
                            defaults: Vec::new(),
                            parts,
                            how: s.how.clone(),
                            site: s.site.clone(),
                            via,
                        };
                        added.push(((file.path.as_str(), within.clone()), summary));
                    }
                }
            }
            let mut grew = false;
            for (key, summary) in added {
                let list = summaries.by_function.entry(key).or_default();
                if list.len() < 8 && !list.iter().any(|s| s.parts == summary.parts) {
                    list.push(summary);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        summaries
    }
}

/// What an invocation's callee is.
enum Target<'a> {
    /// A helper: its module and name.
    Function { key: (&'a str, String), module: &'a RepoPath },
    /// An environment object, and the method called on it (empty for the object itself).
    Object { module: &'a RepoPath, name: String, kind: ObjectKind, method: String },
}

/// Follows `callee` from `file`: a helper or object of the file, or one an import binds.
fn resolve<'a>(
    input: &LinkInput<'a>,
    summaries: &Summaries<'a>,
    file: &FileView<'a>,
    callee: &str,
) -> Option<Target<'a>> {
    let (head, rest) = callee.split_once('.').unwrap_or((callee, ""));
    if let Some(found) = lookup(input, summaries, file.path, head, rest) {
        return Some(found);
    }
    // `import app.helpers` binds `app.helpers`.
    if let Some(binding) = input.binding(file.path, callee) {
        let BindingTarget::Module(path) = &binding.target else { return None };
        return follow(input, summaries, path, binding.member.as_deref()?, "", 0);
    }
    let binding = input.binding(file.path, head)?;
    let BindingTarget::Module(path) = &binding.target else { return None };
    match (binding.member.as_deref(), rest) {
        (Some(member), rest) => follow(input, summaries, path, member, rest, 0),
        // `helpers.get_env(...)` on a module.
        (None, rest) if !rest.is_empty() && !rest.contains('.') => {
            follow(input, summaries, path, rest, "", 0)
        }
        (None, _) => None,
    }
}

/// `name` (with `method` called on it) in the module at `path`, or where that module imports it
/// from.
fn follow<'a>(
    input: &LinkInput<'a>,
    summaries: &Summaries<'a>,
    path: &RepoPath,
    name: &str,
    method: &str,
    hops: usize,
) -> Option<Target<'a>> {
    let module = input.file(path)?.path;
    if let Some(found) = lookup(input, summaries, module, name, method) {
        return Some(found);
    }
    if hops >= MAX_HOPS {
        return None;
    }
    let binding = input.binding(module, name).or_else(|| input.binding(module, "*"))?;
    let BindingTarget::Module(next) = &binding.target else { return None };
    let member = match binding.member.as_deref() {
        Some(m) => m,
        // A star import keeps the name.
        None if &*binding.local == "*" => name,
        None => return None,
    };
    follow(input, summaries, next, member, method, hops + 1)
}

/// A helper or object `name` declared in `module` itself.
fn lookup<'a>(
    input: &LinkInput<'a>,
    summaries: &Summaries<'a>,
    module: &'a RepoPath,
    name: &str,
    method: &str,
) -> Option<Target<'a>> {
    let file = input.file(module)?;
    if method.is_empty() {
        let key = (module.as_str(), name.to_owned());
        if summaries.by_function.contains_key(&key) {
            return Some(Target::Function { key, module });
        }
    }
    let object = file.facts.env.objects.iter().find(|o| o.name == name)?;
    Some(Target::Object {
        module: file.path,
        name: name.to_owned(),
        kind: object.kind,
        method: method.to_owned(),
    })
}

/// The name the helper `summary` reads when `inv` calls it: each parameter part replaced by
/// the argument at its position or keyword, or by the parameter's literal default where the
/// call passes fewer arguments. `None` when an argument is missing or computed.
fn substitute(summary: &Summary, inv: &EnvInvocation) -> Option<Vec<NamePart>> {
    let mut out: Vec<NamePart> = Vec::new();
    for part in &summary.parts {
        match part {
            NamePart::Lit(s) => out.push(NamePart::Lit(s.clone())),
            NamePart::Param(i) => {
                let keyword = summary.params.get(usize::from(*i));
                let arg = inv.args.iter().find(|a| {
                    a.position == Some(*i) || (a.keyword.is_some() && a.keyword.as_ref() == keyword)
                });
                match arg {
                    Some(arg) => out.extend(arg.parts.iter().cloned()),
                    None if inv.arity.is_some_and(|n| *i >= n) => {
                        let default = summary.defaults.get(usize::from(*i))?.clone()?;
                        if !default.is_empty() && !names::env_like(&default) {
                            return None;
                        }
                        out.push(NamePart::Lit(default));
                    }
                    None => return None,
                }
            }
        }
    }
    // Adjacent literals are one.
    let mut merged: Vec<NamePart> = Vec::with_capacity(out.len());
    for part in out {
        match (merged.last_mut(), part) {
            (Some(NamePart::Lit(a)), NamePart::Lit(b)) => a.push_str(&b),
            (_, part) => merged.push(part),
        }
    }
    Some(merged)
}

/// An invocation whose arguments are literal names: the reads it reaches.
fn invocation(
    input: &LinkInput<'_>,
    summaries: &Summaries<'_>,
    file: &FileView<'_>,
    inv: &EnvInvocation,
    linked: &mut Linked,
) {
    // A call passing no literal name reads one only through a default (`new UrlSet(a, 3001)`).
    let by_default = inv.arity.is_some() && inv.args.is_empty();
    if !by_default && !inv.args.iter().any(|a| names::literal(&a.parts).is_some()) {
        return;
    }
    let Some(target) = resolve(input, summaries, file, &inv.callee) else { return };
    let location = SourceLocation::new(file.path.clone(), inv.line, inv.column);
    let provenance = |module: &RepoPath| {
        if module == file.path { Provenance::Syntax } else { Provenance::Resolver }
    };
    match target {
        Target::Function { key, module } => {
            if inv.member {
                return;
            }
            let mut seen: Vec<String> = Vec::new();
            for s in summaries.by_function.get(&key).into_iter().flatten() {
                let Some(name) = substitute(s, inv).and_then(|parts| names::literal(&parts)) else {
                    continue;
                };
                if name.is_empty() || seen.contains(&name) {
                    continue;
                }
                let mut through: Vec<&str> = s.via.iter().map(String::as_str).collect();
                through.push(&s.how);
                let evidence = format!(
                    "{} reads {name} through {} ({})",
                    inv.callee,
                    through.join(" and "),
                    s.site
                );
                seen.push(name.clone());
                Reading {
                    name: &name,
                    recogniser: super::wrappers::RECOGNISER,
                    evidence,
                    provenance: provenance(module),
                    confidence: Confidence::Likely,
                }
                .push(file.path, location.clone(), linked);
            }
        }
        Target::Object { module, name, kind, method } => {
            let read_name = match (kind, inv.member) {
                (ObjectKind::Environment, true) if method.is_empty() => first_literal(inv),
                (ObjectKind::DjangoEnv, false)
                    if super::django_environ::is_read_method(&method) =>
                {
                    inv.args
                        .iter()
                        .find(|a| a.position == Some(0) || a.keyword.as_deref() == Some("var"))
                        .and_then(|a| names::literal(&a.parts))
                }
                _ => None,
            };
            let Some(read_name) = read_name else { return };
            let holder = if name == "default" {
                format!("the default export of {}", module.as_str())
            } else {
                format!("{name} of {}", module.as_str())
            };
            let (evidence, recogniser) = match kind {
                ObjectKind::Environment => (
                    format!(
                        "{}.{read_name} reads {read_name} from the environment object {holder}",
                        inv.callee
                    ),
                    super::wrappers::RECOGNISER,
                ),
                ObjectKind::DjangoEnv => (
                    format!(
                        "django-environ {} reads {read_name} through the Env instance {holder}",
                        inv.callee
                    ),
                    super::django_environ::RECOGNISER,
                ),
            };
            Reading {
                name: &read_name,
                recogniser,
                evidence,
                provenance: provenance(module),
                confidence: Confidence::Likely,
            }
            .push(file.path, location, linked);
        }
    }
}

fn first_literal(inv: &EnvInvocation) -> Option<String> {
    inv.args.first().and_then(|a| names::literal(&a.parts))
}
