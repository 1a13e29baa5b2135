//! Data-driven tests of the JS route facts: one `check!(path, source)` helper that renders
//! every fact of the family as one line.

use cartograph_core::RepoPath;

use super::{JsRouteFacts, MountTarget, PathValue, Receiver};
use crate::{Extractor, Grammar};

fn facts(path: &str, source: &str) -> JsRouteFacts {
    let grammar = match path.rsplit('.').next() {
        Some("ts") => Grammar::TypeScript,
        Some("tsx") => Grammar::Tsx,
        _ => Grammar::JavaScript,
    };
    let path = RepoPath::new(path).unwrap();
    Extractor::new().extract(&path, grammar, source).js_routes.into_inner()
}

fn path(p: &PathValue) -> String {
    match p {
        PathValue::Literal(l) => format!("'{l}'"),
        PathValue::Named(n) => format!("<unsettled {n}>"),
        PathValue::Computed => "<computed>".to_owned(),
    }
}

fn recv(r: &Receiver) -> String {
    match &r.param {
        Some((f, i)) => {
            let f = if f.starts_with('@') { "@inline" } else { f };
            format!("{}(param {i} of {f})", r.name)
        }
        None => r.name.clone(),
    }
}

fn target(t: &MountTarget) -> String {
    match t {
        MountTarget::Name(n) => n.clone(),
        MountTarget::Function(k) => {
            format!("fn {}", if k.starts_with('@') { "@inline" } else { k })
        }
        MountTarget::Module { specifier, member } => {
            format!(
                "module {specifier}{}",
                member.as_ref().map(|m| format!(".{m}")).unwrap_or_default()
            )
        }
        MountTarget::Call(f) => format!("what {f} returns"),
        MountTarget::Other => "other".to_owned(),
    }
}

fn render(js: &JsRouteFacts) -> Vec<String> {
    let mut out = Vec::new();
    for s in &js.servers {
        let prefix = s.prefix.as_ref().map(|p| format!(" prefix {}", path(p))).unwrap_or_default();
        out.push(format!("server {} {:?} {:?}{prefix}", s.local, s.framework, s.kind));
    }
    for r in &js.routes {
        let methods: Vec<&str> = r.methods.iter().map(|m| m.as_str()).collect();
        out.push(format!(
            "route {} {} {} via {} handler {}",
            recv(&r.receiver),
            methods.join("|"),
            path(&r.path),
            r.call,
            r.handler.as_deref().unwrap_or("-")
        ));
    }
    for m in &js.mounts {
        let prefix = m.prefix.as_ref().map(path).unwrap_or_else(|| "-".to_owned());
        out.push(format!(
            "mount {} {prefix} {} via {}",
            recv(&m.receiver),
            target(&m.target),
            m.call
        ));
    }
    let hook = |v: &super::HookValue| match v {
        super::HookValue::Name(n) => n.clone(),
        super::HookValue::Literal(l) => format!("'{l}'"),
    };
    for r in &js.hook_registrations {
        let properties: Vec<String> =
            r.properties.iter().map(|(p, v)| format!("{p}={}", hook(v))).collect();
        out.push(format!("register in {} {{{}}}", r.registry, properties.join(", ")));
    }
    for m in &js.hook_mounts {
        let prefix = m.prefix.as_ref().map(path).unwrap_or_else(|| "-".to_owned());
        let query = match &m.query {
            super::HookQuery::Direct { registry, key } => format!("{registry} under {}", hook(key)),
            super::HookQuery::Getter(getter) => format!("getter {getter}"),
        };
        out.push(format!(
            "mount {} {prefix} item.{} of {query} via {}",
            recv(&m.receiver),
            m.path,
            m.call
        ));
    }
    for g in &js.hook_getters {
        out.push(format!(
            "getter {}.{} (exported {}) = {} under {}",
            g.class,
            g.getter,
            g.exported.as_deref().unwrap_or("-"),
            g.registry,
            hook(&g.key)
        ));
    }
    for (local, folder) in &js.autoloads {
        out.push(format!("autoload {local} = {folder}"));
    }
    for a in &js.applies {
        out.push(format!("apply {} to {} at {}", a.server, target(&a.function), a.index));
    }
    for r in &js.returns {
        out.push(format!("return {} from {}", r.local, r.function));
    }
    for e in &js.exports {
        out.push(format!("export {} = {}", e.exported, e.local));
    }
    for r in &js.reexports {
        match &r.exported {
            Some(name) => {
                out.push(format!("reexport {name} = {} from {}", r.imported, r.specifier));
            }
            None => out.push(format!("reexport * from {}", r.specifier)),
        }
    }
    let version = |v: &Option<super::NestVersion>| match v {
        None => String::new(),
        Some(v) => format!(" version {v:?}"),
    };
    for c in &js.nest_controllers {
        out.push(format!("controller {} {}{}", c.class, path(&c.prefix), version(&c.version)));
        for r in &c.routes {
            out.push(format!(
                "  {} {} {}{}",
                r.method,
                path(&r.path),
                r.handler,
                version(&r.version)
            ));
        }
    }
    for m in &js.nest_modules {
        out.push(format!("nest module {} controllers {}", m.class, m.controllers.join(", ")));
    }
    for m in &js.nest_module_paths {
        let parts: Vec<String> = m.path.iter().map(path).collect();
        out.push(format!("nest module path {} under [{}]", m.module, parts.join(", ")));
    }
    if js.nest_router_module {
        out.push("nest router module not read".to_owned());
    }
    for a in &js.nest_apps {
        let prefix = a.prefix.as_ref().map(path).unwrap_or_else(|| "-".to_owned());
        let versioning =
            a.versioning.as_ref().map(|v| format!(" versioning {v:?}")).unwrap_or_default();
        out.push(format!("nest app prefix {prefix}{versioning}"));
    }
    for h in &js.next_handlers {
        out.push(format!("next {} {}", h.method, h.handler));
    }
    if let Some(d) = &js.default_export {
        out.push(format!("default export {}", d.name.as_deref().unwrap_or("-")));
    }
    if js.imports_next {
        out.push("imports next".to_owned());
    }
    out
}

