//! End-to-end tests of the TS/JS route linkers: small trees written to a temporary folder, analysed
//! with `analyse_tree`, and the `serves` edges and route refusals rendered one per line.

use crate::common;

use cartograph_core::{EdgeKind, NodeKind, RefusalKind};

/// Writes `files` into a fresh folder, analyses it and renders every `serves` edge as
/// `ROUTE <- module [provenance confidence] handler` and every route refusal as
/// `kind path:line reason`.
fn analyse(files: &[(&str, &str)]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let analysis = common::analyse_files(files);
    let mut serves = Vec::new();
    let mut evidence = Vec::new();
    for edge in analysis.edges.iter().filter(|e| e.kind == EdgeKind::Serves) {
        let node = analysis.nodes.iter().find(|n| n.key == edge.to).unwrap();
        assert_eq!(node.key.kind(), NodeKind::Route);
        let handler = node
            .attrs
            .handler
            .as_ref()
            .and_then(|h| h.function.clone())
            .unwrap_or_else(|| "-".to_owned());
        serves.push(format!(
            "{} <- {} [{} {}] {handler} {}",
            node.key.name(),
            edge.from.name(),
            edge.provenance.as_str(),
            edge.confidence.as_str(),
            node.attrs.framework.as_deref().unwrap_or("?"),
        ));
        evidence.push(edge.evidence.as_str().to_owned());
    }
    serves.sort();
    let refusals = analysis
        .refusals
        .iter()
        .filter(|r| matches!(r.kind, RefusalKind::ComputedRoute | RefusalKind::UnresolvedMount))
        .map(|r| {
            format!("{} {}:{} {}", r.kind.as_str(), r.location.path, r.location.line, r.reason)
        })
        .collect();
    (serves, evidence, refusals)
}

/// The serves edges and refusals of a tree, and the evidence of its serves edges.
fn described(files: &[(&str, &str)]) -> (String, Vec<String>) {
    let (serves, evidence, refusals) = analyse(files);
    let text = format!("serves:\n{}\n\nrefusals:\n{}", serves.join("\n"), refusals.join("\n"));
    (text, evidence)
}

const SERVER_JS: &str = r#"
const express = require('express');
const cors = require('cors');
const ordersRouter = require('./routes/orders');
const { router: usersRouter } = require('./routes/users');
const { requireAuth } = require('./middleware/auth');

const app = express();
app.use(cors());
app.use(express.json());
app.get('/health', (req, res) => res.json({ ok: true }));
app.use('/api/orders', requireAuth, ordersRouter);
app.use('/api/users', usersRouter);
app.use('/api/legacy', legacyRouter);
app.use('/api/reports', require('./routes/reports'));

module.exports = app;
"#;

const ORDERS_JS: &str = r#"
const express = require('express');
const router = express.Router();
const { listOrders, getOrder } = require('../controllers/orders');

router.get('/', listOrders);
router.get('/:id', getOrder);
router.post('/', async (req, res) => { res.status(201).end(); });
router.get(process.env.EXPORT_PATH, listOrders);

module.exports = router;
"#;

const USERS_JS: &str = r#"
import { Router } from 'express';
import profile from './profile.js';

export const router = Router();
router.route('/:userId').get(getUser).delete(removeUser);
router.use('/:userId/profile', profile);

function getUser(req, res) {}
function removeUser(req, res) {}
"#;

const PROFILE_JS: &str = r#"
import express from 'express';
const profile = express.Router({ mergeParams: true });
profile.get('/', (req, res) => res.json({}));
export default profile;
"#;

const REPORTS_JS: &str = r#"
const { Router } = require('express');
const reports = Router();
reports.get('/daily', daily);
module.exports = reports;
"#;

const AUTH_JS: &str = "exports.requireAuth = (req, res, next) => next();\n";

const ORPHAN_JS: &str = r#"
const express = require('express');
const orphan = express.Router();
orphan.get('/nowhere', (req, res) => {});
module.exports = orphan;
"#;

/// Client code whose calls look like routes and are not.
const NAV_TS: &str = r#"
import { useRouter } from 'next/router';
export function go() {
  const router = useRouter();
  router.push('/orders', undefined);
  router.navigate('/orders/1');
  const cache = new Map<string, number>();
  cache.get('orders', 1);
  history.push('/x');
}
"#;

#[test]
fn express_bff_with_routers_mounted_across_modules() {
    let evidence = check!(&[
        ("bff/server.js", SERVER_JS),
        ("bff/routes/orders.js", ORDERS_JS),
        ("bff/routes/users.js", USERS_JS),
        ("bff/routes/profile.js", PROFILE_JS),
        ("bff/routes/reports.js", REPORTS_JS),
        ("bff/routes/orphan.js", ORPHAN_JS),
        ("bff/middleware/auth.js", AUTH_JS),
        ("web/src/nav.ts", NAV_TS),
    ]);
    assert!(evidence.contains(
        &"Express route GET /api/orders/{id} from router.get in bff/routes/orders.js, mounted at /api/orders by app.use in bff/server.js"
            .to_owned()
    ), "{evidence:#?}");
    assert!(evidence.contains(
        &"Express route GET /api/users/{userId}/profile from profile.get in bff/routes/profile.js, mounted at /{userId}/profile by router.use in bff/routes/users.js, mounted at /api/users by app.use in bff/server.js"
            .to_owned()
    ), "{evidence:#?}");
}

