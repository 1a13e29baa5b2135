//! Forwarding helpers, link half: a route or mount written on a function's parameters is
//! placed at the calls of that function.
//!
//! `def register_view(bp_or_app, routes, view_func): for route in routes:
//! bp_or_app.add_url_rule(route, view_func=view_func)` declares nothing by itself; each call
//! `register_view(forum, routes=["/a", "/b"], view_func=Forum.as_view("forum"))` declares the
//! rule on `forum` for each of the paths, served by `Forum`'s methods. A parameter is followed
//! through the calls of its function ([`Sites`]), a loop variable through the sequence it
//! iterates, and a sequence through its items, its `+` operands and the names it is assigned
//! from, across modules and through several functions (`configure_blueprints(app,
//! blueprints)` called by `create_app(blueprints=None)` called with `blueprints=ALL`). A
//! function is called by its name, imported or local, as a module attribute, or as a method of
//! an instance whose class is in the tree; a call of a method through an attribute of an
//! object of the tree whose class is not known (a plugin hook: `pm.hook.load_blueprints(app=
//! app)`, keyword arguments only) reaches every function of that name, and what it places is at
//! most `likely`.

use std::collections::HashMap;

use cartograph_core::HttpMethod;

use crate::recognise::py_routes::{
    ArgValue, FunctionDecl, Invocation, Methods, PathExpr, PathPart, SeqItem,
};

use super::{FileIdx, Graph, Names, ObjId, object};

/// The most calls followed back from one parameter.
const MAX_DEPTH: usize = 8;

/// How a value reached a route or mount through calls: evidence steps, and whether a call was
/// matched by its function's name alone.
#[derive(Debug, Clone, Default)]
pub(super) struct Via {
    pub(super) steps: Vec<String>,
    pub(super) by_name: bool,
}

impl Via {}

/// One call of a function.
struct Site<'a> {
    file: FileIdx,
    call: &'a Invocation,
    /// 1 for a method called on an instance (its `self` is the receiver).
    offset: usize,
    by_name: bool,
}

/// The calls of every function of the tree that some invocation reaches.
pub(super) struct Sites<'a> {
    by_function: HashMap<(FileIdx, usize), Vec<Site<'a>>>,
}

/// A scope: the file and the index of a function in it.
pub(super) type Scope = (FileIdx, Option<u32>);

impl<'a> Sites<'a> {
    pub(super) fn new(names: &Names<'a>) -> Self {
        let mut by_function: HashMap<(FileIdx, usize), Vec<Site<'a>>> = HashMap::new();
        for file in names.python_files().filter(|f| !names.is_test_file(*f)) {
            let Some(facts) = names.facts(file) else { continue };
            for call in &facts.invocations {
                for (target, offset, by_name) in targets(names, file, call) {
                    let site = Site { file, call, offset, by_name };
                    by_function.entry(target).or_default().push(site);
                }
            }
        }
        Self { by_function }
    }

