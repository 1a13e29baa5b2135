//! Routes served by TypeScript/JavaScript web frameworks, with mounts composed across modules.
//!
//! Four linkers share the per-file facts of `recognise::js_routes`: [`servers`] (Express, Koa,
//! Fastify, Hono: apps, routers and plugins followed through imports and mount chains), [`nest`]
//! (controllers under the app's global prefix), [`nextjs`] (file-system routes inside a
//! Next.js project) and [`remix`] (React Router / Remix resource routes).

// Each framework's link half lives in its folder beside its syntax half; it is a child of this
// module so that it shares the family's linker types.
#[path = "nest/link.rs"]
mod nest;
#[path = "nextjs/link.rs"]
mod nextjs;
#[path = "remix/link.rs"]
mod remix;
mod servers;

use crate::recognise::link::{LinkInput, Linked, ServedRoute};

/// The routes of this family.
pub fn link(input: &LinkInput<'_>, linked: &mut Linked) -> Vec<ServedRoute> {
    let mut routes = servers::link(input, linked);
    routes.extend(nest::link(input, linked));
    routes.extend(nextjs::link(input, linked));
    routes.extend(remix::link(input));
    routes
}
