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
    for w in &facts.env.wrappers {
        let params: Vec<String> = w
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| match w.defaults.get(i) {
                Some(Some(d)) => format!("{p}={d:?}"),
                _ => p.clone(),
            })
            .collect();
        lines.push(format!(
            "wrapper {}({}) line {}: {} reads {}",
            w.name,
            params.join(", "),
            w.line,
            w.how,
            parts(&w.parts)
        ));
    }
    for i in &facts.env.invocations {
        let args: Vec<String> = i
            .args
            .iter()
            .map(|a| match (&a.keyword, a.position) {
                (Some(k), _) => format!("{k}={}", parts(&a.parts)),
                (None, Some(p)) => format!("#{p}={}", parts(&a.parts)),
                (None, None) => parts(&a.parts),
            })
            .collect();
        let within = i.within.as_deref().map(|w| format!(" in {w}")).unwrap_or_default();
        let member = if i.member { " (member)" } else { "" };
        let arity = i.arity.map(|n| format!(" of {n}")).unwrap_or_default();
        lines.push(format!(
            "invocation {}{member} line {}{within}: {}{arity}",
            i.callee,
            i.line,
            args.join(", ")
        ));
    }
    for o in &facts.env.objects {
        lines.push(format!("object {} line {}: {:?}", o.name, o.line, o.kind));
    }
    lines
}

/// A name's parts: literals quoted, parameters as `{0}`.
fn parts(parts: &[super::NamePart]) -> String {
    parts
        .iter()
        .map(|p| match p {
            super::NamePart::Lit(s) => format!("{s:?}"),
            super::NamePart::Param(i) => format!("{{{i}}}"),
        })
        .collect::<Vec<_>>()
        .join(" + ")
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
const has = "FEATURE_X" in process.env;
function computed(name: string) {
  return process.env[name] ?? Deno.env.get(name);
}
"#;
    check!("web/src/config.ts", Grammar::TypeScript, source);
}

#[test]
fn python_helpers_that_wrap_a_read() {
    let source = r#"
import os
from .flags import parse_flag
from app.conf import shared

PREFIX = "SHOP"

def flag_from_env(key, default="secret"):
    return os.getenv(key, default) in ("1", "true")

def path_from_env(name: str, fallback=None):
    if name in os.environ:
        return os.environ[name]
    return os.environ.get(f"{name}_FILE", fallback)

def strict(key):
    return parse_flag(key)

class Holder:
    def method(self, key):
        return os.getenv(key)

DEBUG = flag_from_env("SHOP_DEBUG")
MEDIA = path_from_env(name="SHOP_MEDIA_ROOT")
TOKEN = os.environ.get(PREFIX + "_TOKEN")
SECRET = os.getenv(f"{PREFIX}_SECRET_FILE")
LOWER = flag_from_env("not a variable")
SHARED = shared.read_setting("SHOP_SHARED")
UNKNOWN = flag_from_env(compute())
"#;
    check!("shop/settings.py", Grammar::Python, source);
}

#[test]
fn javascript_helpers_that_wrap_a_read() {
    let source = r#"
import { fallback } from "./fallback";
const PREFIX = "SHOP";
export const readVar = <K extends string>(variable: K): string | undefined => {
  if (typeof window !== "undefined") return undefined;
  return typeof process !== "undefined" ? process?.env?.[variable] : undefined;
};
export function mustRead(variable: string, error?: Error) {
  const value = readVar(variable);
  if (!value) throw error;
  return value;
}
export const fromFile = (name) => process.env[`${name}_FILE`] ?? fallback(name);
const token = process.env[`${PREFIX}_TOKEN`];
const port = readVar("SHOP_PORT");
"#;
    check!("packages/lib/env.ts", Grammar::TypeScript, source);
}

#[test]
fn environment_objects_and_their_members() {
    let source = r#"
import environment from "./utils/environment";
import { appEnv } from "@shop/env";
const withSecrets = (env) => new Proxy(env, {});
export default withSecrets(process.env);
export const raw = process.env;
export class Settings {
  public SECRET = environment.SECRET_KEY ?? "";
  public PORT = Number(appEnv.PORT || "secret");
  public mode = environment.nodeEnv;
  public role = Role.ADMIN;
}
"#;
    check!("server/env.ts", Grammar::TypeScript, source);
}

#[test]
fn django_environ_instances() {
    let source = r#"
import environ
from environ import Env as E

env = environ.Env(DEBUG=(bool, False))
environ.Env.read_env()
DEBUG = env("DEBUG")
HOSTS = env.list("ALLOWED_HOSTS", default=["secret"])
TIMEOUT = env.int(var="TIMEOUT", default=5)
DATABASES = {"default": env.db()}
CACHES = {"default": env.cache("REDIS_CACHE_URL")}
EMAIL = env.email_url()

def other():
    local = E()
    return local.bool("LOCAL_FLAG"), local.str(name)
"#;
    check!("shop/settings/base.py", Grammar::Python, source);
}

