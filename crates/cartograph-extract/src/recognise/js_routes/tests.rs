//! Data-driven tests of the JS route facts: one `check(path, source, expected)` helper that renders
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
    Extractor::new().extract(&path, grammar, source).js_routes
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
    for a in &js.applies {
        out.push(format!("apply {} to {} at {}", a.server, target(&a.function), a.index));
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
    for c in &js.nest_controllers {
        out.push(format!("controller {} {}", c.class, path(&c.prefix)));
        for r in &c.routes {
            out.push(format!("  {} {} {}", r.method, path(&r.path), r.handler));
        }
    }
    for a in &js.nest_apps {
        let prefix = a.prefix.as_ref().map(path).unwrap_or_else(|| "-".to_owned());
        out.push(format!("nest app prefix {prefix}"));
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

fn check(path: &str, source: &str, expected: &[&str]) {
    let got = render(&facts(path, source));
    assert_eq!(got, expected, "source:\n{source}");
}

#[test]
fn express_app_and_routers() {
    check(
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
        ),
        &[
            "server app Express App",
            "route app GET '/health' via app.get handler -",
            "route app POST '/book' via app.route().post handler addBook",
            "route app GET '/book' via app.route().get handler getBook",
            "mount app '/api/orders' auth via app.use",
            "mount app '/api/orders' ordersRouter via app.use",
            "export default = app",
        ],
    );
}

#[test]
fn express_router_module_shapes() {
    check(
        "routes/orders.ts",
        concat!(
            "import { Router } from 'express';\n",
            "import * as ctrl from '../controllers/orders';\n",
            "const router = Router();\n",
            "router.get('/:id', ctrl.getOrder);\n",
            "router.delete(`/${id}`, asyncHandler(removeOrder));\n",
            "export default router;\n",
        ),
        &[
            "server router Express Router",
            "route router GET '/:id' via router.get handler ctrl.getOrder",
            "route router DELETE <computed> via router.delete handler removeOrder",
            "export default = router",
            "default export router",
        ],
    );
    check(
        "routes/users.js",
        concat!(
            "const express = require('express');\n",
            "const router = express.Router({ mergeParams: true });\n",
            "router.post('/', createUser);\n",
            "module.exports = { router, other: helper };\n",
        ),
        &[
            "server router Express Router",
            "route router POST '/' via router.post handler createUser",
            "export router = router",
            "export other = helper",
        ],
    );
    check(
        "routes/r.js",
        "module.exports = require('express').Router();\nexports.x = require('express')();\n",
        &[
            "server default Express Router",
            "server x Express App",
            "export default = default",
            "export x = x",
        ],
    );
}

#[test]
fn client_side_navigation_is_not_a_server() {
    check(
        "ui/nav.tsx",
        concat!(
            "import { useRouter } from 'next/navigation';\n",
            "const router = useRouter();\n",
            "router.push('/items', undefined);\n",
            "router.navigate('/x');\n",
            "const m = new Map();\n",
            "m.get('key');\n",
        ),
        &["imports next"],
    );
}

#[test]
fn koa_router_with_prefix_and_nesting() {
    check(
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
        ),
        &[
            "server app Koa App",
            "server api Koa Router prefix '/api'",
            "server users Koa Router",
            "route users GET '/users/:id' via users.get handler show",
            "route users DELETE '/users/:id' via users.del handler remove",
            "mount api '/v1' users via api.use",
            "mount app - api via app.use",
        ],
    );
}

#[test]
fn fastify_routes_and_plugins() {
    check(
        "server.ts",
        concat!(
            "import Fastify from 'fastify';\n",
            "import itemRoutes from './items';\n",
            "const fastify = Fastify({ logger: true });\n",
            "fastify.route({ method: ['GET', 'HEAD'], url: '/status', handler: status });\n",
            "fastify.route({ method: verb, url: '/x', handler: status });\n",
            "fastify.register(itemRoutes, { prefix: '/api/items' });\n",
            "fastify.register(async (instance) => { instance.get('/ping', async () => 'pong'); }, { prefix: '/v1' });\n",
        ),
        &[
            "server fastify Fastify App",
            "route fastify GET|HEAD '/status' via fastify.route handler status",
            "route fastify ANY <computed> via fastify.route handler status",
            "route instance(param 0 of @inline) GET '/ping' via instance.get handler -",
            "mount fastify '/api/items' itemRoutes via fastify.register",
            "mount fastify '/v1' fn @inline via fastify.register",
        ],
    );
    check(
        "items.js",
        concat!(
            "module.exports = async function (fastify, opts) {\n",
            "  fastify.get('/:id', getItem);\n",
            "};\n",
        ),
        &[
            "route fastify(param 0 of default) GET '/:id' via fastify.get handler getItem",
            "export default = default",
        ],
    );
    check(
        "plugin.ts",
        "export default fp(async function items(server) { server.post('/', create); });\n",
        &[
            "route server(param 0 of default) POST '/' via server.post handler create",
            "export default = default",
            "default export -",
        ],
    );
}

