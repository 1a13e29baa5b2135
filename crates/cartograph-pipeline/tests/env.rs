//! Environment variable reads through `analyse_tree`: `reads_env` edges to `env_var` nodes, and
//! computed names refused; no value ever reaches the analysis.

use cartograph_core::{EdgeKind, NodeKind, RefusalKind};
use cartograph_pipeline::Analysis;

use crate::common;

use common::analyse_files as analyse;

fn env_edges(analysis: &Analysis) -> Vec<String> {
    analysis
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::ReadsEnv)
        .map(|e| {
            format!(
                "{} -> {} {}/{}",
                e.from.name(),
                e.to.name(),
                e.provenance.as_str(),
                e.confidence.as_str()
            )
        })
        .collect()
}

#[test]
fn reads_in_python_and_typescript() {
    let config = r#"
import os
from pydantic_settings import BaseSettings, SettingsConfigDict

class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_")
    database_url: str = "postgres://user:hunter2@db/app"

SECRET_KEY = os.environ.get("SECRET_KEY", "hunter2")
DEBUG = os.getenv("DEBUG") == "1"
"#;
    let worker =
        "import os\n\ndef run(name):\n    return os.environ[\"SECRET_KEY\"], os.environ[name]\n";
    let web = "const api = import.meta.env.VITE_API_URL;\nconst { PORT = \"hunter2\" } = process.env;\nexport const key = (k: string) => process.env[k];\n";
    let analysis =
        analyse(&[("app/config.py", config), ("app/worker.py", worker), ("web/src/env.ts", web)]);
    assert_eq!(
        env_edges(&analysis),
        [
            "app/config.py -> APP_DATABASE_URL convention/likely",
            "app/config.py -> DEBUG syntax/certain",
            "app/config.py -> SECRET_KEY syntax/certain",
            "app/worker.py -> SECRET_KEY syntax/certain",
            "web/src/env.ts -> PORT syntax/certain",
            "web/src/env.ts -> VITE_API_URL syntax/certain",
        ]
    );
    let vars: Vec<&str> = analysis
        .nodes
        .iter()
        .filter(|n| n.key.kind() == NodeKind::EnvVar)
        .map(|n| n.key.name())
        .collect();
    assert_eq!(vars, ["APP_DATABASE_URL", "DEBUG", "PORT", "SECRET_KEY", "VITE_API_URL"]);
    let refused: Vec<(String, u32)> = analysis
        .refusals
        .iter()
        .filter(|r| r.kind == RefusalKind::ComputedEnvKey)
        .map(|r| (r.location.path.as_str().to_owned(), r.location.line))
        .collect();
    assert_eq!(refused, [("app/worker.py".to_owned(), 4), ("web/src/env.ts".to_owned(), 3)]);
    // Values never appear: not in evidence, not in refusal reasons, not in node names.
    let everything = format!("{:?}{:?}{:?}", analysis.edges, analysis.refusals, analysis.nodes);
    assert!(!everything.contains("hunter2"));
    let evidence = analysis
        .edges
        .iter()
        .find(|e| e.to.name() == "APP_DATABASE_URL")
        .map(|e| e.evidence.as_str().to_owned());
    assert_eq!(
        evidence.as_deref(),
        Some(
            "pydantic settings field database_url of Settings reads APP_DATABASE_URL (env_prefix APP_)"
        )
    );
}

fn env_evidence(analysis: &Analysis) -> Vec<String> {
    let evidence =
        analysis.edges.iter().filter(|e| e.kind == EdgeKind::ReadsEnv).map(|e| e.evidence.as_str());
    env_edges(analysis)
        .into_iter()
        .zip(evidence)
        .map(|(edge, evidence)| format!("{edge}: {evidence}"))
        .collect()
}

#[test]
fn helpers_that_wrap_a_read_are_joined_across_modules() {
    let helpers = r#"
import os

def get_bool_from_env(key, default="0"):
    return os.getenv(key, default).lower() in ("1", "true")

def get_path_from_env(key, default=None):
    return os.environ.get(f"{key}_FILE") or os.environ.get(key, default)

def get_strict(key):
    return get_bool_from_env(key, "0")
"#;
    let init = "from .helpers import get_bool_from_env, get_strict\n";
    let settings = r#"
from app.conf import get_bool_from_env, get_strict
from app.conf.helpers import get_path_from_env

DEBUG = get_bool_from_env("APP_DEBUG")
MEDIA = get_path_from_env("APP_MEDIA_ROOT")
STRICT = get_strict("APP_STRICT")
COMPUTED = get_bool_from_env(name)
"#;
    let base = "import environ\n\nenv = environ.Env()\n";
    let production =
        "from .base import env\n\nDSN = env(\"SENTRY_DSN\")\nEAGER = env.bool(\"CELERY_EAGER\")\n";
    let envts = "export const env = (variable: string) => process?.env?.[variable];\nexport const requireEnv = (variable: string) => env(variable) ?? fail();\nexport default process.env;\n";
    let mailer = "import { env, requireEnv } from \"../lib/env\";\nimport environment from \"../lib/env\";\nconst host = env(\"SMTP_HOST\");\nconst user = requireEnv(\"SMTP_USER\");\nconst port = environment.SMTP_PORT;\n";
    let analysis = analyse(&[
        ("app/conf/helpers.py", helpers),
        ("app/conf/__init__.py", init),
        ("app/config.py", settings),
        ("app/settings/base.py", base),
        ("app/settings/production.py", production),
        ("web/lib/env.ts", envts),
        ("web/mail/mailer.ts", mailer),
    ]);
    insta::assert_snapshot!(env_evidence(&analysis).join("\n"));
}

