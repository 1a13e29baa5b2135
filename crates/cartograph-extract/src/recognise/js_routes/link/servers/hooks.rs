//! Plugin registries: routers registered under a key are mounted wherever the registry's items
//! under that key are mounted (see `recognise::js_routes::hooks`).
//!
//! A registry and a key are the same in two files when they name the same declaration: the same
//! member of the same module through an import, the same name declared in the same file, or the
//! same string literal. Anything else is a different registry, so no router is placed under a
//! mount it may not reach.

use std::collections::BTreeMap;

use cartograph_core::{Refusal, RefusalKind, RepoPath};

use super::{Linker, MountEdge, ObjKey, Resolved, is_test_file};
use crate::recognise::js_routes::{HookQuery, HookValue};
use crate::recognise::link::BindingTarget;

/// One name registered under a (registry, key): the file that registers it, its path in the
/// item and the name.
type Registered<'a> = (&'a RepoPath, &'a str, &'a str);

impl<'a> Linker<'_, 'a> {
    /// Mounts the routers registered under a key at each mount of the registry's items.
    pub(super) fn collect_hook_mounts(&mut self) {
        let input = self.input;
        let files = || input.files.iter().filter(|f| !is_test_file(f.path));
        if files().all(|f| f.facts.js_routes.hook_mounts.is_empty()) {
            return;
        }
        let mut registered: BTreeMap<(String, String), Vec<Registered<'a>>> = BTreeMap::new();
        for view in files() {
            for registration in &view.facts.js_routes.hook_registrations {
                let registry =
                    self.canonical(view.path, &HookValue::Name(registration.registry.clone()));
                for (key_path, key) in &registration.properties {
                    if key_path.contains('.') {
                        continue;
                    }
                    let key = self.canonical(view.path, key);
                    for (path, value) in &registration.properties {
                        if let HookValue::Name(name) = value
                            && path != key_path
                        {
                            registered.entry((registry.clone(), key.clone())).or_default().push((
                                view.path,
                                path.as_str(),
                                name.as_str(),
                            ));
                        }
                    }
                }
            }
        }
        for view in files() {
            let file = view.path;
            for mount in &view.facts.js_routes.hook_mounts {
                let Some(parent) =
                    self.receiver_object(file, &mount.receiver, mount.line, mount.column)
                else {
                    continue;
                };
                let Some((queried_in, registry, key)) = self.query_of(file, &mount.query) else {
                    continue;
                };
                let key_text = match key {
                    HookValue::Name(n) => n.clone(),
                    HookValue::Literal(l) => format!("\"{l}\""),
                };
                let registry_text = registry;
                let registry = self.canonical(queried_in, &HookValue::Name(registry.to_owned()));
                let key = self.canonical(queried_in, key);
                let mut any = false;
                let items = registered.get(&(registry, key)).map(Vec::as_slice).unwrap_or_default();
                for (registered_in, path, name) in items {
                    if *path != mount.path {
                        continue;
                    }
                    let Resolved::Local(f, local) = self.resolve_name(registered_in, name) else {
                        continue;
                    };
                    let child = ObjKey { file: f, local, param: None };
                    if child == parent || !self.objects.contains_key(&child) {
                        continue;
                    }
                    any = true;
                    self.mounts.push(MountEdge {
                        parent: parent.clone(),
                        child,
                        prefix: mount.prefix.clone(),
                        file,
                        call: format!(
                            "{} of the items {} holds under {key_text} (registered in {registered_in})",
                            mount.call, registry_text
                        ),
                        line: mount.line,
                        column: mount.column,
                        unencapsulated: false,
                        autoloaded: false,
                    });
                }
                if !any {
                    self.refusals.push(Refusal::new(
                        RefusalKind::UnresolvedMount,
                        self.location(file, mount.line, mount.column),
                        format!(
                            "the items {registry_text} holds under {key_text} cannot be followed to a router registered in the tree",
                        ),
                    ));
                }
            }
        }
    }

    /// The file a mount's query is written in, its registry and its key: the mount's own, or
    /// those of the static getter it reads (`Helper.items`, followed through an import).
    fn query_of<'q>(
        &self,
        file: &'a RepoPath,
        query: &'q HookQuery,
    ) -> Option<(&'a RepoPath, &'q str, &'q HookValue)>
    where
        'a: 'q,
    {
        let (class, getter) = match query {
            HookQuery::Direct { registry, key } => return Some((file, registry, key)),
            HookQuery::Getter(name) => name.split_once('.')?,
        };
        if getter.contains('.') {
            return None;
        }
        let (declared_in, wanted) = match self.input.binding(file, class) {
            Some(binding) => match &binding.target {
                BindingTarget::Module(path) => (self.analysed(path)?, binding.member.as_deref()),
                BindingTarget::Package(_) => return None,
            },
            None => (file, None),
        };
        let view = self.input.file(declared_in)?;
        let found = view.facts.js_routes.hook_getters.iter().find(|g| {
            g.getter == getter
                && match wanted {
                    Some(member) => g.exported.as_deref() == Some(member),
                    None => declared_in == file && g.class == class,
                }
        })?;
        Some((declared_in, &found.registry, &found.key))
    }

    /// What a registry or key names, the same text in every file that names the same thing.
    fn canonical(&self, file: &RepoPath, value: &HookValue) -> String {
        let name = match value {
            HookValue::Literal(literal) => return format!("\"{literal}"),
            HookValue::Name(name) => name,
        };
        let (base, rest) = match name.split_once('.') {
            Some((b, r)) => (b, Some(r)),
            None => (name.as_str(), None),
        };
        let rest = rest.map(|r| format!(".{r}")).unwrap_or_default();
        match self.input.binding(file, base) {
            Some(binding) => {
                let target = match &binding.target {
                    BindingTarget::Module(path) => path.as_str(),
                    BindingTarget::Package(package) => &**package,
                };
                let member = binding.member.as_deref().unwrap_or("*");
                format!("{target}#{member}{rest}")
            }
            None => format!("{file}#{name}"),
        }
    }
}