/// The route facts of one file, a line each.
fn described(path: &str, source: &str) -> String {
    render(&facts(path, source)).join("\n")
}

#[test]
fn express_app_and_routers() {
    check!(
        "server.js",
        concat!(
            "const express = require('express');\n",
            "const ordersRouter = require('./routes/orders');\n",
            "const app = express();\n",
            "app.get('/health', (req, res) => res.send('ok'));\n",
            "app.use('/api/orders', auth, ordersRouter);\n",
            "app.use(express.json());\n",
            "app.route('/book').get(getBook).post(addBook);\n",
            "module.exports = app;\n",
        )
    );
}

#[test]
fn express_router_module_shapes() {
    check!(
        "routes/orders.ts",
        concat!(
            "import { Router } from 'express';\n",
            "import * as ctrl from '../controllers/orders';\n",
            "const router = Router();\n",
            "router.get('/:id', ctrl.getOrder);\n",
            "router.delete(`/${id}`, asyncHandler(removeOrder));\n",
            "export default router;\n",
        )
    );
    check!(
        "routes/users.js",
        concat!(
            "const express = require('express');\n",
            "const router = express.Router({ mergeParams: true });\n",
            "router.post('/', createUser);\n",
            "module.exports = { router, other: helper };\n",
        )
    );
    check!(
        "routes/r.js",
        "module.exports = require('express').Router();\nexports.x = require('express')();\n"
    );
}

#[test]
fn client_side_navigation_is_not_a_server() {
    check!(
        "ui/nav.tsx",
        concat!(
            "import { useRouter } from 'next/navigation';\n",
            "const router = useRouter();\n",
            "router.push('/items', undefined);\n",
            "router.navigate('/x');\n",
            "const m = new Map();\n",
            "m.get('key');\n",
        )
    );
}

#[test]
fn koa_router_with_prefix_and_nesting() {
    check!(
        "api.js",
        concat!(
            "const Koa = require('koa');\n",
            "const Router = require('@koa/router');\n",
            "const app = new Koa();\n",
            "const api = new Router({ prefix: '/api' });\n",
            "const users = new Router();\n",
            "users.get('user', '/users/:id', show);\n",
            "users.del('/users/:id', remove);\n",
            "api.use('/v1', users.routes(), users.allowedMethods());\n",
            "app.use(api.routes());\n",
        )
    );
}