#[test]
fn an_app_imported_into_another_module_serves_its_routes_there() {
    let evidence = check!(&[
        (
            "src/app.ts",
            "import express from 'express';\nconst app = express();\nexport default app;\n",
        ),
        (
            "src/routes.ts",
            "import app from './app';\napp.get('/status', status);\nfunction status() {}\n",
        ),
        (
            "src/index.js",
            "const express = require('express');\nconst app = express();\nrequire('./legacy')(app);\n",
        ),
        (
            "src/legacy.js",
            "module.exports = function (app) {\n  app.post('/legacy/:id', update);\n};\n",
        ),
    ]);
    assert!(
        evidence.contains(
            &"Express route POST /legacy/{id} from app.post in src/legacy.js, mounted by app passed to the default export of src/legacy.js in src/index.js"
                .to_owned()
        ),
        "{evidence:#?}"
    );
    assert!(
        evidence.contains(
            &"Express route GET /status from app.get in src/routes.ts on the object created in src/app.ts"
                .to_owned()
        ),
        "{evidence:#?}"
    );
}

#[test]
fn fastify_plugins_registered_with_prefixes() {
    check!(&[
        (
            "api/server.ts",
            concat!(
                "import Fastify from 'fastify';\n",
                "import itemRoutes from './items';\n",
                "const fastify = Fastify({ logger: true });\n",
                "fastify.route({ method: ['GET', 'POST'], url: '/status', handler: status });\n",
                "fastify.register(itemRoutes, { prefix: '/api/items' });\n",
                "fastify.register(async (v1) => { v1.get('/ping', async () => 'pong'); }, { prefix: '/v1' });\n",
                "fastify.register(import('@fastify/cors'));\n",
                "function status() {}\n",
            ),
        ),
        (
            "api/items.ts",
            concat!(
                "export default async function itemRoutes(fastify, opts) {\n",
                "  fastify.get('/', list);\n",
                "  fastify.delete('/:id', remove);\n",
                "}\n",
            ),
        ),
    ]);
}

#[test]
fn hono_and_koa_prefixes_compose() {
    check!(&[
        (
            "worker/index.ts",
            concat!(
                "import { Hono } from 'hono';\n",
                "import books from './books';\n",
                "const app = new Hono().basePath('/api');\n",
                "app.get('/', (c) => c.text('ok'));\n",
                "app.route('/books', books);\n",
                "export default app;\n",
            ),
        ),
        (
            "worker/books.ts",
            concat!(
                "import { Hono } from 'hono';\n",
                "const books = new Hono();\n",
                "books.get('/:id', (c) => c.json({})).post('/', create);\n",
                "export default books;\n",
            ),
        ),
        (
            "koa/app.js",
            concat!(
                "const Koa = require('koa');\n",
                "const Router = require('@koa/router');\n",
                "const app = new Koa();\n",
                "const api = new Router({ prefix: '/api' });\n",
                "const users = new Router();\n",
                "users.get('user', '/users/:id', show);\n",
                "api.use('/v2', users.routes(), users.allowedMethods());\n",
                "app.use(api.routes());\n",
            ),
        ),
    ]);
}

const CONTROLLER_TS: &str = r#"
import { Controller, Get, Post, Delete, Param, Body } from '@nestjs/common';

@Controller('items')
export class ItemsController {
  @Get()
  findAll() { return []; }

  @Get(':id')
  findOne(@Param('id') id: string) { return id; }

  @Post()
  create(@Body() body: unknown) { return body; }

  @Delete(':id')
  remove(@Param('id') id: string) {}
}
"#;

const MAIN_TS: &str = r#"
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix('api');
  await app.listen(3000);
}
bootstrap();
"#;

#[test]
fn nest_controller_under_the_global_prefix() {
    let evidence = check!(&[
        ("svc/src/main.ts", MAIN_TS),
        ("svc/src/app.module.ts", "export class AppModule {}\n"),
        ("svc/src/items/items.controller.ts", CONTROLLER_TS),
    ]);
    assert!(evidence.contains(
        &"NestJS route GET /api/items/{id} from ItemsController.findOne in svc/src/items/items.controller.ts, under the global prefix /api set in svc/src/main.ts"
            .to_owned()
    ), "{evidence:#?}");
}

const ITEM_ROUTE_TS: &str = r#"
import { NextResponse } from 'next/server';

export async function GET(request: Request, { params }: { params: { id: string } }) {
  return NextResponse.json({ id: params.id });
}

export const DELETE = async () => new Response(null, { status: 204 });
"#;