/// A class whose field initialisers read through its constructor's parameter properties is a
/// helper called by `new`: the prefix comes from the caller, or from the parameter's default
/// when the caller leaves it out. A computed prefix, a spread, a plain (non-property) parameter
/// and a static field read nothing. (Like every helper's caller, the calling module is read for
/// environment reads only when it names the environment somewhere: here `process.env`.)
#[test]
fn classes_whose_fields_read_through_constructor_properties() {
    let urls = r#"
import { getEnv } from "@silverhand/essentials";
export default class Endpoints {
  public readonly disabled = getEnv(this.envPrefix + "DISABLE");
  readonly #port = Number(getEnv(`${this.envPrefix}PORT`) || this.fallback);
  readonly other = getEnv(this.plain + "OTHER");
  static shared = getEnv(this.envPrefix + "STATIC");
  constructor(
    public readonly secure: boolean,
    protected readonly fallback: number,
    plain: string,
    protected readonly envPrefix = ""
  ) {}
}
"#;
    let values = r#"
import Endpoints from "./Endpoints";
export class Values {
  public readonly mode = process.env.NODE_ENV;
  public readonly main = new Endpoints(true, 3001, "x");
  public readonly admin = new Endpoints(true, 3002, "x", "ADMIN_");
  public readonly odd = new Endpoints(true, 3003, "x", prefix);
  public readonly spread = new Endpoints(...args);
}
"#;
    let analysis = analyse(&[("lib/env/Endpoints.ts", urls), ("lib/env/Values.ts", values)]);
    assert_eq!(
        env_edges(&analysis),
        [
            "lib/env/Values.ts -> ADMIN_DISABLE resolver/likely",
            "lib/env/Values.ts -> ADMIN_PORT resolver/likely",
            "lib/env/Values.ts -> DISABLE resolver/likely",
            "lib/env/Values.ts -> NODE_ENV syntax/certain",
            "lib/env/Values.ts -> PORT resolver/likely",
        ]
    );
    let evidence = env_evidence(&analysis);
    assert!(
        evidence.iter().any(|e| e.contains(
            "Endpoints reads ADMIN_PORT through getEnv (@silverhand/essentials) (lib/env/Endpoints.ts:5)"
        )),
        "{evidence:#?}"
    );
}

/// The keys of a Next.js config's `env` object are inlined by Next.js from the config at build
/// time: in the app's modules `process.env.KEY` reads no environment variable (a destructuring
/// of `process.env` is not replaced, so it still does). The config's own reads are, and a key
/// whose value reads the variable of the same name stays that variable.
#[test]
fn next_config_env_keys_are_no_environment_variables() {
    let config = "const basePath = process.env.BASE_PATH || '';\nmodule.exports = {\n  env: {\n    basePath,\n    cloudMode: process.env.CLOUD_MODE ? '1' : '',\n    API_URL: process.env.API_URL,\n  },\n};\n";
    let page = "export const a = process.env.basePath;\nconst { cloudMode } = process.env;\nexport const b = process.env.API_URL + process.env.OTHER + cloudMode;\n";
    let outside = "export const c = process.env.basePath;\n";
    let analysis = analyse(&[
        ("web/next.config.js", config),
        ("web/src/app/page.tsx", page),
        ("tools/cli.ts", outside),
    ]);
    assert_eq!(
        env_edges(&analysis),
        [
            "tools/cli.ts -> basePath syntax/certain",
            "web/next.config.js -> API_URL syntax/certain",
            "web/next.config.js -> BASE_PATH syntax/certain",
            "web/next.config.js -> CLOUD_MODE syntax/certain",
            "web/src/app/page.tsx -> API_URL syntax/certain",
            "web/src/app/page.tsx -> OTHER syntax/certain",
            "web/src/app/page.tsx -> cloudMode syntax/certain",
        ]
    );
}