#[test]
fn fastify_routes_and_plugins() {
    check!(
        "server.ts",
        concat!(
            "import Fastify from 'fastify';\n",
            "import itemRoutes from './items';\n",
            "const fastify = Fastify({ logger: true });\n",
            "fastify.route({ method: ['GET', 'HEAD'], url: '/status', handler: status });\n",
            "fastify.route({ method: verb, url: '/x', handler: status });\n",
            "fastify.register(itemRoutes, { prefix: '/api/items' });\n",
            "fastify.register(async (instance) => { instance.get('/ping', async () => 'pong'); }, { prefix: '/v1' });\n",
        )
    );
    check!(
        "items.js",
        concat!(
            "module.exports = async function (fastify, opts) {\n",
            "  fastify.get('/:id', getItem);\n",
            "};\n",
        )
    );
    check!(
        "plugin.ts",
        "export default fp(async function items(server) { server.post('/', create); });\n"
    );
}

#[test]
fn hono_apps() {
    check!(
        "index.ts",
        concat!(
            "import { Hono } from 'hono';\n",
            "import books from './books';\n",
            "const app = new Hono().basePath('/api');\n",
            "app.get('/a', a).post('/b', b);\n",
            "app.on(['PUT', 'DELETE'], '/c', c);\n",
            "app.route('/books', books);\n",
            "export default app;\n",
        )
    );
    check!("books.ts", "import { Hono } from 'hono';\nexport default new Hono();\n");
}

#[test]
fn applies_hand_a_server_to_a_function() {
    check!(
        "server.js",
        concat!(
            "const express = require('express');\n",
            "const app = express();\n",
            "require('./routes')(app);\n",
            "registerRoutes(app, db);\n",
            "other(db);\n",
        )
    );
}

#[test]
fn nest_controllers_and_prefix() {
    check!(
        "src/items/items.controller.ts",
        concat!(
            "import { Controller, Get, Post, Param } from '@nestjs/common';\n",
            "@Controller('items')\n",
            "export class ItemsController {\n",
            "  @Get()\n",
            "  findAll() { return []; }\n",
            "  @Get(':id')\n",
            "  findOne(@Param('id') id: string) { return id; }\n",
            "  @Post()\n",
            "  @HttpCode(204)\n",
            "  create() {}\n",
            "  helper() {}\n",
            "}\n",
        )
    );
    check!(
        "src/main.ts",
        concat!(
            "import { NestFactory } from '@nestjs/core';\n",
            "async function bootstrap() {\n",
            "  const app = await NestFactory.create(AppModule);\n",
            "  app.setGlobalPrefix('api');\n",
            "  await app.listen(3000);\n",
            "}\n",
        )
    );
    // A `Controller` that is not NestJS's is not a controller.
    check!(
        "src/x.ts",
        "import { Controller } from './mine';\n@Controller('x')\nclass X { @Get() a() {} }\n"
    );
}

#[test]
fn next_route_exports() {
    check!(
        "app/api/items/[id]/route.ts",
        concat!(
            "import { NextResponse } from 'next/server';\n",
            "export async function GET(req: Request) { return NextResponse.json({}); }\n",
            "export const POST = async () => NextResponse.json({});\n",
            "const handler = () => null;\n",
            "export { handler as PUT, handler as helper };\n",
        )
    );
    check!(
        "pages/api/users/[id].js",
        "export default function handler(req, res) { res.status(200).json({}); }\n"
    );
}

#[test]
fn names_settle_to_file_constants() {
    check!(
        "server.js",
        concat!(
            "const express = require('express');\n",
            "const { API_PREFIX } = require('./config');\n",
            "const HEALTH = '/health';\n",
            "const app = express();\n",
            "app.get(HEALTH, health);\n",
            "app.use(API_PREFIX, apiRouter);\n",
            "app.use(V2, logger, v2Router);\n",
            "app.use(router);\n",
            "const V2 = '/v2';\n",
        )
    );
}

#[test]
fn chained_export_assignment_names_the_variable() {
    check!(
        "app.js",
        "const express = require('express');\nconst app = module.exports = express();\napp.get('/x', x);\n"
    );
}

