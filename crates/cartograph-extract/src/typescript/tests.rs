//! Data-driven tests of TS/JS import extraction: one `check(source, grammar, expected)` helper.

use cartograph_core::{RefusalKind, RepoPath};

use crate::{Extractor, Grammar, ImportForm, ImportTarget};

/// Extracts `source` and compares the imports and dynamic-import refusals, each rendered as
/// `line:column form[ type] specifier` or `line:column refused: reason`.
fn check(source: &str, grammar: Grammar, expected: &[&str]) {
    let got = render(source, grammar);
    assert_eq!(got, expected, "source:\n{source}");
}

fn render(source: &str, grammar: Grammar) -> Vec<String> {
    let name = match grammar {
        Ts => "src/a.ts",
        Tsx => "src/a.tsx",
        Js => "src/a.js",
        Grammar::Python => "src/a.py",
        Grammar::Rust => "src/a.rs",
    };
    let path = RepoPath::new(name).unwrap();
    let facts = Extractor::new().extract(&path, grammar, source);
    let mut lines = Vec::new();
    for import in &facts.imports {
        let ImportTarget::Js(js) = &import.target else {
            panic!("a TS/JS file yielded a non-JS import");
        };
        let form = match js.form {
            ImportForm::Static => "static",
            ImportForm::ReExport => "reexport",
            ImportForm::Require => "require",
            ImportForm::Dynamic => "dynamic",
        };
        let ty = if import.type_only { " type" } else { "" };
        lines.push(format!("{}:{} {form}{ty} {}", import.line, import.column, js.specifier));
    }
    for refusal in facts.refusals.iter().filter(|r| r.kind == RefusalKind::DynamicImport) {
        let at = &refusal.location;
        lines.push(format!("{}:{} refused: {}", at.line, at.column, refusal.reason));
    }
    lines
}

use Grammar::{JavaScript as Js, Tsx, TypeScript as Ts};

#[test]
fn static_imports() {
    for g in [Ts, Tsx, Js] {
        check(
            "import x from \"a\";\nimport {b, c as d} from 'b';\nimport * as n from \"c\";\nimport \"d\";\nimport e, * as f from \"e\";\nimport j from \"./x.json\" with { type: \"json\" };\n",
            g,
            &[
                "1:1 static a",
                "2:1 static b",
                "3:1 static c",
                "4:1 static d",
                "5:1 static e",
                "6:1 static ./x.json",
            ],
        );
    }
}

#[test]
fn re_exports() {
    for g in [Ts, Tsx, Js] {
        check(
            "export {a} from \"a\";\nexport * from \"b\";\nexport * as n from \"c\";\nexport { default } from \"d\";\nexport const x = 1;\nexport {x as y};\n",
            g,
            &["1:1 reexport a", "2:1 reexport b", "3:1 reexport c", "4:1 reexport d"],
        );
    }
}

#[test]
fn type_only_imports_and_exports() {
    for g in [Ts, Tsx] {
        check(
            concat!(
                "import type {A} from \"a\";\n",
                "import type B from \"b\";\n",
                "import {type C, type D as E} from \"c\";\n",
                "import F, {type G} from \"d\";\n",
                "import {type H, I} from \"e\";\n",
                "import type from \"f\";\n",
                "import {} from \"g\";\n",
                "export type {A} from \"h\";\n",
                "export {type A, type B} from \"i\";\n",
                "export {type A, B} from \"j\";\n",
                "export type * from \"./a\";\n",
                "export type * as T from \"k\";\n",
                "let x: typeof import(\"l\");\n",
                "type Y = import(\"m\").T;\n",
            ),
            g,
            &[
                "1:1 static type a",
                "2:1 static type b",
                "3:1 static type c",
                "4:1 static d",
                "5:1 static e",
                "6:1 static f",
                "7:1 static g",
                "8:1 reexport type h",
                "9:1 reexport type i",
                "10:1 reexport j",
                "11:1 reexport type ./a",
                "12:1 reexport type k",
                "13:15 static type l",
                "14:10 static type m",
            ],
        );
    }
}

#[test]
fn import_require_clauses() {
    check(
        "import x = require(\"a\");\nimport type y = require(\"b\");\nexport import z = require(\"c\");\nimport w = N.M;\n",
        Ts,
        &["1:1 static a", "2:1 static type b", "3:1 static c"],
    );
}