#[test]
fn next_app_and_pages_routes() {
    let evidence = check!(&[
        ("web/package.json", r#"{ "dependencies": { "next": "14.2.0" } }"#),
        ("web/next.config.js", "module.exports = {};\n"),
        ("web/app/api/items/[id]/route.ts", ITEM_ROUTE_TS),
        (
            "web/app/(admin)/api/stats/route.ts",
            "export async function POST() { return Response.json({}); }\n",
        ),
        ("web/app/_lib/route.ts", "export function GET() {}\n"),
        ("web/app/docs/[...slug]/route.js", "export function GET() {}\n"),
        ("web/app/page.tsx", "export default function Page() { return null; }\n"),
        (
            "web/pages/api/users/[id].ts",
            "export default function handler(req, res) { res.json({}); }\n",
        ),
        ("web/pages/api/index.js", "export default (req, res) => res.end();\n"),
        ("web/pages/about.tsx", "export default function About() { return null; }\n"),
        // Not a Next.js project: no next.config and no import of next.
        ("tools/app/api/x/route.ts", "export function GET() {}\n"),
        // No next.config, but the route file imports next itself.
        (
            "lab/src/app/api/ping/route.ts",
            "import { NextResponse } from 'next/server';\nexport function GET() { return NextResponse.json({}); }\n",
        ),
    ]);
    assert!(evidence.contains(
        &"Next.js App Router route GET /api/items/{id} from the exported GET handler in web/app/api/items/[id]/route.ts, a route file by convention (the project's web/next.config.js)"
            .to_owned()
    ), "{evidence:#?}");
}

#[test]
fn traps_are_not_routes_and_unknowns_are_refused() {
    check!(&[
        (
            "web/src/client.ts",
            concat!(
                "import { createRouter } from './nav';\n",
                "import axios from 'axios';\n",
                "const router = createRouter();\n",
                "router.get('/orders', show);\n",
                "axios.get('/api/orders', { params: {} });\n",
                "const settings = new Map();\n",
                "settings.get('theme', 'dark');\n",
                "function show() {}\n",
            ),
        ),
        ("web/src/nav.ts", "export function createRouter() { return { get() {} }; }\n"),
        (
            "srv/app.js",
            concat!(
                "const express = require('express');\n",
                "const config = require('./config');\n",
                "const routes = require('./routes');\n",
                "const app = express();\n",
                "const loop = express.Router();\n",
                "loop.use('/again', loop);\n",
                "loop.get('/x', x);\n",
                "app.use(config.prefix + '/v1', routes.orders);\n",
                "app.use('/loop', loop);\n",
            ),
        ),
        ("srv/config.js", "module.exports = { prefix: process.env.PREFIX };\n"),
        (
            "srv/routes/index.js",
            concat!(
                "const { Router } = require('express');\n",
                "const orders = Router();\n",
                "orders.get('/', list);\n",
                "module.exports = { orders };\n",
            ),
        ),
    ]);
}

#[test]
fn esm_namespace_and_renamed_exports() {
    check!(&[
        (
            "api/server.ts",
            concat!(
                "import express from 'express';\n",
                "import * as routes from './routes';\n",
                "import { ordersRouter as orders } from './orders';\n",
                "const app = express();\n",
                "app.use('/api/users', routes.users);\n",
                "app.use('/api/orders', orders);\n",
            ),
        ),
        (
            "api/routes.ts",
            "import { Router } from 'express';\nexport const users = Router();\nusers.get('/', list);\n",
        ),
        (
            "api/orders.ts",
            "import { Router } from 'express';\nconst router = Router();\nrouter.patch('/:id', patch);\nexport { router as ordersRouter };\n",
        ),
    ]);
}

#[test]
fn nest_with_two_apps_is_only_likely() {
    check!(&[
        ("apps/a/src/main.ts", MAIN_TS),
        (
            "apps/b/src/main.ts",
            "import { NestFactory } from '@nestjs/core';\nasync function b() { const app = await NestFactory.create(M); app.setGlobalPrefix('b'); }\n",
        ),
        ("apps/a/src/items/items.controller.ts", CONTROLLER_TS),
        (
            "apps/b/src/health.controller.ts",
            "import { Controller, Get } from '@nestjs/common';\n@Controller()\nexport class HealthController {\n  @Get('health')\n  check() {}\n}\n",
        ),
    ]);
}

#[test]
fn next_handlers_exported_by_alias() {
    check!(&[
        ("next.config.mjs", "export default {};\n"),
        (
            "src/app/api/auth/[...nextauth]/route.ts",
            "import NextAuth from 'next-auth';\nconst handler = NextAuth({});\nexport { handler as GET, handler as POST };\n",
        ),
    ]);
}

#[test]
fn test_apps_and_unmounted_functions_make_no_routes() {
    check!(&[
        (
            "src/routes/orders.js",
            "const { Router } = require('express');\nconst r = Router();\nr.get('/:id', show);\nmodule.exports = r;\n",
        ),
        (
            "src/routes/__tests__/orders.test.js",
            concat!(
                "const express = require('express');\n",
                "const orders = require('../orders');\n",
                "const app = express();\n",
                "app.use(orders);\n",
                "app.get('/fake', (req, res) => res.end());\n",
            ),
        ),
        (
            "src/client/items.js",
            "export const getItems = (api) => api.get('/api/items', { params: {} });\n",
        ),
    ]);
}

#[test]
fn nest_prefix_set_away_from_the_bootstrap() {
    check!(&[
        (
            "src/main.ts",
            "import { NestFactory } from '@nestjs/core';\nimport { setup } from './setup';\nasync function b() { const app = await NestFactory.create(M); setup(app); }\n",
        ),
        (
            "src/setup.ts",
            "const PREFIX = 'v1';\nexport function setup(app) { app.setGlobalPrefix(PREFIX); }\n",
        ),
        (
            "src/health.controller.ts",
            "import { Controller, Get } from '@nestjs/common';\n@Controller('health')\nexport class HealthController {\n  @Get()\n  check() {}\n  @Get(HEALTH_DETAIL)\n  detail() {}\n}\n",
        ),
    ]);
}

#[test]
fn fastify_plugin_wrapped_and_exported_from_another_module() {
    check!(&[
        (
            "srv/app.js",
            concat!(
                "const fastify = require('fastify')();\n",
                "fastify.register(require('./users'), { prefix: '/users' });\n",
                "fastify.register(require('./health'));\n",
            ),
        ),
        (
            "srv/users.js",
            "const fp = require('fastify-plugin');\nmodule.exports = fp(async function users(app) {\n  app.get('/:id', getUser);\n});\n",
        ),
        (
            "srv/health.js",
            "module.exports = async (instance) => {\n  instance.get('/health', async () => ({ ok: true }));\n};\n",
        ),
    ]);
}

#[test]
fn next_base_path_and_nest_versioning() {
    check!(&[
        ("docs/next.config.js", "module.exports = { basePath: '/docs', reactStrictMode: true };\n",),
        ("docs/pages/api/search.ts", "export default async function search(req, res) {}\n"),
        (
            "api/src/main.ts",
            "import { NestFactory } from '@nestjs/core';\nasync function b() { const app = await NestFactory.create(M); app.enableVersioning({}); }\n",
        ),
        (
            "api/src/cats.controller.ts",
            "import { Controller, Get } from '@nestjs/common';\n@Controller('cats')\nexport class CatsController {\n  @Get()\n  list() {}\n}\n",
        ),
    ]);
}

#[test]
fn routers_reexported_through_barrel_files() {
    check!(&[
        (
            "api/server.ts",
            concat!(
                "import express from 'express';\n",
                "import { ordersRouter, usersRouter, loopRouter } from './routes';\n",
                "const app = express();\n",
                "app.use('/orders', ordersRouter);\n",
                "app.use('/users', usersRouter);\n",
                "app.use('/loop', loopRouter);\n",
            ),
        ),
        (
            "api/routes/index.ts",
            "export { default as ordersRouter } from './orders';\nexport * from './users';\nexport * from './a';\n",
        ),
        (
            "api/routes/orders.ts",
            "import { Router } from 'express';\nconst r = Router();\nr.get('/', list);\nexport default r;\n",
        ),
        (
            "api/routes/users.ts",
            "import { Router } from 'express';\nexport const usersRouter = Router();\nusersRouter.get('/:id', show);\n",
        ),
        // Re-export cycle: must end, and the name stays unresolved.
        ("api/routes/a.ts", "export * from './b';\n"),
        ("api/routes/b.ts", "export * from './a';\n"),
    ]);
}

#[test]
fn nest_uri_versioning_defaults_controller_and_method_versions() {
    let evidence = check!(&[
        (
            "api/src/main.ts",
            r#"import { NestFactory } from '@nestjs/core';
import { VersioningType } from '@nestjs/common';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix('api');
  app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });
  await app.listen(3000);
}
bootstrap();
"#,
        ),
        ("api/src/app.module.ts", "export class AppModule {}\n"),
        (
            "api/src/boards/boards.controller.ts",
            r#"import { Controller, Get, Post, Version, VERSION_NEUTRAL } from '@nestjs/common';

@Controller('boards')
export class BoardsController {
  @Get()
  list() {}

  @Version('2')
  @Post(':id/pin')
  pin() {}

  @Version(['2', VERSION_NEUTRAL])
  @Get('count')
  count() {}

  @Version(currentVersion())
  @Get('latest')
  latest() {}
}
"#,
        ),
        (
            "api/src/lanes/lanes.controller.ts",
            r#"import { Controller, Get } from '@nestjs/common';

@Controller({ path: 'lanes', version: '3' })
export class LanesController {
  @Get(':id')
  one() {}
}
"#,
        ),
        (
            "api/src/health/health.controller.ts",
            r#"import { Controller, Get, Version, VERSION_NEUTRAL } from '@nestjs/common';

@Version(VERSION_NEUTRAL)
@Controller('health')
export class HealthController {
  @Get()
  ping() {}
}
"#,
        ),
    ]);
    assert!(
        evidence.iter().any(|e| e.contains("under version v3 from its controller's version")),
        "{evidence:#?}"
    );
}