#[test]
fn truncated_sources_never_panic() {
    let source = concat!(
        "import express, { Router } from 'express';\n",
        "import { Controller, Get } from '@nestjs/common';\n",
        "const app = module.exports = express();\n",
        "const r = Router();\n",
        "app.route('/x').get(a).post((req, res) => {});\n",
        "app.use('/p', r, require('./x').y);\n",
        "fastify.register(async (f) => { f.get('/z', h) }, { prefix: P });\n",
        "export default fp(async function (s) { s.route({ method: ['GET'], url: `/${x}` }) });\n",
        "@Controller({ path: 'c' }) export class C { @Get(':id') one() {} }\n",
        "export { h as GET };\n",
        "module.exports = { basePath: '/b' };\n",
    );
    let mut cut = 0;
    while cut <= source.len() {
        if source.is_char_boundary(cut) {
            let prefix = source.get(..cut).unwrap_or("");
            for path in ["a.ts", "next.config.js", "app/api/route.ts"] {
                let _ = facts(path, prefix);
            }
        }
        cut += 7;
    }
    // The whole source still yields its facts.
    let whole = facts("a.ts", source);
    assert!(!whole.routes.is_empty() && !whole.mounts.is_empty());
}

#[test]
fn barrel_reexports() {
    check!(
        "routes/index.ts",
        concat!(
            "export { default as ordersRouter, helper } from './orders';\n",
            "export * from './users';\n",
            "export * as admin from './admin';\n",
            "export type { T } from './types';\n",
        )
    );
}

#[test]
fn path_arrays_give_one_route_each() {
    check!(
        "a.js",
        "const app = require('express')();\napp.get(['/a', B], h);\napp.post(['/c', `/${d}`], h);\nconst B = '/b';\n"
    );
}

#[test]
fn nest_versions_and_uri_versioning() {
    check!(
        "src/boards.controller.ts",
        concat!(
            "import { Controller, Get, Version, VERSION_NEUTRAL } from '@nestjs/common';\n",
            "@Version(['1', VERSION_NEUTRAL])\n",
            "@Controller({ path: 'boards', version: '9' })\n",
            "export class BoardsController {\n",
            "  @Version('2')\n",
            "  @Get()\n",
            "  list() {}\n",
            "  @Get(':id')\n",
            "  one() {}\n",
            "  @Version(pick())\n",
            "  @Get('x')\n",
            "  x() {}\n",
            "}\n",
        )
    );
    // `await NestFactory.create<T>(...)` parses as a call of `await NestFactory.create`.
    check!(
        "src/main.ts",
        concat!(
            "import { NestFactory } from '@nestjs/core';\n",
            "async function bootstrap() {\n",
            "  const app = await NestFactory.create<NestExpressApplication>(AppModule);\n",
            "  app.enableVersioning({ type: VersioningType.URI, defaultVersion: ['1', '2'], prefix: 'ver' });\n",
            "}\n",
        )
    );
    check!(
        "src/other.ts",
        concat!(
            "import { NestFactory } from '@nestjs/core';\n",
            "const app = await NestFactory.create(M);\n",
            "app.enableVersioning({ type: VersioningType.HEADER, header: 'X-V' });\n",
        )
    );
}

#[test]
fn factories_return_routers_and_loops_mount_them() {
    // Routers made in two factories under one name stay two routers; a loop over a factory's
    // result mounts what it returns; a rest parameter is read element by element and handed on
    // whole.
    check!(
        "src/api.ts",
        concat!(
            "import Koa from 'koa';\n",
            "import Router from 'koa-router';\n",
            "const makeRouters = (ctx) => {\n",
            "  const open = new Router();\n",
            "  const admin = new Router();\n",
            "  usersRoutes(admin, ctx);\n",
            "  return [open, admin];\n",
            "};\n",
            "export default function initApi(ctx) {\n",
            "  const api = new Koa();\n",
            "  for (const router of makeRouters(ctx)) {\n",
            "    api.use(router.routes()).use(router.allowedMethods());\n",
            "  }\n",
            "  for (const r of [extra, more]) api.use(r.routes());\n",
            "  for (const key in table) api.use(key);\n",
            "  for (const routes of list) api.use(routes.routes());\n",
            "  return api;\n",
            "}\n",
            "export function initPublic(ctx) {\n",
            "  const app = new Koa();\n",
            "  const open = new Router();\n",
            "  open.get('/health', h);\n",
            "  app.use(open.routes());\n",
            "  return app;\n",
            "}\n",
        )
    );
    check!(
        "src/routes/users.ts",
        concat!(
            "export default function usersRoutes(...[router, ctx]: Args) {\n",
            "  router.get('/users', list);\n",
            "}\n",
            "export function allRoutes(...args: Args) {\n",
            "  usersRoutes(...args);\n",
            "}\n",
            "export function moreRoutes(...args: Args) {\n",
            "  const [, router] = args;\n",
            "  router.post('/more', add);\n",
            "}\n",
        )
    );
    check!(
        "src/server.ts",
        concat!(
            "import Koa from 'koa';\n",
            "import mount from 'koa-mount';\n",
            "import initApi from './api';\n",
            "const app = new Koa();\n",
            "app.use(mount('/api', initApi(ctx)));\n",
            "app.use(cors());\n",
        )
    );
}