#[test]
fn require_and_dynamic_import_calls() {
    for g in [Ts, Tsx, Js] {
        check(
            concat!(
                "const a = require(\"a\");\n",
                "const b = require(`b`);\n",
                "const c = await import(\"c\");\n",
                "import(\"d\", { with: { type: \"json\" } });\n",
                "require(/* why */ \"e\");\n",
                "function f() { if (x) { return () => require(\"f\"); } }\n",
            ),
            g,
            &[
                "1:11 require a",
                "2:11 require b",
                "3:17 dynamic c",
                "4:1 dynamic d",
                "5:1 require e",
                "6:38 require f",
            ],
        );
    }
}

#[test]
fn computed_specifiers_are_refused() {
    for g in [Ts, Tsx, Js] {
        check(
            "const a = require(name);\nconst b = import(`./${x}`);\nrequire(\"a\" + b);\nconst c = require(`c${d}`);\nrequire(...args);\n",
            g,
            &[
                "1:11 refused: require with a computed argument",
                "2:11 refused: dynamic import with a computed specifier",
                "3:1 refused: require with a computed argument",
                "4:11 refused: require with a computed argument",
                "5:1 refused: require with a computed argument",
            ],
        );
    }
}

#[test]
fn things_that_are_not_imports() {
    for g in [Ts, Tsx, Js] {
        check(
            concat!(
                "module.require(\"a\");\n",
                "require.resolve(\"b\");\n",
                "const r = require;\n",
                "require();\n",
                "x.import(\"c\");\n",
                "const u = import.meta.url;\n",
                "const s = \"import x from 'd'\";\n",
                "// import y from \"e\"\n",
                "require`f`;\n",
            ),
            g,
            &[],
        );
    }
}

#[test]
fn jsx_files() {
    check(
        "import React from \"react\";\nconst App = () => <div onClick={() => import(\"./lazy\")}>{require(\"./icon.svg\")}</div>;\n",
        Js,
        &["1:1 static react", "2:39 dynamic ./lazy", "2:58 require ./icon.svg"],
    );
    check(
        "import React from \"react\";\nimport type {P} from \"./p\";\nexport const App = (p: P) => <div>{p.x}</div>;\nconst L = lazy(() => import(\"./page\"));\n",
        Tsx,
        &["1:1 static react", "2:1 static type ./p", "4:22 dynamic ./page"],
    );
}

#[test]
fn nested_scopes_and_ambient_modules() {
    check(
        "declare module \"foo\" {\n  import x = require(\"bar\");\n  export * from \"baz\";\n}\nnamespace N { const y = require(\"q\"); }\nclass C { m() { return import(\"r\"); } }\n",
        Ts,
        &["2:3 static bar", "3:3 reexport baz", "5:25 require q", "6:24 dynamic r"],
    );
}

#[test]
fn syntax_errors_keep_the_sound_imports() {
    // Variance modifiers, `accessor`, and a broken function header around sound imports.
    check(
        concat!(
            "import {a} from \"a\";\n",
            "type T<in out A> = A;\n",
            "import {b} from \"b\";\n",
            "abstract class K { abstract accessor x: number }\n",
            "const = = ;\n",
            "import c from \"c\";\n",
            "function f( {\n",
            "import d from \"d\"\n",
            "}\n",
            "export type * from \"e\"\n",
            "import \"f\"\n",
            "const g = require(\"g\");\n",
        ),
        Ts,
        &[
            "1:1 static a",
            "3:1 static b",
            "6:1 static c",
            "8:1 static d",
            "10:1 reexport type e",
            "11:1 static f",
            "12:11 require g",
        ],
    );
    check(
        "import x from \"x\";\nconst a = {{{ ;\nimport y from \"y\";\nexport {z} from \"z\";\n",
        Js,
        &["1:1 static x", "3:1 static y", "4:1 reexport z"],
    );
}

#[test]
fn imports_found_in_error_regions_are_not_counted_twice() {
    let source = "function f( {\nimport a from \"a\";\nexport * from \"b\";\nrequire(\"c\");\n";
    let got = render(source, Ts);
    for spec in ["a", "b", "c"] {
        let n = got.iter().filter(|l| l.ends_with(&format!(" {spec}"))).count();
        assert_eq!(n, 1, "{spec} in {got:?}");
    }
}

#[test]
fn deeply_nested_expressions_do_not_overflow() {
    let depth = 5_000;
    let mut source = String::from("import a from \"a\";\nconst x = ");
    source.push_str(&"(".repeat(depth));
    source.push_str("require(\"deep\")");
    source.push_str(&")".repeat(depth));
    source.push_str(";\nconst y = ");
    source.push_str(&"[".repeat(depth));
    source.push_str(&"]".repeat(depth));
    source.push_str(";\n");
    for g in [Ts, Js] {
        let got = render(&source, g);
        assert_eq!(got.first().map(String::as_str), Some("1:1 static a"));
        assert!(got.iter().any(|l| l.ends_with("require deep")), "{got:?}");
    }
}