    fn function(names: &Names<'a>, (file, scope): Scope) -> Option<&'a FunctionDecl> {
        names.facts(file)?.functions.get(usize::try_from(scope?).ok()?)
    }

    /// The index of `name` among the parameters of the function of `scope`.
    fn param(names: &Names<'a>, scope: Scope, name: &str) -> Option<usize> {
        Self::function(names, scope)?.params.iter().position(|p| p == name)
    }

    /// The sequence a loop variable of `scope` iterates.
    fn loop_over(names: &Names<'a>, (file, scope): Scope, name: &str) -> Option<&'a str> {
        let facts = names.facts(file)?;
        facts.loops.iter().find(|l| l.var == name && l.scope == scope).map(|l| l.over.as_str())
    }

    /// True when `name` in `scope` is a parameter or a loop variable.
    pub(super) fn forwarded(names: &Names<'a>, scope: Scope, name: &str) -> bool {
        scope.1.is_some()
            && (Self::param(names, scope, name).is_some()
                || Self::loop_over(names, scope, name).is_some())
    }

    /// The argument each call of the function of `scope` gives its parameter `index`, with the
    /// call's scope and how it was reached.
    fn arguments(
        &self,
        names: &Names<'a>,
        scope: Scope,
        index: usize,
    ) -> Vec<(ArgValue, Scope, Via)> {
        let Some(function) = Self::function(names, scope) else { return Vec::new() };
        self.calls(names, scope)
            .into_iter()
            .filter_map(|(site, at, via)| Some((arg_at(site, function, index)?, at, via)))
            .collect()
    }

    /// The routing objects `name`, written in `scope`, may stand for.
    pub(super) fn objects(
        &self,
        names: &Names<'a>,
        graph: &Graph<'a>,
        scope: Scope,
        name: &str,
        depth: usize,
    ) -> Vec<(ObjId, Via)> {
        let mut out = Vec::new();
        if depth > MAX_DEPTH {
            return out;
        }
        let direct = || object(names, graph, scope.0, name).map(|o| (o, Via::default()));
        if let Some(index) = Self::param(names, scope, name) {
            // A parameter annotated with a framework class is that object itself.
            let typed = names
                .facts(scope.0)
                .is_some_and(|f| f.instances.iter().any(|i| i.parameter && i.name == name));
            if typed {
                return direct().into_iter().collect();
            }
            for (value, at, via) in self.arguments(names, scope, index) {
                if let ArgValue::Name(n) = value {
                    for (o, v) in self.objects(names, graph, at, &n, depth + 1) {
                        out.push((o, via.then_all(&v)));
                    }
                }
            }
            if out.is_empty() {
                out.extend(direct());
            }
        } else if let Some(over) = Self::loop_over(names, scope, name) {
            let mut seen = Vec::new();
            out = self.elements(names, graph, scope, over, depth + 1, &mut seen);
        } else {
            out.extend(direct());
        }
        dedup(out)
    }

    /// The routing objects a sequence `name`, written in `scope`, may hold.
    fn elements(
        &self,
        names: &Names<'a>,
        graph: &Graph<'a>,
        scope: Scope,
        name: &str,
        depth: usize,
        seen: &mut Vec<(Scope, String)>,
    ) -> Vec<(ObjId, Via)> {
        let mut out = Vec::new();
        if depth > MAX_DEPTH || seen.iter().any(|(s, n)| *s == scope && n == name) {
            return out;
        }
        seen.push((scope, name.to_owned()));
        let (file, function) = scope;
        let Some(facts) = names.facts(file) else { return out };
        let mut local = false;
        if let Some(index) = Self::param(names, scope, name) {
            local = true;
            for (value, at, via) in self.arguments(names, scope, index) {
                let found = match value {
                    ArgValue::Name(n) => self.elements(names, graph, at, &n, depth + 1, seen),
                    ArgValue::Items(items) => self.items(names, graph, at, &items, depth + 1, seen),
                    _ => Vec::new(),
                };
                out.extend(found.into_iter().map(|(o, v)| (o, via.then_all(&v))));
            }
        }
        for sequence in facts
            .sequences
            .iter()
            .filter(|s| s.name == name && (s.scope == function || s.scope.is_none()))
        {
            local = true;
            let at = (file, sequence.scope);
            out.extend(self.items(names, graph, at, &sequence.items, depth + 1, seen));
        }
        for alias in facts.aliases.iter().filter(|a| a.name == name && !a.call) {
            local = true;
            out.extend(self.elements(names, graph, scope, &alias.target, depth + 1, seen));
        }
        // A sequence imported from another module.
        if !local
            && let Some(path) = names.path(file)
            && let Some(binding) = names.input.binding(path, name)
            && let (Some(target), Some(member)) =
                (names.file_of(&binding.target), binding.member.as_deref())
        {
            out.extend(self.elements(names, graph, (target, None), member, depth + 1, seen));
        }
        out
    }

    fn items(
        &self,
        names: &Names<'a>,
        graph: &Graph<'a>,
        scope: Scope,
        items: &[SeqItem],
        depth: usize,
        seen: &mut Vec<(Scope, String)>,
    ) -> Vec<(ObjId, Via)> {
        let mut out = Vec::new();
        for item in items {
            match item {
                SeqItem::One(n) => out.extend(self.objects(names, graph, scope, n, depth)),
                SeqItem::All(n) => out.extend(self.elements(names, graph, scope, n, depth, seen)),
            }
        }
        out
    }

    /// The routes a route declared in a forwarding function stands for: the declaration's
    /// object, path and handler substituted, call by call, with what each call gives the
    /// parameters they name (through as many forwarding functions as lead there). Empty when no
    /// call of the function is found.
    pub(super) fn routes(&self, names: &Names<'a>, start: Pending) -> Vec<Pending> {
        let mut done = Vec::new();
        let mut work = vec![(start, 0)];
        while let Some((pending, depth)) = work.pop() {
            let scope = pending.scope;
            let param = |name: &str| Self::param(names, scope, name);
            let object_param =
                (pending.object.0 == scope).then(|| param(&pending.object.1)).flatten();
            let path_param = match &pending.path {
                PathSlot::Expr(s, expr) if *s == scope => match expr.parts.as_slice() {
                    [PathPart::Ref(n)] => param(n),
                    _ => None,
                },
                PathSlot::Each(s, n) if *s == scope => param(n),
                _ => None,
            };
            let handler_param = match &pending.handler {
                Some(HandlerSlot { scope: s, name, .. }) if *s == scope => param(name),
                _ => None,
            };
            if object_param.is_none() && path_param.is_none() && handler_param.is_none() {
                done.push(pending);
                continue;
            }
            if depth > MAX_DEPTH {
                continue;
            }
            for (site, at, via) in self.calls(names, scope) {
                let Some(function) = Self::function(names, scope) else { continue };
                let arg = |index: usize| arg_at(site, function, index);
                let mut next = Pending {
                    scope: at,
                    object: pending.object.clone(),
                    path: pending.path.clone(),
                    handler: pending.handler.clone(),
                    at: pending.at.or(Some((site.call.line, site.call.column))),
                    via: pending.via.then_all(&via),
                    extra: pending.extra.clone().or_else(|| extra_methods(site, function)),
                };
                if let Some(i) = object_param {
                    let Some(ArgValue::Name(n)) = arg(i) else { continue };
                    next.object = (at, n);
                }
                if let Some(i) = handler_param {
                    let class_based = pending.handler.as_ref().is_some_and(|h| h.class_based);
                    next.handler = match arg(i) {
                        Some(ArgValue::View(c)) => {
                            Some(HandlerSlot { scope: at, name: c, class_based: true })
                        }
                        Some(ArgValue::Name(n)) => {
                            Some(HandlerSlot { scope: at, name: n, class_based })
                        }
                        _ => continue,
                    };
                }
                let mut paths = vec![next.path.clone()];
                if let Some(i) = path_param {
                    paths = match (&pending.path, arg(i)) {
                        (PathSlot::Expr(..), Some(ArgValue::Path(p))) => {
                            vec![PathSlot::Expr(at, p)]
                        }
                        (PathSlot::Expr(..), Some(ArgValue::Name(n))) => {
                            vec![PathSlot::Expr(at, PathExpr { parts: vec![PathPart::Ref(n)] })]
                        }
                        (PathSlot::Each(..), Some(ArgValue::Paths(list))) => {
                            list.into_iter().map(|p| PathSlot::Expr(at, p)).collect()
                        }
                        (PathSlot::Each(..), Some(ArgValue::Name(n))) => {
                            vec![PathSlot::Each(at, n)]
                        }
                        _ => continue,
                    };
                }
                for path in paths {
                    let mut one = next.clone();
                    one.path = path;
                    work.push((one, depth + 1));
                }
            }
        }
        done
    }

    /// The calls of the function of `scope`: each with its own scope and how it reaches it.
    fn calls(&self, names: &Names<'a>, scope: Scope) -> Vec<(&Site<'a>, Scope, Via)> {
        let Some(function) = Self::function(names, scope) else { return Vec::new() };
        let key = scope.1.and_then(|s| usize::try_from(s).ok()).map(|s| (scope.0, s));
        let Some(sites) = key.and_then(|k| self.by_function.get(&k)) else { return Vec::new() };
        sites
            .iter()
            .map(|site| {
                let how = if site.by_name {
                    format!(
                        "passed to {} by a call of {} in {} on an object whose class is not known",
                        function.name,
                        site.call.callee,
                        names.path_str(site.file)
                    )
                } else {
                    format!("passed to {} in {}", function.name, names.path_str(site.file))
                };
                let via = Via { steps: vec![how], by_name: site.by_name };
                (site, (site.file, site.call.scope), via)
            })
            .collect()
    }
}

/// Where a route of a forwarding function reads its path: an expression, or each item of a
/// sequence (a loop variable's).
#[derive(Debug, Clone)]
pub(super) enum PathSlot {
    Expr(Scope, PathExpr),
    Each(Scope, String),
}

/// A route's handler as named in a scope.
#[derive(Debug, Clone)]
pub(super) struct HandlerSlot {
    pub(super) scope: Scope,
    pub(super) name: String,
    pub(super) class_based: bool,
}

/// A route of a forwarding function while its parameters are replaced by arguments.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    /// The function whose parameters are being replaced.
    pub(super) scope: Scope,
    pub(super) object: (Scope, String),
    pub(super) path: PathSlot,
    pub(super) handler: Option<HandlerSlot>,
    /// The outermost call that gave a value: where the route is placed.
    pub(super) at: Option<(u32, u32)>,
    pub(super) via: Via,
    /// What the arguments a call hands on through `*args` / `**kwargs` make of the methods:
    /// `methods=[...]` listed, or computed when they cannot be read.
    pub(super) extra: Option<Methods>,
}

impl Pending {
    /// A route declaration read in `scope`: a loop variable path becomes each item of its
    /// sequence.
    pub(super) fn new(
        names: &Names<'_>,
        scope: Scope,
        object: &str,
        path: &PathExpr,
        handler: Option<(&str, bool)>,
    ) -> Self {
        let path = match path.parts.as_slice() {
            [PathPart::Ref(n)] => match Sites::loop_over(names, scope, n) {
                Some(over) => PathSlot::Each(scope, over.to_owned()),
                None => PathSlot::Expr(scope, path.clone()),
            },
            _ => PathSlot::Expr(scope, path.clone()),
        };
        Self {
            scope,
            object: (scope, object.to_owned()),
            path,
            handler: handler.map(|(name, class_based)| HandlerSlot {
                scope,
                name: name.to_owned(),
                class_based,
            }),
            at: None,
            via: Via::default(),
            extra: None,
        }
    }
}

/// The methods a call hands on to a function that takes `*args` / `**kwargs`: `None` when it
/// hands on nothing (or the function takes no such parameters), the `methods=[...]` it lists,
/// or computed when it hands on what cannot be read.
fn extra_methods(site: &Site<'_>, function: &FunctionDecl) -> Option<Methods> {
    if !function.splat {
        return None;
    }
    let named = function.params.len().saturating_sub(site.offset);
    let positional = site.call.args.iter().filter(|a| a.keyword.is_none()).count();
    if site.call.splat || positional > named {
        return Some(Methods::Computed);
    }
    let extra = site.call.args.iter().find(|a| {
        a.keyword
            .as_deref()
            .is_some_and(|k| k == "methods" && !function.params.iter().any(|p| p == k))
    })?;
    let listed = match &extra.value {
        ArgValue::Paths(list) => list
            .iter()
            .map(|p| p.as_literal().and_then(|m| HttpMethod::parse(&m)))
            .collect::<Option<Vec<HttpMethod>>>(),
        _ => None,
    };
    Some(listed.filter(|l| !l.is_empty()).map_or(Methods::Computed, Methods::Listed))
}

/// The argument a call gives parameter `index` of `function`: by keyword, as the receiver of a
/// method call, or by position.
fn arg_at(site: &Site<'_>, function: &FunctionDecl, index: usize) -> Option<ArgValue> {
    let name = function.params.get(index).map(String::as_str);
    if let Some(a) =
        site.call.args.iter().find(|a| a.keyword.is_some() && a.keyword.as_deref() == name)
    {
        return Some(a.value.clone());
    }
    if index < site.offset {
        let (head, _) = site.call.callee.rsplit_once('.')?;
        return Some(ArgValue::Name(head.to_owned()));
    }
    site.call
        .args
        .iter()
        .filter(|a| a.keyword.is_none())
        .nth(index - site.offset)
        .map(|a| a.value.clone())
}

impl Via {
    fn then_all(&self, inner: &Via) -> Self {
        let mut out = self.clone();
        out.merge(inner);
        out
    }

