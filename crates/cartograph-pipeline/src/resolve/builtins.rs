//! Node.js built-in modules.
//!
//! [`NODE_BUILTINS`] is Node's `require("module").builtinModules` (Node 22/24), which Node resolves
//! with or without the `node:` prefix, and [`NODE_PREFIX_ONLY_BUILTINS`] the modules that exist
//! only with the prefix (`node:test`, `node:sqlite`, …). Imports of these are recognised as
//! built-ins and left out of the graph by default.

/// Node built-in module names resolvable without the `node:` prefix. Sorted, for binary search.
pub const NODE_BUILTINS: &[&str] = &[
    "_http_agent",
    "_http_client",
    "_http_common",
    "_http_incoming",
    "_http_outgoing",
    "_http_server",
    "_stream_duplex",
    "_stream_passthrough",
    "_stream_readable",
    "_stream_transform",
    "_stream_wrap",
    "_stream_writable",
    "_tls_common",
    "_tls_wrap",
    "assert",
    "assert/strict",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "dns/promises",
    "domain",
    "events",
    "fs",
    "fs/promises",
    "http",
    "http2",
    "https",
    "inspector",
    "inspector/promises",
    "module",
    "net",
    "os",
    "path",
    "path/posix",
    "path/win32",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "readline/promises",
    "repl",
    "stream",
    "stream/consumers",
    "stream/promises",
    "stream/web",
    "string_decoder",
    "sys",
    "timers",
    "timers/promises",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "util/types",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// Node built-in modules that exist only under the `node:` scheme. Sorted.
pub const NODE_PREFIX_ONLY_BUILTINS: &[&str] =
    &["sea", "sqlite", "test", "test/mock_loader", "test/reporters"];

/// True when `specifier` names a Node built-in: `fs`, `fs/promises`, `node:fs`, `node:test`. Any
/// `node:` specifier is a built-in: the scheme can name nothing else.
pub fn is_node_builtin(specifier: &str) -> bool {
    match specifier.strip_prefix("node:") {
        Some(_) => true,
        None => NODE_BUILTINS.binary_search(&specifier).is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_and_unique() {
        for list in [NODE_BUILTINS, NODE_PREFIX_ONLY_BUILTINS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn recognises_node_builtins() {
        for yes in
            ["fs", "fs/promises", "node:fs", "path", "node:test", "child_process", "util/types"]
        {
            assert!(is_node_builtin(yes), "{yes}");
        }
        for no in ["test", "fs/extra", "lodash", "react", "@types/node", "", "sqlite"] {
            assert!(!is_node_builtin(no), "{no}");
        }
    }
}