#[test]
fn koa_apps_mounted_with_koa_mount_on_a_service_parameter() {
    check!(&[
        (
            "server/services/web.ts",
            r#"import Koa from "koa";
import mount from "koa-mount";
import api from "../routes/api";
import pages from "../routes/pages";

export default function init(app: Koa = new Koa()) {
  app.use(mount("/api", api));
  app.use(mount(pages));
  return app;
}
"#,
        ),
        (
            "server/routes/api/index.ts",
            r#"import Koa from "koa";
import Router from "koa-router";
import notes from "./notes";

const api = new Koa();
const router = new Router();
router.use("/", notes.routes());
api.use(router.routes());

export default api;
"#,
        ),
        (
            "server/routes/api/notes.ts",
            r#"import Router from "koa-router";

const router = new Router();
router.post("notes.list", auth(), async (ctx) => {});
router.post("notes.info", async (ctx) => {});

export default router;
"#,
        ),
        (
            "server/routes/pages.ts",
            r#"import Koa from "koa";
import Router from "koa-router";

const pages = new Koa();
const router = new Router();
router.get("/robots.txt", async (ctx) => {});
pages.use(router.routes());

export default pages;
"#,
        ),
        (
            "server/other.ts",
            r#"import Koa from "koa";
import api from "./routes/api";

const app = new Koa();
app.use(mount("/elsewhere", api));
"#,
        ),
    ]);
}

#[test]
fn hono_chained_sub_apps_under_a_computed_deployment_base_path() {
    check!(&[
        (
            "web/server/router.ts",
            r#"import { Hono } from 'hono';
import { session } from '../auth/session';
import { cards } from './cards';

const basePath = (process.env.BASE_PATH ?? '').replace(/\/$/, '');
const app = new Hono().basePath(basePath || '/');

app.route('/api/auth', session);
app.route('/api/cards', cards);

export default app;
"#,
        ),
        (
            "web/auth/session.ts",
            r#"import { Hono } from 'hono';
import { passkeys } from './passkeys';

export const session = new Hono()
  .use(async (c, next) => next())
  .get('/session', async (c) => c.json({}))
  .post('/signout', async (c) => c.json({}))
  .route('/passkey', passkeys);
"#,
        ),
        (
            "web/auth/passkeys.ts",
            r#"import { Hono } from 'hono';

export const passkeys = new Hono().post('/register', async (c) => c.json({}));
"#,
        ),
        (
            "web/server/cards.ts",
            r#"import { Hono } from 'hono';

export const cards = new Hono();
cards.get('/:id', async (c) => c.json({}));
"#,
        ),
    ]);
}