    /// Adds the steps of `other` not already here.
    pub(super) fn merge(&mut self, other: &Via) {
        for step in &other.steps {
            if !self.steps.contains(step) {
                self.steps.push(step.clone());
            }
        }
        self.by_name |= other.by_name;
    }
}

fn dedup(list: Vec<(ObjId, Via)>) -> Vec<(ObjId, Via)> {
    let mut out: Vec<(ObjId, Via)> = Vec::new();
    for (o, v) in list {
        match out.iter_mut().find(|(p, _)| *p == o) {
            // The same object reached twice: the way with no call matched by name alone wins.
            Some(existing) if existing.1.by_name && !v.by_name => existing.1 = v,
            Some(_) => {}
            None => out.push((o, v)),
        }
    }
    out
}

/// The functions a call reaches: (file, function index), the argument offset, and whether the
/// function was matched by name alone.
fn targets(
    names: &Names<'_>,
    file: FileIdx,
    call: &Invocation,
) -> Vec<((FileIdx, usize), usize, bool)> {
    let functions_named = |f: FileIdx, name: &str, class: Option<&str>| -> Vec<(FileIdx, usize)> {
        names.facts(f).map_or_else(Vec::new, |facts| {
            facts
                .functions
                .iter()
                .enumerate()
                .filter(|(_, d)| d.name == name && d.class.as_deref() == class)
                .map(|(i, _)| (f, i))
                .collect()
        })
    };
    let Some((head, last)) = call.callee.rsplit_once('.') else {
        return follow(names, file, &call.callee)
            .into_iter()
            .flat_map(|(f, n)| functions_named(f, &n, None))
            .map(|t| (t, 0, false))
            .collect();
    };
    match names.resolve(file, head) {
        Some((super::Def::Module(m), rest)) if rest.is_empty() => follow(names, m, last)
            .into_iter()
            .flat_map(|(f, n)| functions_named(f, &n, None))
            .map(|t| (t, 0, false))
            .collect(),
        Some((super::Def::Instance(f, instance), rest)) if rest.is_empty() => {
            let lineage = names.lineage(f, &instance.class);
            let found: Vec<_> = lineage
                .classes
                .iter()
                .flat_map(|(cf, c)| functions_named(*cf, last, Some(&c.name)))
                .map(|t| (t, 1, false))
                .collect();
            found
        }
        // A method reached through an attribute of an object of the tree, whose class is not
        // known (`pm.hook.load_views(app=app)`): a plugin hook calls every implementation of
        // that name, with keyword arguments only. Never for a receiver from a package.
        resolved
            if head.contains('.')
                && in_tree_object(names, file, head, resolved.as_ref())
                && !call.args.is_empty()
                && call.args.iter().all(|a| a.keyword.is_some()) =>
        {
            names
                .python_files()
                .filter(|f| !names.is_test_file(*f))
                .flat_map(|f| functions_named(f, last, None))
                .map(|t| (t, 0, true))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// True when `head` (`pm.hook`) is an attribute of an object of the tree: an instance, or a name
/// imported from a module of the tree that Cartograph holds no facts about (its class unknown).
fn in_tree_object(
    names: &Names<'_>,
    file: FileIdx,
    head: &str,
    resolved: Option<&(super::Def<'_>, Vec<&str>)>,
) -> bool {
    match resolved {
        Some((super::Def::Instance(..), rest)) => !rest.is_empty(),
        Some(_) => false,
        None => {
            let root = head.split('.').next().unwrap_or(head);
            names
                .path(file)
                .and_then(|p| names.input.binding(p, root))
                .is_some_and(|b| b.member.is_some() && names.file_of(&b.target).is_some())
        }
    }
}

/// Where a function name written in `file` is defined: the file itself, or through imports.
fn follow(names: &Names<'_>, file: FileIdx, name: &str) -> Option<(FileIdx, String)> {
    let mut file = file;
    let mut name = name.to_owned();
    for _ in 0..super::super::MAX_HOPS {
        let facts = names.facts(file)?;
        if facts.functions.iter().any(|f| f.name == name && f.class.is_none()) {
            return Some((file, name));
        }
        let binding = names.input.binding(names.path(file)?, &name)?;
        let target = names.file_of(&binding.target)?;
        name = binding.member.as_deref()?.to_owned();
        file = target;
    }
    None
}
