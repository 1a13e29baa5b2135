//! Facts of the environment family from small realistic sources.

use cartograph_core::{RefusalKind, RepoPath};

use crate::{Extractor, Grammar};

/// Renders the reads (`NAME provenance/confidence: evidence`) and the `computed-env-key` refusals.
fn render(path: &str, grammar: Grammar, source: &str) -> Vec<String> {
    let path = RepoPath::new(path).unwrap();
    let facts = Extractor::new().extract(&path, grammar, source);
    let mut lines: Vec<String> = facts
        .env
        .reads
        .iter()
        .map(|r| {
            format!(
                "{} {}/{}: {}",
                r.name,
                r.provenance.as_str(),
                r.confidence.as_str(),
                r.evidence
            )
        })
        .collect();
    for r in &facts.refusals {
        if r.kind == RefusalKind::ComputedEnvKey {
            lines.push(format!("refused line {}: {}", r.location.line, r.reason));
        }
    }
    lines
}

/// The facts of one file, a line each.
fn described(path: &str, grammar: Grammar, source: &str) -> String {
    let got = render(path, grammar, source);
    // No value ever reaches a fact: the defaults in the sources below all contain "secret".
    assert!(got.iter().all(|l| !l.contains("secret")), "a value leaked: {got:?}");
    got.join("\n")
}

#[test]
fn python_os_reads_in_every_form() {
    let source = r#"
import os
import os as system
from os import environ, getenv as ge

DATABASE_URL = os.environ["DATABASE_URL"]
SECRET = os.environ.get("SECRET_KEY", "secret-default")
PORT = os.getenv("PORT", "secret")
HOME = environ["HOME"]
USER = environ.get("USER")
SHELL = ge("SHELL")
LANG = system.getenv(key="LANG")
DEBUG = "DEBUG" in os.environ
os.environ.setdefault("TZ", "secret")
os.environ["WRITTEN"] = "secret"
del os.environ["GONE"]

def computed(name):
    return os.environ[name], os.getenv(f"{name}_URL")
"#;
    check!("app/config.py", Grammar::Python, source);
}

#[test]
fn environ_not_from_os_is_not_an_env_read() {
    let source = "from werkzeug import environ\nx = environ['A']\ny = request.environ.get('B')\n";
    check!("app/wsgi.py", Grammar::Python, source);
}

#[test]
fn pydantic_settings_fields() {
    let source = r#"
from typing import ClassVar
from pydantic import Field, AliasChoices
from pydantic_settings import BaseSettings, SettingsConfigDict

class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_", env_file=".env")
    database_url: str = "secret://"
    redis: str = Field("secret", alias="REDIS_DSN")
    token: str = Field(validation_alias=AliasChoices("API_TOKEN", "TOKEN"))
    _private: str = "secret"
    VERSION: ClassVar[str] = "secret"
    plain = "secret"

class Child(Settings):
    extra: int = 0

class Sensitive(BaseSettings):
    class Config:
        case_sensitive = True
        env_prefix = "svc_"
    Mixed_Name: str

class Computed(BaseSettings):
    model_config = {"env_prefix": PREFIX}
    hidden: str

class NotSettings(BaseModel):
    field: str
"#;
    check!("app/core/config.py", Grammar::Python, source);
}

#[test]
fn pydantic_v1_base_settings() {
    let source = "import pydantic\n\nclass S(pydantic.BaseSettings):\n    api_key: str = pydantic.Field(..., env=\"KEY\")\n    debug: bool = False\n";
    check!("app/settings.py", Grammar::Python, source);
}

#[test]
fn javascript_reads_in_every_form() {
    let source = r#"
const port = process.env.PORT || "secret";
const url = process.env["DATABASE_URL"];
const { HOST, API_KEY: apiKey, LOG_LEVEL = "secret", ...rest } = process.env;
const api = import.meta.env.VITE_API_URL;
const mode = import.meta.env.MODE;
const token = Deno.env.get("TOKEN");
const bun = Bun.env.BUN_VAR;
process.env.WRITTEN = "secret";
delete process.env.GONE;
function computed(name: string) {
  return process.env[name] ?? Deno.env.get(name);
}
"#;
    check!("web/src/config.ts", Grammar::TypeScript, source);
}