#[test]
fn django_environ_instance_imported() {
    let source = "from .base import env\n\nSENTRY = env(\"SENTRY_DSN\", default=\"secret\")\nCELERY = env.bool(\"CELERY_EAGER\")\n";
    check!("shop/settings/production.py", Grammar::Python, source);
}

#[test]
fn python_decouple_config() {
    let source = r#"
import decouple
from decouple import config, Csv, AutoConfig

SECRET_KEY = config("SECRET_KEY")
ALLOWED_HOSTS = config("ALLOWED_HOSTS", default="secret", cast=Csv())
PORT = decouple.config(option="PORT", cast=int)
local = AutoConfig(search_path="/secret")
REGION = local("REGION")
KEY = config(name_of_key)
"#;
    check!("site/settings.py", Grammar::Python, source);
}

#[test]
fn envalid_clean_env() {
    let source = r#"
import { cleanEnv, str, port, bool } from "envalid";
const specs = { REDIS_URL: str(), "LOG_LEVEL": str({ default: "secret" }) };
export const env = cleanEnv(process.env, {
  DATABASE_URL: str(),
  PORT: port({ default: 3000 }),
  FEATURE_FLAG: bool({ default: false }),
});
export const more = cleanEnv(process.env, specs);
export const other = cleanEnv(source, { OTHER_URL: str() });
"#;
    check!("api/src/env.ts", Grammar::TypeScript, source);
}

#[test]
fn t3_create_env_and_zod_schemas() {
    let source = r#"
import { createEnv } from "@t3-oss/env-nextjs";
import { z } from "zod";
export const env = createEnv({
  server: { DATABASE_URL: z.string().url(), NODE_ENV: z.enum(["development", "production"]) },
  client: { NEXT_PUBLIC_SITE_URL: z.string() },
  shared: { VERCEL_URL: z.string().optional() },
  runtimeEnv: {
    DATABASE_URL: process.env.DATABASE_URL,
    NODE_ENV: process.env.NODE_ENV,
    NEXT_PUBLIC_SITE_URL: process.env.NEXT_PUBLIC_SITE_URL,
    VERCEL_URL: process.env.VERCEL_URL,
  },
});
const base = z.object({ REDIS_URL: z.string(), WORKERS: z.coerce.number().default(2) });
const schema = base.extend({ QUEUE_NAME: z.string() });
export const config = schema.parse(process.env);
export const inline = z.object({ MAIL_HOST: z.string() }).safeParse(process.env);
export const notEnv = schema.parse(body);
"#;
    check!("web/src/env.ts", Grammar::TypeScript, source);
}

#[test]
fn nestjs_config_service() {
    let source = r#"
import { Injectable } from "@nestjs/common";
import { ConfigService } from "@nestjs/config";
@Injectable()
export class MailService {
  constructor(private readonly configService: ConfigService, private cache: Map<string, string>) {}
  host() { return this.configService.get<string>("MAIL_HOST"); }
  port() { return this.configService.getOrThrow("MAIL_PORT"); }
  nested() { return this.configService.get("mail.transport"); }
  other() { return this.cache.get("NOT_CONFIG"); }
}
export const factory = { useFactory: (config: ConfigService) => ({ secret: config.get("JWT_SECRET") }) };
"#;
    check!("api/src/mail/mail.service.ts", Grammar::TypeScript, source);
}

#[test]
fn silverhand_essentials_readers() {
    let source = r#"
import { assertEnv, getEnv, getEnvAsStringArray, yes } from "@silverhand/essentials";
export const isProduction = getEnv("NODE_ENV") === "production";
export const debug = yes(getEnv("DEBUG_MODE"));
export const db = assertEnv("DB_URL");
export const keys = getEnvAsStringArray("PRIVATE_KEYS");
export const port = (prefix: string) => getEnv(prefix + "PORT");
"#;
    check!("packages/shared/src/env/values.ts", Grammar::TypeScript, source);
}

#[test]
fn pydantic_nested_models_and_delimiter() {
    let source = r#"
from typing import Optional
from pydantic import BaseModel, Field, AliasChoices
from pydantic_settings import BaseSettings, SettingsConfigDict

class Pool(BaseModel):
    size: int = 5

class Database(BaseModel):
    host: str = "secret"
    pool: Pool = Pool()

class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="APP_", env_nested_delimiter="__")
    db: Database = Database()
    cache: Optional[Database] = None
    token: str = Field(validation_alias=AliasChoices("APP_TOKEN", "TOKEN"))
    debug: bool = False