#[test]
fn koa_router_prefix_call_sets_the_prefix() {
    check!(
        "src/things.js",
        concat!(
            "const Router = require('@koa/router');\n",
            "const PREFIX = '/v2';\n",
            "const router = new Router({ prefix: '/v1' });\n",
            "router.prefix(PREFIX);\n",
            "router.get('/things', list);\n",
            "other.prefix('/x');\n",
            "module.exports = router;\n",
        )
    );
}

#[test]
fn plugin_registry_registrations_and_mounts() {
    // Registrations: one object, an array of them, a nested value; a call with no object
    // literal and a `Set.add` of a plain value register nothing.
    check!(
        "plugins/shop/index.ts",
        concat!(
            "import { Registry, Slot } from \"../../core/registry\";\n",
            "import shopApi from \"./api\";\n",
            "import login from \"./login\";\n",
            "Registry.add({ ...meta, kind: Slot.Api, value: shopApi });\n",
            "Registry.add([\n",
            "  { kind: Slot.Login, value: { router: login, name: \"shop\" } },\n",
            "  { kind: \"task\", value: new Task() },\n",
            "]);\n",
            "Registry.add(makeEntry());\n",
            "seen.add(shopApi);\n",
        )
    );
    // Mounts: a `forEach` over a query, a `for … of` with an awaited alias, and loops that
    // are not over a query (mounted as before).
    check!(
        "core/api.ts",
        concat!(
            "import Router from \"koa-router\";\n",
            "import { Registry, Slot } from \"./registry\";\n",
            "const router = new Router();\n",
            "Registry.items(Slot.Api).forEach((item) => router.use(\"/\", item.value.routes()));\n",
            "for (const item of Registry.items(\"login\")) {\n",
            "  const r = await item.value.router;\n",
            "  if (r) { router.use(\"/auth\", r.routes()); }\n",
            "}\n",
            "for (const item of routers) { router.use(item.routes()); }\n",
            "list.forEach((item) => router.use(\"/x\", item.value.routes()));\n",
            "export default router;\n",
        )
    );
    // A static getter returning a query, read by the mounts of another module; a getter that
    // is not static, or does more than return, is not one.
    check!(
        "core/helper.ts",
        concat!(
            "import { Registry, Slot } from \"./registry\";\n",
            "export default class Helper {\n",
            "  static get logins() { return Registry.items(Slot.Login); }\n",
            "  get others() { return Registry.items(Slot.Api); }\n",
            "  static get filtered() { const all = Registry.items(Slot.Api); return all; }\n",
            "}\n",
        )
    );
}