#[test]
fn express_routers_handed_on_through_endpoint_functions() {
    check!(&[
        (
            "server/index.js",
            r#"const express = require("express");
const { boardEndpoints } = require("./endpoints/boards");
const { labsEndpoints } = require("./endpoints/labs");

const app = express();
const apiRouter = express.Router();

async function start() {
  app.use("/api", apiRouter);
  boardEndpoints(apiRouter);
  labsEndpoints(apiRouter);
  app.listen(3001);
}
start();
"#,
        ),
        (
            "server/endpoints/boards.js",
            r#"const { boardFileEndpoints } = require("./boardFiles");

function boardEndpoints(app) {
  app.get("/boards/:slug", async (req, res) => {});
  boardFileEndpoints(app);
  validate(app, req);
}

module.exports = { boardEndpoints };
"#,
        ),
        (
            "server/endpoints/boardFiles.js",
            r#"function boardFileEndpoints(router) {
  router.delete("/boards/:slug/files/:id", async (req, res) => {});
}

module.exports = { boardFileEndpoints };
"#,
        ),
        (
            "server/endpoints/labs/index.js",
            r#"const { syncEndpoints } = require("./sync");

function labsEndpoints(router) {
  syncEndpoints(router);
}

module.exports = { labsEndpoints };
"#,
        ),
        (
            "server/endpoints/labs/sync.js",
            r#"function syncEndpoints(app) {
  app.post("/labs/sync/toggle", async (req, res) => {});
}

module.exports = { syncEndpoints };
"#,
        ),
    ]);
}

#[test]
fn nest_bootstrap_beside_a_schema_script_is_the_app() {
    check!(&[
        (
            "api/src/emit-schema.ts",
            "import { NestFactory } from '@nestjs/core';\nasync function emit() { const app = await NestFactory.create(SchemaModule); await app.init(); }\n",
        ),
        (
            "api/src/main.ts",
            "import { NestFactory } from '@nestjs/core';\nimport { VersioningType } from '@nestjs/common';\nasync function b() { const app = await NestFactory.create<App>(M); app.enableVersioning({ type: VersioningType.URI }); }\n",
        ),
        (
            "api/src/cards.controller.ts",
            "import { Controller, Get } from '@nestjs/common';\n@Controller({ path: 'cards', version: '1' })\nexport class CardsController {\n  @Get()\n  list() {}\n}\n",
        ),
    ]);
}

#[test]
fn koa_routers_from_factories_mounted_in_a_loop() {
    check!(&[
        (
            "core/src/tenant.ts",
            r#"import Koa from "koa";
import mount from "koa-mount";
import initApis, { initWellKnown } from "./routes/init";

export class Tenant {
  build(ctx) {
    const app = new Koa();
    app.use(mount("/.well-known", initWellKnown(ctx)));
    app.use(mount("/api", initApis(ctx)));
    return app;
  }
}
"#,
        ),
        (
            "core/src/routes/init.ts",
            r#"import Koa from "koa";
import Router from "koa-router";
import roleRoutes from "./role";
import adminRoutes from "./admin";
import statusRoutes from "./status";

const createRouters = (ctx) => {
  const managementRouter = new Router();
  roleRoutes(managementRouter, ctx);
  adminRoutes(managementRouter, ctx);
  const anonymousRouter = new Router();
  statusRoutes(anonymousRouter, ctx);
  return [managementRouter, anonymousRouter];
};

export default function initApis(ctx): Koa {
  const apisApp = new Koa();
  for (const router of createRouters(ctx)) {
    apisApp.use(router.routes()).use(router.allowedMethods());
  }
  return apisApp;
}

export function initWellKnown(ctx): Koa {
  const wellKnownApp = new Koa();
  const anonymousRouter = new Router();
  anonymousRouter.get("/openid-configuration", async (ctx) => {});
  wellKnownApp.use(anonymousRouter.routes());
  return wellKnownApp;
}
"#,
        ),
        (
            "core/src/routes/role.ts",
            r#"import userRoleRoutes from "./role.user";

export default function roleRoutes<T>(...[router, ctx]: RouterInitArgs<T>) {
  router.get("/roles", async (ctx) => {});
  router.delete("/roles/:id", async (ctx) => {});
  userRoleRoutes(router, ctx);
}
"#,
        ),
        (
            "core/src/routes/role.user.ts",
            r#"export default function userRoleRoutes<T>(...[router]: RouterInitArgs<T>) {
  router.post("/roles/:id/users", async (ctx) => {});
}
"#,
        ),
        (
            "core/src/routes/admin/index.ts",
            r#"import basics from "./basics";

export default function adminRoutes<T>(...args: RouterInitArgs<T>) {
  basics(...args);
}
"#,
        ),
        (
            "core/src/routes/admin/basics.ts",
            r#"export default function basics<T>(...args: RouterInitArgs<T>) {
  const [router, { queries }] = args;
  router.get("/users/:userId", async (ctx) => {});
}
"#,
        ),
        (
            "core/src/routes/status.ts",
            r#"export default function statusRoutes(router, ctx) {
  router.get("/status", async (ctx) => {});
}
"#,
        ),
        (
            "core/src/legacy.js",
            r#"const Koa = require("koa");
const Router = require("@koa/router");
const app = new Koa();
const router = new Router();
router.prefix("/legacy");
router.get("/things", list);
app.use(router.routes());
"#,
        ),
    ]);
}

#[test]
fn next_pages_methods_from_request_method_checks() {
    check!(&[
        ("web/next.config.js", "module.exports = {};\n"),
        (
            "web/pages/api/items/index.ts",
            r#"export default async function handler(req, res) {
  if (req.method === "GET") return res.json([]);
  if (req.method === "POST") return res.status(201).json({});
  res.status(405).end();
}
"#,
        ),
        (
            "web/pages/api/items/[id].ts",
            r#"export default async function handler(req, res) {
  switch (req.method) {
    case "GET":
      return res.json({});
    case "DELETE":
      return res.status(204).end();
  }
}
"#,
        ),
        (
            "web/pages/api/guarded.ts",
            r#"export default function handler(req, res) {
  if (req.method !== "PUT") return res.status(405).end();
  res.json({});
}
"#,
        ),
        (
            "web/pages/api/allowed.ts",
            r#"export default function handler(req, res) {
  if (!["PATCH", "POST"].includes(req.method)) return res.status(405).end();
  res.json({});
}
"#,
        ),
        (
            "web/pages/api/table.ts",
            r#"const handlers = { GET: list, PUT: update };
const options = { get: 1 };
export default function handler(req, res) {
  return handlers[req.method](req, res);
}
"#,
        ),
        (
            "web/pages/api/delegated.ts",
            r#"import handle from "../../lib/upload";
export default handle;
"#,
        ),
        (
            "web/lib/upload.ts",
            r#"export default async function handle(req, res) {
  if (req.method === "POST") return res.json({});
}
"#,
        ),
        (
            "web/pages/api/anything.ts",
            r#"export default function handler(req, res) {
  if (req.method === "OPTIONS") return res.end();
  res.json({ ok: true });
}
"#,
        ),
    ]);
}

