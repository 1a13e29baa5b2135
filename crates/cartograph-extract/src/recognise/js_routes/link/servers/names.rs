//! Following a name to the app or router behind it: through import bindings, the other
//! module's exports, inline `require("./x")` specifiers and barrel re-exports, with a bound on
//! hops and on re-export steps so that cycles end.

use cartograph_core::RepoPath;

use super::{Linker, MAX_HOPS, MAX_STEPS, ObjKey, Resolved};
use crate::recognise::link::BindingTarget;
use crate::tree::{dir_of, join_normalised};

impl<'a> Linker<'_, 'a> {
    /// Follows a (dotted) name from `file` to the file and local name that declare it.
    pub(super) fn resolve_name(&self, file: &'a RepoPath, name: &str) -> Resolved<'a> {
        self.budget.set(MAX_STEPS);
        self.resolve_name_within(file, name, 0)
    }

    /// [`Self::resolve_name`], with the number of hops already taken (imports and re-exports can
    /// form cycles).
    pub(super) fn resolve_name_within(
        &self,
        file: &'a RepoPath,
        name: &str,
        hops: usize,
    ) -> Resolved<'a> {
        let mut file = file;
        let mut name = name.to_owned();
        for hop in hops..MAX_HOPS {
            let (base, rest) = match name.split_once('.') {
                Some((b, r)) => (b.to_owned(), Some(r.to_owned())),
                None => (name.clone(), None),
            };
            if rest.is_none() && self.declares(file, &base) {
                return Resolved::Local(file, base);
            }
            // `ctrl.auth` where `ctrl = autoload("./controllers")`: that folder's `auth` module.
            if let Some(member) = rest.as_deref().filter(|r| !r.contains('.'))
                && let Some((_, folder)) = self
                    .input
                    .file(file)
                    .and_then(|v| v.facts.js_routes.autoloads.iter().find(|(l, _)| *l == base))
            {
                return self.resolve_module_within(
                    file,
                    &format!("{folder}/{member}"),
                    None,
                    hop + 1,
                );
            }
            let Some(binding) = self.input.binding(file, &base) else {
                return if rest.is_none() {
                    Resolved::Local(file, base)
                } else {
                    Resolved::Unknown
                };
            };
            let target = match &binding.target {
                BindingTarget::Module(path) => path,
                BindingTarget::Package(_) => return Resolved::Package,
            };
            let member = match (&binding.member, rest) {
                (Some(m), None) => m.to_string(),
                (None, Some(r)) if !r.contains('.') => r,
                (None, None) => "default".to_owned(),
                _ => return Resolved::Unknown,
            };
            let Some(next) = self.analysed(target) else {
                return Resolved::Unknown;
            };
            match self.exports.get(next).and_then(|e| e.get(member.as_str())) {
                Some(local) => {
                    file = next;
                    name = (*local).to_owned();
                }
                None => return self.reexported(next, &member, hop + 1),
            }
        }
        Resolved::Unknown
    }

    /// `member` of `file` when `file` re-exports it from another module (a barrel file).
    pub(super) fn reexported(&self, file: &'a RepoPath, member: &str, hops: usize) -> Resolved<'a> {
        // Star re-exports branch; the budget bounds the whole search, cycles included.
        let left = self.budget.get();
        if hops >= MAX_HOPS || left == 0 {
            return Resolved::Unknown;
        }
        self.budget.set(left - 1);
        let Some(view) = self.input.file(file) else {
            return Resolved::Unknown;
        };
        let reexports = &view.facts.js_routes.reexports;
        if let Some(named) = reexports.iter().find(|r| r.exported.as_deref() == Some(member)) {
            return self.resolve_module_within(file, &named.specifier, Some(&named.imported), hops);
        }
        // `export * from "m"` never re-exports a default export.
        if member == "default" {
            return Resolved::Unknown;
        }
        for star in reexports.iter().filter(|r| r.exported.is_none()) {
            if let found @ Resolved::Local(..) =
                self.resolve_module_within(file, &star.specifier, Some(member), hops)
            {
                return found;
            }
        }
        Resolved::Unknown
    }

    /// The path of the analysed file at `path`, borrowed for the whole link.
    pub(super) fn analysed(&self, path: &RepoPath) -> Option<&'a RepoPath> {
        self.input.file(path).map(|v| v.path)
    }

    /// True when `file` declares an object (of any parameter index) under `local`.
    pub(super) fn declares(&self, file: &'a RepoPath, local: &str) -> bool {
        let start = ObjKey { file, local: local.to_owned(), param: None };
        self.objects.range(start..).next().is_some_and(|(k, _)| k.file == file && k.local == local)
    }

    /// `require("./x")` / `import("./x")` written inline: a relative specifier resolved against the
    /// tree with the usual extensions and index files.
    pub(super) fn resolve_module(
        &self,
        file: &'a RepoPath,
        specifier: &str,
        member: Option<&str>,
    ) -> Resolved<'a> {
        self.budget.set(MAX_STEPS);
        self.resolve_module_within(file, specifier, member, 0)
    }

    pub(super) fn resolve_module_within(
        &self,
        file: &'a RepoPath,
        specifier: &str,
        member: Option<&str>,
        hops: usize,
    ) -> Resolved<'a> {
        if !(specifier.starts_with("./") || specifier.starts_with("../")) {
            return Resolved::Package;
        }
        let Some(base) = join_normalised(&dir_of(file), specifier) else {
            return Resolved::Unknown;
        };
        const SUFFIXES: &[&str] = &[
            "",
            ".js",
            ".ts",
            ".mjs",
            ".cjs",
            ".jsx",
            ".tsx",
            "/index.js",
            "/index.ts",
            "/index.mjs",
            "/index.cjs",
        ];
        let found = SUFFIXES.iter().find_map(|s| {
            let candidate = format!("{base}{s}");
            let path = RepoPath::new(&candidate).ok()?;
            self.input.index.is_file(&candidate).then_some(())?;
            self.analysed(&path)
        });
        let Some(next) = found else {
            return Resolved::Unknown;
        };
        let member = member.unwrap_or("default");
        match self.exports.get(next).and_then(|e| e.get(member)) {
            Some(local) => self.resolve_name_within(next, local, hops + 1),
            None => self.reexported(next, member, hops + 1),
        }
    }
}