"#;
    check!("app/settings.py", Grammar::Python, source);
}

/// configparser with an interpolation whose `before_get` reads `os.getenv(option)`: every read
/// of an option by a literal name reads the variable of that name; a parser made with the
/// stock interpolation, and a class whose `before_get` reads something else, read nothing.
#[test]
fn configparser_with_an_environment_interpolation() {
    let source = r#"
import configparser
import os

class EnvInterpolation(configparser.BasicInterpolation):
    def before_get(self, parser, section, option, value, defaults):
        value = super().before_get(parser, section, option, value, defaults)
        envvar = os.getenv(option)
        return envvar if value == "" and envvar else value

class Environ(configparser.ExtendedInterpolation):
    def before_get(self, parser, section, option, value, defaults):
        return os.environ[option] if option in os.environ else value

class Upper(configparser.BasicInterpolation):
    def before_get(self, parser, section, option, value, defaults):
        return os.getenv("FIXED") or value

config_ini = configparser.ConfigParser(interpolation=EnvInterpolation())
plain = configparser.ConfigParser()
upper = configparser.ConfigParser(interpolation=Upper())
environ = configparser.RawConfigParser(interpolation=Environ())

SECRET_KEY = config_ini["server"]["SECRET_KEY"]
MAIL = config_ini["email"].get("MAIL_SERVER", "localhost")
TLS = config_ini["email"].getboolean("MAIL_USE_TLS", fallback=False)
PORT = config_ini.getint("server", "PORT")
OTHER = plain["server"]["NOT_FROM_ENV"]
UPPER = upper["server"]["NOT_EITHER"]
DYNAMIC = config_ini["server"][name_of_option]
HOME = environ["paths"]["APP_HOME"]
"#;
    let lines = render("app/config.py", Grammar::Python, source);
    let how = "configparser option read through EnvInterpolation.before_get reads";
    let expected = [
        "FIXED syntax/certain: os.getenv reads FIXED".to_owned(),
        format!("SECRET_KEY convention/likely: {how} SECRET_KEY"),
        format!("MAIL_SERVER convention/likely: {how} MAIL_SERVER"),
        format!("MAIL_USE_TLS convention/likely: {how} MAIL_USE_TLS"),
        format!("PORT convention/likely: {how} PORT"),
        "APP_HOME convention/likely: configparser option read through Environ.before_get reads \
         APP_HOME"
            .to_owned(),
    ];
    for line in &expected {
        assert!(lines.contains(line), "missing {line:?} in {lines:#?}");
    }
    for name in ["NOT_FROM_ENV", "NOT_EITHER", "option "] {
        assert!(!lines.iter().any(|l| l.starts_with(name)), "{name} in {lines:#?}");
    }
    assert!(
        lines.iter().any(|l| l.starts_with("refused line 30: configparser option read")),
        "{lines:#?}"
    );
}

/// A `ConfigService` looked up from the application in `main.ts` reads like an injected one; a
/// comparison with the lookup binds nothing.
#[test]
fn nestjs_config_service_looked_up_from_the_application() {
    let source = r#"
import { NestFactory } from "@nestjs/core";
import { ConfigService } from "@nestjs/config";
async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  const configService = app.get(ConfigService);
  const typed = await app.resolve<ConfigService>(ConfigService);
  const same = other == app.get(ConfigService);
  console.log(`Port: ${configService.get('PORT')}`);
  if (configService.get('TRUST_PROXY') === 'true') app.set('trust proxy', true);
  typed.get("SESSION_SECRET");
  same.get("NOT_A_READ");
}
"#;
    let lines = render("api/src/main.ts", Grammar::TypeScript, source);
    for name in ["PORT", "TRUST_PROXY", "SESSION_SECRET"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("{name} "))), "{name}: {lines:#?}");
    }
    assert!(!lines.iter().any(|l| l.starts_with("NOT_A_READ")), "{lines:#?}");
}

/// A class whose field initialisers read through its constructor's parameter properties is a
/// wrapper named by the class (and `default` when it is the default export), with the
/// parameters' literal defaults; `new C(…)` is an invocation even without a name among its
/// arguments, with the number of arguments it passes.
#[test]
fn classes_whose_fields_read_through_constructor_properties() {
    let source = r#"
import { getEnv } from "@silverhand/essentials";
import Other from "./Other";
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
  make() {
    return new Other(1, "ADMIN_");
  }
}
const bare = new Other();
const spread = new Other(...args);
const local = new Map();
"#;
    check!("lib/env/Endpoints.ts", Grammar::TypeScript, source);
}