#[test]
fn hono_apps() {
    check(
        "index.ts",
        concat!(
            "import { Hono } from 'hono';\n",
            "import books from './books';\n",
            "const app = new Hono().basePath('/api');\n",
            "app.get('/a', a).post('/b', b);\n",
            "app.on(['PUT', 'DELETE'], '/c', c);\n",
            "app.route('/books', books);\n",
            "export default app;\n",
        ),
        &[
            "server app Hono App prefix '/api'",
            "route app POST '/b' via app.post handler b",
            "route app GET '/a' via app.get handler a",
            "route app PUT|DELETE '/c' via app.on handler c",
            "mount app '/books' books via app.route",
            "export default = app",
            "default export app",
        ],
    );
    check(
        "books.ts",
        "import { Hono } from 'hono';\nexport default new Hono();\n",
        &["server default Hono App", "export default = default", "default export -"],
    );
}

#[test]
fn applies_hand_a_server_to_a_function() {
    check(
        "server.js",
        concat!(
            "const express = require('express');\n",
            "const app = express();\n",
            "require('./routes')(app);\n",
            "registerRoutes(app, db);\n",
            "other(db);\n",
        ),
        &[
            "server app Express App",
            "apply app to module ./routes at 0",
            "apply app to registerRoutes at 0",
        ],
    );
}

#[test]
fn nest_controllers_and_prefix() {
    check(
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
        ),
        &[
            "export ItemsController = ItemsController",
            "controller ItemsController 'items'",
            "  GET '' findAll",
            "  GET ':id' findOne",
            "  POST '' create",
        ],
    );
    check(
        "src/main.ts",
        concat!(
            "import { NestFactory } from '@nestjs/core';\n",
            "async function bootstrap() {\n",
            "  const app = await NestFactory.create(AppModule);\n",
            "  app.setGlobalPrefix('api');\n",
            "  await app.listen(3000);\n",
            "}\n",
        ),
        &["nest app prefix 'api'"],
    );
    // A `Controller` that is not NestJS's is not a controller.
    check(
        "src/x.ts",
        "import { Controller } from './mine';\n@Controller('x')\nclass X { @Get() a() {} }\n",
        &[],
    );
}

#[test]
fn next_route_exports() {
    check(
        "app/api/items/[id]/route.ts",
        concat!(
            "import { NextResponse } from 'next/server';\n",
            "export async function GET(req: Request) { return NextResponse.json({}); }\n",
            "export const POST = async () => NextResponse.json({});\n",
            "const handler = () => null;\n",
            "export { handler as PUT, handler as helper };\n",
        ),
        &[
            "export GET = GET",
            "export POST = POST",
            "export PUT = handler",
            "export helper = handler",
            "next GET GET",
            "next POST POST",
            "next PUT handler",
            "imports next",
        ],
    );
    check(
        "pages/api/users/[id].js",
        "export default function handler(req, res) { res.status(200).json({}); }\n",
        &["export default = handler", "default export handler"],
    );
}

#[test]
fn names_settle_to_file_constants() {
    check(
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
        ),
        &[
            "server app Express App",
            "route app GET '/health' via app.get handler health",
            "mount app <computed> apiRouter via app.use",
            "mount app '/v2' logger via app.use",
            "mount app '/v2' v2Router via app.use",
            "mount app - router via app.use",
        ],
    );
}

#[test]
fn chained_export_assignment_names_the_variable() {
    check(
        "app.js",
        "const express = require('express');\nconst app = module.exports = express();\napp.get('/x', x);\n",
        &[
            "server app Express App",
            "route app GET '/x' via app.get handler x",
            "export default = app",
        ],
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
    check(
        "routes/index.ts",
        concat!(
            "export { default as ordersRouter, helper } from './orders';\n",
            "export * from './users';\n",
            "export * as admin from './admin';\n",
            "export type { T } from './types';\n",
        ),
        &[
            "reexport ordersRouter = default from ./orders",
            "reexport helper = helper from ./orders",
            "reexport * from ./users",
            "reexport T = T from ./types",
        ],
    );
}

#[test]
fn path_arrays_give_one_route_each() {
    check(
        "a.js",
        "const app = require('express')();\napp.get(['/a', B], h);\napp.post(['/c', `/${d}`], h);\nconst B = '/b';\n",
        &[
            "server app Express App",
            "route app GET '/a' via app.get handler h",
            "route app GET '/b' via app.get handler h",
            "route app POST <computed> via app.post handler h",
        ],
    );
}