#[test]
fn nest_global_prefix_with_an_exclude_list() {
    // The second app's exclude entry is computed: its prefix applies, only likely.
    let evidence = check!(&[
        (
            "src/main.ts",
            r#"import { NestFactory } from "@nestjs/core";
import { RequestMethod } from "@nestjs/common";
async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix("api", {
    exclude: ["health", { path: "auth/*", method: RequestMethod.GET }],
  });
  await app.listen(3000);
}
bootstrap();
"#,
        ),
        (
            "src/health.controller.ts",
            r#"import { Controller, Get } from "@nestjs/common";
@Controller("health")
export class HealthController {
  @Get()
  check() {}
  @Get("deep")
  deep() {}
}
"#,
        ),
        (
            "src/auth.controller.ts",
            r#"import { Controller, Get, Post } from "@nestjs/common";
@Controller("auth")
export class AuthController {
  @Get("github/callback")
  callback() {}
  @Post("login")
  login() {}
}
"#,
        ),
        (
            "other/main.ts",
            r#"import { NestFactory } from "@nestjs/core";
const app = await NestFactory.create(OtherModule);
app.setGlobalPrefix("v2", { exclude: [paths()] });
"#,
        ),
        (
            "other/items.controller.ts",
            r#"import { Controller, Get } from "@nestjs/common";
@Controller("items")
export class ItemsController {
  @Get()
  list() {}
}
"#,
        ),
    ]);
    assert!(
        evidence.iter().any(|e| e.starts_with("NestJS route GET /health ")
            && e.contains("without the global prefix /api, whose exclude list names it")),
        "{evidence:#?}"
    );
}

#[test]
fn koa_plugin_routers_mounted_through_a_registry() {
    let evidence = check!(&[
        (
            "server/registry.ts",
            r#"export enum Slot { Api = "api", Login = "login", Task = "task" }
export class Registry {
  static add(entries) {}
  static items(slot) { return []; }
}
"#,
        ),
        (
            "server/other.ts",
            r#"export enum Slot { Api = "api" }
"#,
        ),
        (
            "server/web.ts",
            r#"import Koa from "koa";
import mount from "koa-mount";
import api from "./api";
import auth from "./auth";

const app = new Koa();
app.use(mount("/api", api));
app.use(mount("/auth", auth));
export default app;
"#,
        ),
        (
            "server/api.ts",
            r#"import Koa from "koa";
import Router from "koa-router";
import { Registry, Slot } from "./registry";

const api = new Koa();
const router = new Router();
Registry.items(Slot.Api).forEach((item) => router.use("/", item.value.routes()));
Registry.items(Slot.Task).forEach((item) => router.use("/tasks", item.value.routes()));
router.post("/core.info", async (ctx) => {});
api.use(router.routes());
export default api;
"#,
        ),
        (
            "server/helper.ts",
            r#"import { Registry, Slot } from "./registry";

export default class Helper {
  static get providers() {
    return Registry.items(Slot.Login);
  }
}
"#,
        ),
        (
            "server/auth.ts",
            r#"import Koa from "koa";
import Router from "koa-router";
import Helper from "./helper";

const auth = new Koa();
const router = new Router();
(async () => {
  for (const item of Helper.providers) {
    const resolved = await item.value.router;
    if (resolved) {
      router.use("/", resolved.routes());
    }
  }
})();
auth.use(router.routes());
export default auth;
"#,
        ),
        (
            "plugins/shop/index.ts",
            r#"import { Registry, Slot } from "../../server/registry";
import shopApi from "./api";
import login from "./login";

Registry.add([
  { kind: Slot.Api, value: shopApi },
  { kind: Slot.Login, value: { router: login, id: "shop" } },
]);
"#,
        ),
        (
            "plugins/shop/api.ts",
            r#"import Router from "koa-router";
const router = new Router();
router.post("/shop.list", async (ctx) => {});
export default router;
"#,
        ),
        (
            "plugins/shop/login.ts",
            r#"import Router from "koa-router";
const router = new Router();
router.get("/shop.callback", async (ctx) => {});
export default router;
"#,
        ),
        (
            "plugins/stray/index.ts",
            r#"import { Registry } from "../../server/registry";
import { Slot } from "../../server/other";
import strayApi from "./api";

// The same key text from another module is another key: not mounted under /api.
Registry.add({ kind: Slot.Api, value: strayApi });
"#,
        ),
        (
            "plugins/stray/api.ts",
            r#"import Router from "koa-router";
const router = new Router();
router.post("/stray.list", async (ctx) => {});
export default router;
"#,
        ),
    ]);
    insta::assert_snapshot!(evidence.join("\n"));
}

#[test]
fn express_mounts_inside_start_functions_and_route_chains() {
    check!(&[
        (
            "srv/server.js",
            r#"const express = require('express');
const usersRouter = require('./routes/users');
const { router: itemsRouter } = require('./routes/items');
async function start() {
  const app = express();
  app.use(express.json());
  app.use('/api/users', usersRouter);
  app.use(itemsRouter);
  await app.listen(3000);
}
start();
"#,
        ),
        (
            "srv/routes/users.js",
            r#"const express = require('express');
const router = express.Router();
router.route('/').get(listUsers).post(createUser);
router.route('/:id').get(showUser).put(updateUser).delete(removeUser);
module.exports = router;
"#,
        ),
        (
            "srv/routes/items.js",
            r#"const { Router } = require('express');
const router = Router();
router.get('/items', listItems);
module.exports = { router };
"#,
        ),
        (
            "esm/main.mjs",
            r#"import express from 'express';
import reports from './reports.mjs';
(async () => {
  const app = express();
  app.use('/reports', reports);
  app.listen(8080);
})();
"#,
        ),
        (
            "esm/reports.mjs",
            r#"import { Router } from 'express';
const reports = Router();
reports.get('/daily', daily);
export default reports;
"#,
        ),
    ]);
}