#[test]
fn garbage_never_panics() {
    // Fragments that stress the tree walk and the error-region scanner, shuffled by a small
    // deterministic generator.
    const PIECES: &[&str] = &[
        "import",
        "export",
        "require",
        "type",
        "from",
        "as",
        "*",
        "{",
        "}",
        "(",
        ")",
        ",",
        ";",
        "=",
        "\"m\"",
        "'é'",
        "`t${x}`",
        "`",
        "\"",
        "'",
        "\\",
        "/*",
        "*/",
        "//",
        "\n",
        " ",
        "é",
        "<",
        ">",
        "typeof",
        ".",
        "x",
        "<in out T>",
        "import(",
        "require(",
        "#",
        "@",
        "\u{feff}",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..300 {
        let mut source = String::new();
        for _ in 0..60 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            source.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
            source.push(' ');
        }
        for g in [Ts, Tsx, Js] {
            let _ = render(&source, g);
        }
        let _ = super::error_scan::scan(&source);
    }
}

/// Extracts `source` and renders each import's bindings as `specifier: local=imported`, where
/// `imported` is `*` for the module, `default`, or the member name.
fn check_bindings(source: &str, grammar: Grammar, expected: &[&str]) {
    let path = RepoPath::new("src/a.ts").unwrap();
    let facts = Extractor::new().extract(&path, grammar, source);
    let mut got = Vec::new();
    for import in &facts.imports {
        let ImportTarget::Js(js) = &import.target else {
            panic!("a TS/JS file yielded a non-JS import");
        };
        let rendered: Vec<String> = import
            .bindings
            .iter()
            .map(|b| {
                let imported = match &b.imported {
                    crate::Imported::Module => "*".to_string(),
                    crate::Imported::Default => "default".to_string(),
                    crate::Imported::Name(n) => n.clone(),
                };
                format!("{}={imported}", b.local)
            })
            .collect();
        got.push(format!("{}: {}", js.specifier, rendered.join(" ")));
    }
    assert_eq!(got, expected, "source:\n{source}");
}

#[test]
fn import_bindings() {
    for g in [Ts, Tsx, Js] {
        check_bindings(
            concat!(
                "import x from \"a\";\n",
                "import {a, b as c} from \"b\";\n",
                "import * as ns from \"c\";\n",
                "import y, {z} from \"d\";\n",
                "import w, * as all from \"e\";\n",
                "import \"f\";\n",
                "export {q} from \"g\";\n",
                "export * as r from \"h\";\n",
            ),
            g,
            &[
                "a: x=default",
                "b: a=a c=b",
                "c: ns=*",
                "d: y=default z=z",
                "e: w=default all=*",
                "f: ",
                "g: ",
                "h: ",
            ],
        );
    }
}

#[test]
fn require_bindings() {
    for g in [Ts, Tsx, Js] {
        check_bindings(
            concat!(
                "const x = require(\"a\");\n",
                "const {a, b: c} = require(\"b\");\n",
                "let Router = require(\"express\").Router;\n",
                "var d = require(\"d\").default;\n",
                "require(\"e\");\n",
                "foo(require(\"f\"));\n",
                "const {g: {h}, ...rest} = require(\"g\");\n",
                "const [i] = require(\"i\");\n",
            ),
            g,
            &[
                "a: x=*",
                "b: a=a c=b",
                "express: Router=Router",
                "d: d=default",
                "e: ",
                "f: ",
                "g: ",
                "i: ",
            ],
        );
    }
}

#[test]
fn import_require_clause_bindings() {
    check_bindings(
        "import x = require(\"a\");\nexport import y = require(\"b\");\nimport type {T} from \"c\";\n",
        Ts,
        &["a: x=*", "b: y=*", "c: T=T"],
    );
}

#[test]
fn statement_walk_finds_imports_in_namespaces_and_ambient_modules() {
    // No `require(` or `import(` here, so the walk stays on statements: imports nested in
    // namespaces and ambient module declarations must still be found, and deep expressions
    // skipped.
    check(
        "import a from \"a\";\nconst big = f(g(h({ x: [1, 2, { y: \"import z from 'no'\" }] })));\ndeclare module \"m\" {\n  import b from \"b\";\n  export * from \"c\";\n}\nnamespace N {\n  export import d = D;\n}\nexport { e } from \"e\";\n",
        Ts,
        &["1:1 static a", "4:3 static b", "5:3 reexport c", "10:1 reexport e"],
    );
}