#[test]
fn nest_router_module_paths_and_module_controllers() {
    check!(
        "src/app.routes.ts",
        concat!(
            "import { Module } from '@nestjs/common';\n",
            "import { RouterModule, Routes } from '@nestjs/core';\n",
            "import { ShopModule } from './shop/shop.module';\n",
            "import { OrdersModule, CartModule, StaffModule } from './modules';\n",
            "const BASE = 'store';\n",
            "const routes: Routes = [\n",
            "  { path: BASE, module: ShopModule, children: [\n",
            "    { path: 'orders', module: OrdersModule, children: [{ path: ':orderId/cart', module: CartModule }] },\n",
            "    StaffModule,\n",
            "  ] },\n",
            "  { path: `${BASE}-x`, module: OtherModule },\n",
            "];\n",
            "@Module({ imports: [ShopModule, RouterModule.register(routes)], controllers: [HealthController] })\n",
            "export class AppRoutesModule {}\n",
        )
    );
    // Read inline; a computed list is only noted.
    check!(
        "src/admin.module.ts",
        concat!(
            "import { Module } from '@nestjs/common';\n",
            "import { RouterModule } from '@nestjs/core';\n",
            "@Module({\n",
            "  imports: [RouterModule.register([{ path: 'admin', children: [{ path: 'users', module: AdminUsersModule }] }]),\n",
            "            RouterModule.register(buildRoutes())],\n",
            "  controllers: [AdminController, ...more],\n",
            "})\n",
            "export class AdminModule {}\n",
        )
    );
    // Angular's RouterModule is not Nest's; a `Module` that is not Nest's declares nothing.
    check!(
        "web/app.module.ts",
        concat!(
            "import { RouterModule } from '@angular/router';\n",
            "import { Module } from './mine';\n",
            "RouterModule.register([{ path: 'x', module: XModule }]);\n",
            "@Module({ controllers: [XController] })\n",
            "export class XModule {}\n",
        )
    );
}

#[test]
fn nest_all_handlers_with_wildcards() {
    check!(
        "src/proxy.controller.ts",
        concat!(
            "import { All, Controller, Get } from '@nestjs/common';\n",
            "@Controller('proxy')\n",
            "export class ProxyController {\n",
            "  @All('*path')\n",
            "  forward() {}\n",
            "  @All()\n",
            "  root() {}\n",
            "  @Get('files/{*rest}')\n",
            "  file() {}\n",
            "}\n",
        )
    );
}

#[test]
fn next_handlers_reexported_from_another_module() {
    check!("pages/api/upload.ts", "export { default } from '../../lib/upload';\n");
    check!(
        "app/api/items/route.ts",
        "export { GET, POST as PUT, helper } from '@/lib/items';\nexport * from './more';\n"
    );
}

#[test]
fn nest_versioning_prefix_after_a_computed_root() {
    check!(
        "src/bootstrap.ts",
        concat!(
            "import { NestFactory } from '@nestjs/core';\n",
            "import { ROOT } from './config';\n",
            "export async function start() {\n",
            "  const app = await NestFactory.create(AppModule);\n",
            "  app.enableVersioning({ type: VersioningType.URI, prefix: `${ROOT}ver`, defaultVersion: '1' });\n",
            "}\n",
        )
    );
    check!(
        "src/other.ts",
        concat!(
            "import { NestFactory } from '@nestjs/core';\n",
            "const app = await NestFactory.create(AppModule);\n",
            "app.enableVersioning({ type: VersioningType.URI, prefix: `${a}/${b}` });\n",
        )
    );
}

#[test]
fn autoloaded_folders_of_routers() {
    check!(
        "srv/main.js",
        concat!(
            "const load = require('auto-load');\n",
            "const express = require('express');\n",
            "module.exports = async () => {\n",
            "  const routes = load(path.join(APP.ROOT, '/routes'));\n",
            "  const more = load(path.resolve(__dirname, 'more'));\n",
            "  const app = express();\n",
            "  app.use('/', routes.pages);\n",
            "};\n",
        )
    );
    // Not `auto-load`'s: nothing is recorded.
    check!("srv/other.js", "const all = loadAll(path.join(x, '/routes'));\napp.use(all.a);\n");
}

#[test]
fn a_route_config_importing_flat_routes_is_marked_whatever_wakes_the_recognisers() {
    // Nothing here wakes a route recogniser: the mark is read from the imports alone.
    let config = "import { flatRoutes } from 'remix-flat-routes';\nexport default flatRoutes();\n";
    assert!(facts("app/routes.ts", config).imports_flat_routes);
    let fs =
        "import { flatRoutes } from '@react-router/fs-routes';\nexport default flatRoutes();\n";
    assert!(facts("app/routes.ts", fs).imports_flat_routes);
    let other =
        "import { index } from '@react-router/dev/routes';\nexport default [index('x.tsx')];\n";
    assert!(!facts("app/routes.ts", other).imports_flat_routes);
}