#[test]
fn koa_prefixes_and_fastify_plugins_from_imported_functions() {
    check!(&[
        (
            "koa/app.js",
            r#"const Koa = require('koa');
const accounts = require('./accounts');
const { tags } = require('./tags');
const app = new Koa();
app.use(accounts.routes());
app.use(tags.routes()).use(tags.allowedMethods());
"#,
        ),
        (
            "koa/accounts.js",
            r#"const Router = require('@koa/router');
const router = new Router();
router.prefix('/accounts');
router.get('/', list);
router.post('/:id/close', close);
module.exports = router;
"#,
        ),
        (
            "koa/tags.js",
            r#"const Router = require('koa-router');
const tags = new Router({ prefix: '/tags' });
tags.get('/:tag', show);
module.exports = { tags };
"#,
        ),
        (
            "fy/server.ts",
            r#"import Fastify from 'fastify';
import users from './users';
import { healthRoutes } from './health';
const app = Fastify();
app.register(users, { prefix: '/v1' });
app.register(healthRoutes);
app.register(require('./legacy'), { prefix: '/old' });
app.listen({ port: 3000 });
"#,
        ),
        (
            "fy/users.ts",
            r#"import type { FastifyInstance } from 'fastify';
import admin from './admin';
export default async function (app: FastifyInstance) {
  app.get('/users', list);
  app.route({ method: ['GET', 'POST'], url: '/things', handler: things });
  app.register(admin, { prefix: '/admin' });
}
"#,
        ),
        (
            "fy/admin.ts",
            r#"export default async function adminRoutes(fastify) {
  fastify.delete('/users/:id', remove);
}
"#,
        ),
        (
            "fy/health.ts",
            r#"export async function healthRoutes(server) {
  server.get('/health', async () => ({ ok: true }));
}
"#,
        ),
        (
            "fy/legacy.js",
            r#"module.exports = async function (fastify, opts) {
  fastify.put('/record', save);
};
"#,
        ),
    ]);
}

#[test]
fn next_reexported_handlers_and_catch_all_segments() {
    check!(&[
        ("web/next.config.js", "module.exports = {};\n"),
        ("web/pages/api/upload.ts", "export { default } from \"../../lib/upload\";\n"),
        (
            "web/lib/upload.ts",
            r#"export default async function handle(req, res) {
  if (req.method !== "POST") return res.status(405).end();
  res.json({});
}
"#,
        ),
        ("web/pages/api/plain.ts", "export { default } from \"../../lib/plain\";\n"),
        ("web/lib/plain.ts", "export default function plain(req, res) { res.json({}); }\n",),
        ("web/app/api/items/route.ts", "export { GET, POST } from \"../../../lib/items\";\n",),
        (
            "web/app/api/alias/route.ts",
            "export { handler as GET, handler as DELETE } from \"../../../lib/items\";\n",
        ),
        (
            "web/lib/items.ts",
            r#"export async function GET() { return Response.json([]); }
export async function POST() { return Response.json({}); }
export async function handler() { return new Response(null); }
"#,
        ),
        (
            "web/pages/api/docs/[...slug].ts",
            "export default function docs(req, res) { if (req.method === 'GET') res.json({}); }\n",
        ),
        (
            "web/pages/api/opt/[[...parts]].ts",
            "export default function opt(req, res) { res.json({}); }\n",
        ),
        (
            "web/app/api/files/[...path]/route.ts",
            "export async function GET() { return new Response(null); }\n",
        ),
    ]);
}

#[test]
fn nest_router_module_paths_prefix_module_controllers() {
    let evidence = check!(&[
        (
            "svc/src/main.ts",
            r#"import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  app.setGlobalPrefix('api');
  await app.listen(3000);
}
bootstrap();
"#,
        ),
        (
            "svc/src/app.module.ts",
            r#"import { Module } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { ReportsModule } from './reports';
import { AppController } from './app.controller';
@Module({
  imports: [
    AdminModule,
    ReportsModule,
    RouterModule.register([
      { path: 'admin', module: AdminModule, children: [{ path: 'reports', module: ReportsModule }] },
    ]),
  ],
  controllers: [AppController],
})
export class AppModule {}
"#,
        ),
        (
            "svc/src/app.controller.ts",
            r#"import { Controller, Get } from '@nestjs/common';
@Controller()
export class AppController {
  @Get('health')
  health() { return 'ok'; }
}
"#,
        ),
        (
            "svc/src/admin/admin.module.ts",
            r#"import { Module } from '@nestjs/common';
import { UsersController } from './users.controller';
@Module({ controllers: [UsersController] })
export class AdminModule {}
"#,
        ),
        (
            "svc/src/admin/users.controller.ts",
            r#"import { All, Controller, Get } from '@nestjs/common';
@Controller('users')
export class UsersController {
  @Get(':id')
  one() {}
  @All('*path')
  rest() {}
}
"#,
        ),
        ("svc/src/reports/index.ts", "export * from './reports.module';\n"),
        (
            "svc/src/reports/reports.module.ts",
            r#"import { Module } from '@nestjs/common';
import { DailyController } from './daily.controller';
@Module({ controllers: [DailyController] })
export class ReportsModule {}
"#,
        ),
        (
            "svc/src/reports/daily.controller.ts",
            r#"import { Controller, Get } from '@nestjs/common';
@Controller('daily')
export class DailyController {
  @Get()
  list() {}
}
"#,
        ),
    ]);
    assert!(
        evidence.iter().any(|e| e.contains(
            "under the RouterModule path /admin/reports given to ReportsModule in svc/src/app.module.ts"
        )),
        "{evidence:#?}"
    );
}

