//! The client libraries a file imports, and under which local names: `import axios from
//! "axios"`, `import requests`, `from httpx import AsyncClient`, Angular's `HttpClient`, and every
//! other imported name (a possible client instance from another module).
//!
//! Not a recogniser: read once per file from its import facts, on first use by the walk.

use std::collections::HashSet;

use super::{aiohttp, axios, hono_rpc, httpx, ky, requests};
use crate::{FileFacts, ImportTarget, Imported};

/// The local names under which the file imports each client library.
#[derive(Debug, Default)]
pub(super) struct Libraries {
    pub(super) axios: HashSet<String>,
    pub(super) ky: HashSet<String>,
    pub(super) requests: HashSet<String>,
    pub(super) httpx: HashSet<String>,
    pub(super) aiohttp: HashSet<String>,
    /// Locals bound to a client class (`from httpx import AsyncClient`), with their library.
    pub(super) constructors: Vec<(String, &'static str)>,
    /// The local name of Angular's `HttpClient` type.
    pub(super) http_client: HashSet<String>,
    /// Every other local an import binds.
    pub(super) imported: HashSet<String>,
    /// Locals bound to a whole module of the project (`import app.http as http`).
    pub(super) imported_modules: HashSet<String>,
    /// Both of the above: names whose values another module holds.
    pub(super) importing: HashSet<String>,
    /// Locals bound to SWR's fetching hooks (`useSWR`).
    pub(super) swr: HashSet<String>,
    /// How many of the file's imports these were read from: the recognisers' walk reads some of
    /// Python's imports on its way (`recognise::Imports::Inside`), after which these are read
    /// again.
    imports_read: usize,
}

impl Libraries {
    pub(super) fn of(facts: &FileFacts) -> Self {
        let mut libs = Libraries { imports_read: facts.imports.len(), ..Libraries::default() };
        for import in &facts.imports {
            let module = match &import.target {
                ImportTarget::Js(js) => js.specifier.as_str(),
                ImportTarget::Python(py) if py.level == 0 => py.module.as_deref().unwrap_or(""),
                ImportTarget::Python(_) | ImportTarget::Rust(_) => "",
            };
            // Conventional names, for imports whose bindings were not recorded.
            match module {
                "axios" | "ky" | "requests" | "httpx" | "aiohttp" if import.bindings.is_empty() => {
                    let name = module.to_owned();
                    if let Some(set) = libs.handle_mut(module) {
                        set.insert(name);
                    }
                }
                "@angular/common/http" if import.bindings.is_empty() => {
                    libs.http_client.insert("HttpClient".to_owned());
                }
                _ => {}
            }
            let library = library_of(module);
            if matches!(module, "swr" | "swr/immutable") {
                for binding in &import.bindings {
                    let name = match &binding.imported {
                        Imported::Default => "default",
                        Imported::Name(n) => n.as_str(),
                        Imported::Module => continue,
                    };
                    if super::swr::HOOKS.contains(&name) {
                        libs.swr.insert(binding.local.clone());
                    }
                }
                continue;
            }
            for binding in &import.bindings {
                match (&binding.imported, library) {
                    (Imported::Module | Imported::Default, Some(_)) => {
                        if let Some(set) = libs.handle_mut(module) {
                            set.insert(binding.local.clone());
                        }
                    }
                    (Imported::Name(n), _) if module == "@angular/common/http" => {
                        if n == "HttpClient" {
                            libs.http_client.insert(binding.local.clone());
                        }
                    }
                    (Imported::Name(n), Some(lib)) => {
                        if is_constructor(lib, n) {
                            libs.constructors.push((binding.local.clone(), lib));
                        }
                    }
                    (Imported::Module, None) => {
                        // `import app.http as http` / `import * as api from "./api"`: a
                        // receiver `http.client` may name an instance there. A top-level module
                        // (`import os`) is a library, whose members are not our instances.
                        let local_module = match &import.target {
                            ImportTarget::Python(py) => py.level > 0 || module.contains('.'),
                            ImportTarget::Js(js) => js.specifier.starts_with('.'),
                            ImportTarget::Rust(_) => false,
                        };
                        if local_module {
                            libs.imported_modules.insert(binding.local.clone());
                        }
                    }
                    (_, None) => {
                        libs.imported.insert(binding.local.clone());
                    }
                }
            }
        }
        libs.importing = libs.imported.union(&libs.imported_modules).cloned().collect();
        libs
    }

    fn handle_mut(&mut self, module: &str) -> Option<&mut HashSet<String>> {
        match module {
            "axios" => Some(&mut self.axios),
            "ky" | "ky-universal" => Some(&mut self.ky),
            "requests" => Some(&mut self.requests),
            "httpx" => Some(&mut self.httpx),
            "aiohttp" => Some(&mut self.aiohttp),
            _ => None,
        }
    }

    /// The library a handle name stands for (`axios` → `axios`).
    pub(super) fn library_of_handle(&self, name: &str) -> Option<&'static str> {
        [
            (&self.axios, "axios"),
            (&self.ky, "ky"),
            (&self.requests, "requests"),
            (&self.httpx, "httpx"),
            (&self.aiohttp, "aiohttp"),
        ]
        .into_iter()
        .find(|(set, _)| set.contains(name))
        .map(|(_, lib)| lib)
    }

    /// The library whose client class `callee` constructs (`httpx.AsyncClient`, `Session`,
    /// `axios.create`, `ky.extend`).
    pub(super) fn constructed_by(&self, callee: &str) -> Option<&'static str> {
        if let Some((_, lib)) = self.constructors.iter().find(|(local, _)| local == callee) {
            return Some(lib);
        }
        let (handle, member) = callee.rsplit_once('.')?;
        let lib = self.library_of_handle(handle)?;
        is_constructor(lib, member).then_some(lib)
    }
}

fn library_of(module: &str) -> Option<&'static str> {
    match module {
        "axios" => Some("axios"),
        "ky" | "ky-universal" => Some("ky"),
        "requests" => Some("requests"),
        "httpx" => Some("httpx"),
        "aiohttp" => Some("aiohttp"),
        "hono/client" => Some(hono_rpc::LIBRARY),
        _ => None,
    }
}

pub(super) fn is_constructor(library: &str, member: &str) -> bool {
    match library {
        "axios" => axios::CONSTRUCTORS.contains(&member),
        "ky" => ky::CONSTRUCTORS.contains(&member),
        "requests" => requests::CONSTRUCTORS.contains(&member),
        "httpx" => httpx::CONSTRUCTORS.contains(&member),
        "aiohttp" => aiohttp::CONSTRUCTORS.contains(&member),
        hono_rpc::LIBRARY => hono_rpc::CONSTRUCTORS.contains(&member),
        _ => false,
    }
}

/// The file's libraries, read from its imports on first use.
pub(super) fn libs_of<'a>(slot: &'a mut Option<Libraries>, facts: &FileFacts) -> &'a Libraries {
    if slot.as_ref().is_some_and(|libs| libs.imports_read != facts.imports.len()) {
        *slot = None;
    }
    slot.get_or_insert_with(|| Libraries::of(facts))
}