#[test]
fn nest_versioning_prefix_after_a_computed_deployment_root() {
    check!(&[
        (
            "api/src/boot.ts",
            r#"import { NestFactory } from '@nestjs/core';
import { VersioningType } from '@nestjs/common';
import { BASE_PATH } from './settings';
export async function boot() {
  const app = await NestFactory.create(RootModule);
  app.enableVersioning({ type: VersioningType.URI, prefix: `${BASE_PATH}v`, defaultVersion: '1' });
  await app.listen(3000);
}
"#,
        ),
        ("api/src/settings.ts", "export const BASE_PATH = process.env.BASE_PATH ?? '';\n"),
        (
            "api/src/notes/notes.controller.ts",
            r#"import { Controller, Get, Post } from '@nestjs/common';
@Controller('/notes')
export class NotesController {
  @Get(':id')
  read() {}
}
@Controller({ path: '/notes', version: '2' })
export class NotesV2Controller {
  @Post()
  write() {}
}
"#,
        ),
    ]);
}

#[test]
fn express_routers_from_an_autoloaded_folder() {
    check!(&[
        (
            "srv/core.js",
            r#"const load = require('auto-load');
const express = require('express');
module.exports = async () => {
  const handlers = load(path.join(APP.ROOT, '/handlers'));
  const app = express();
  app.use('/', handlers.pages);
  app.use('/files', handlers.files);
  app.listen(80);
};
"#,
        ),
        (
            "srv/handlers/pages.js",
            r#"const express = require('express');
const router = express.Router();
router.get(['/p', '/p/*'], (req, res) => res.end());
router.all('/*', (req, res, next) => next());
module.exports = router;
"#,
        ),
        (
            "srv/handlers/files.js",
            r#"const express = require('express');
const router = express.Router();
router.post('/:id', (req, res) => res.end());
module.exports = router;
"#,
        ),
    ]);
}

/// React Router / Remix resource routes beside a flat-routes config: a loader serves GET, an
/// action POST (and, `likely`, the other non-GET methods); a page (a default export) and a module
/// of a project without the config serve nothing; a page's `fetch` of the resource route links.
#[test]
fn react_router_resource_routes_under_flat_routes() {
    let files = [
        (
            "apps/web/app/routes.ts",
            "import { remixRoutesOptionAdapter } from '@react-router/remix-routes-option-adapter';\nimport { flatRoutes } from 'remix-flat-routes';\nexport default remixRoutesOptionAdapter((defineRoutes) => flatRoutes('routes', defineRoutes));\n",
        ),
        (
            "apps/web/app/routes/api+/locale.tsx",
            "export const action = async ({ request }) => {\n  return new Response('OK');\n};\n",
        ),
        (
            "apps/web/app/routes/api+/avatar.$id.tsx",
            "export async function loader({ params }) {\n  return new Response(params.id);\n}\n",
        ),
        (
            "apps/web/app/routes/_authenticated+/settings._index.tsx",
            "export const loader = () => null;\nexport default function Settings() {\n  fetch('/api/locale', { method: 'POST', body: 'x' });\n  return null;\n}\n",
        ),
        ("other/app/routes/api.orphan.ts", "export const loader = () => null;\n"),
    ];
    let (serves, evidence, refusals) = analyse(&files);
    assert_eq!(
        serves,
        [
            "DELETE /api/locale <- apps/web/app/routes/api+/locale.tsx [convention likely] action react-router",
            "GET /api/avatar/{} <- apps/web/app/routes/api+/avatar.$id.tsx [convention certain] loader react-router",
            "PATCH /api/locale <- apps/web/app/routes/api+/locale.tsx [convention likely] action react-router",
            "POST /api/locale <- apps/web/app/routes/api+/locale.tsx [convention certain] action react-router",
            "PUT /api/locale <- apps/web/app/routes/api+/locale.tsx [convention likely] action react-router",
        ],
        "{serves:#?}"
    );
    assert!(evidence.iter().all(|e| e.contains("apps/web/app/routes.ts")), "{evidence:#?}");
    assert!(refusals.is_empty(), "{refusals:#?}");
    let analysis = common::analyse_files(&files);
    let linked = analysis.edges.iter().any(|e| {
        e.kind == EdgeKind::Calls
            && e.from.name().ends_with("settings._index.tsx")
            && e.to.name() == "POST /api/locale"
    });
    assert!(linked, "the page's fetch is not linked to POST /api/locale");
}

/// NestJS decorators imported from the `@nestjs/common/decorators` entry point are NestJS's.
#[test]
fn nest_decorators_from_the_decorators_entry_point() {
    let files = [
        ("svc/src/main.ts", MAIN_TS),
        ("svc/src/app.module.ts", "export class AppModule {}\n"),
        (
            "svc/src/workflows/workflow.controller.ts",
            "import { Controller, Delete, Get, Param, Post } from '@nestjs/common/decorators';\n@Controller({ path: `/workflows` })\nexport class WorkflowController {\n  @Post('')\n  create() {}\n  @Get(':id')\n  get(@Param('id') id: string) { return id; }\n  @Delete(':id')\n  remove() {}\n}\n",
        ),
    ];
    let (serves, _, _) = analyse(&files);
    for route in ["POST /api/workflows", "GET /api/workflows/{}", "DELETE /api/workflows/{}"] {
        assert!(
            serves.iter().any(|s| s.starts_with(&format!("{route} <-"))),
            "{route}: {serves:#?}"
        );
    }
}
