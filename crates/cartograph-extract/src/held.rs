//! A file's facts as the analyser holds them from extraction until they are linked.
//!
//! The facts of every file of a tree are held until the tree is linked, and decoded they take
//! several times their encoding (each list and string an allocation of its own). Held, a file's
//! imports and each family of its facts stay in their postcard encoding; resolution decodes the
//! imports of one file at a time, and linking decodes one family of every file at a time
//! ([`HeldFacts::family`]), drops it, and goes on to the next. The few fields every file reads
//! at once (language, refusals, error regions) are held decoded.

use std::fmt;
use std::sync::Arc;

use cartograph_core::{Language, Refusal};
use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::facts::{EmptyFamily, Slot};
use crate::{FileFacts, ImportFact, PackedVec};

/// One family of facts: what one recogniser family extracts and its linker reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    PyRoutes,
    JsRoutes,
    RustRoutes,
    Calls,
    Tables,
    Env,
}

impl Family {
    /// Every family, in the order the linkers run (routes before the calls matched to them).
    pub const ALL: [Family; 6] = [
        Family::PyRoutes,
        Family::JsRoutes,
        Family::RustRoutes,
        Family::Calls,
        Family::Tables,
        Family::Env,
    ];

    /// What its facts are about, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Family::PyRoutes => "Python route",
            Family::JsRoutes => "JavaScript route",
            Family::RustRoutes => "Rust route",
            Family::Calls => "HTTP call",
            Family::Tables => "table",
            Family::Env => "environment variable",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// A file's facts held in their encoding: see the module documentation. Built with
/// [`HeldFacts::pack`]; [`HeldFacts::unpack`] gives the same facts back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldFacts {
    pub language: Language,
    /// Constructs the extractor would not decide about (computed imports, syntax errors).
    pub refusals: Vec<Refusal>,
    /// How many syntax-error regions tree-sitter reported.
    pub error_regions: u32,
    imports: Encoded,
    /// Each [`Family`]'s facts, at its index in [`Family::ALL`]; the calls without their
    /// possible wrapper invocations, which are held apart.
    families: [Encoded; 6],
    /// The calls' possible wrapper invocations (`CallFacts::invocations`, a [`PackedVec`]): most
    /// of what a tree's facts hold. Decoded facts share these bytes rather than copy them.
    invocations: Encoded,
}

/// Why held facts could not be read back. Their bytes were encoded by this build (in this run,
/// or in a cache entry whose checksum held), so this is a defect rather than bad input; the
/// analyser records a refusal for the file instead of linking it as if it had no facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecodable;

impl fmt::Display for Undecodable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("held facts could not be decoded")
    }
}

impl std::error::Error for Undecodable {}

impl HeldFacts {
    /// Encodes `facts`. A part with nothing in it holds no bytes at all.
    pub fn pack(facts: FileFacts) -> Self {
        let FileFacts {
            language,
            imports,
            mut refusals,
            error_regions,
            py_routes,
            js_routes,
            rust_routes,
            mut calls,
            tables,
            env,
        } = facts;
        refusals.shrink_to_fit();
        let invocations = if calls.is_empty() {
            Encoded::NONE
        } else {
            Encoded(std::mem::take(&mut calls.invocations).into_encoded())
        };
        Self {
            language,
            refusals,
            error_regions,
            imports: if imports.is_empty() { Encoded::NONE } else { Encoded::of(&imports) },
            families: [
                Encoded::of_slot(&py_routes),
                Encoded::of_slot(&js_routes),
                Encoded::of_slot(&rust_routes),
                Encoded::of_slot(&calls),
                Encoded::of_slot(&tables),
                Encoded::of_slot(&env),
            ],
            invocations,
        }
    }

    /// The file's imports, decoded.
    pub fn imports(&self) -> Result<Vec<ImportFact>, Undecodable> {
        self.imports.decode()
    }

    /// Forgets the imports: once they are resolved, nothing reads them.
    pub fn drop_imports(&mut self) {
        self.imports = Encoded::NONE;
    }

    /// The file's facts with only `family` decoded: the language and that family, every other
    /// part empty. What one linker reads of a file.
    pub fn family(&self, family: Family) -> Result<FileFacts, Undecodable> {
        let mut facts = FileFacts::new(self.language);
        let bytes = &self.families[family.slot()];
        match family {
            Family::PyRoutes => facts.py_routes = bytes.decode_slot()?,
            Family::JsRoutes => facts.js_routes = bytes.decode_slot()?,
            Family::RustRoutes => facts.rust_routes = bytes.decode_slot()?,
            Family::Calls => {
                facts.calls = bytes.decode_slot()?;
                if let Some(invocations) = &self.invocations.0 {
                    facts.calls.invocations = PackedVec::from_encoded(Arc::clone(invocations));
                }
            }
            Family::Tables => facts.tables = bytes.decode_slot()?,
            Family::Env => facts.env = bytes.decode_slot()?,
        }
        Ok(facts)
    }

    /// Every part decoded: the facts [`HeldFacts::pack`] was given (without the imports, once
    /// they were dropped).
    pub fn unpack(&self) -> Result<FileFacts, Undecodable> {
        let mut facts = FileFacts::new(self.language);
        facts.imports = self.imports()?;
        facts.refusals = self.refusals.clone();
        facts.error_regions = self.error_regions;
        for family in Family::ALL {
            let one = self.family(family)?;
            match family {
                Family::PyRoutes => facts.py_routes = one.py_routes,
                Family::JsRoutes => facts.js_routes = one.js_routes,
                Family::RustRoutes => facts.rust_routes = one.rust_routes,
                Family::Calls => facts.calls = one.calls,
                Family::Tables => facts.tables = one.tables,
                Family::Env => facts.env = one.env,
            }
        }
        Ok(facts)
    }
}

/// A value's postcard encoding; `None` for a part with nothing in it.
#[derive(Clone, Default, PartialEq, Eq)]
struct Encoded(Option<Arc<[u8]>>);

impl Encoded {
    const NONE: Self = Self(None);

    fn of<T: Serialize + ?Sized>(value: &T) -> Self {
        // Encoding into memory fails only for a value serde cannot represent, which no fact is.
        Self(postcard::to_allocvec(value).ok().map(Arc::from))
    }

    fn of_slot<T: EmptyFamily + Serialize>(slot: &Slot<T>) -> Self {
        if slot.is_empty() { Self::NONE } else { Self::of(&**slot) }
    }

    fn decode<T: DeserializeOwned + Default>(&self) -> Result<T, Undecodable> {
        match &self.0 {
            None => Ok(T::default()),
            Some(bytes) => postcard::from_bytes(bytes).map_err(|_| Undecodable),
        }
    }

    fn decode_slot<T: EmptyFamily + DeserializeOwned>(&self) -> Result<Slot<T>, Undecodable> {
        self.decode().map(Slot::of)
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("none"),
            Some(bytes) => write!(f, "{} bytes", bytes.len()),
        }
    }
}

/// As an optional byte string (postcard: a tag, a length and the bytes).
impl Serialize for Encoded {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(self.0)
            }
        }
        match &self.0 {
            None => serializer.serialize_none(),
            Some(bytes) => serializer.serialize_some(&Bytes(bytes)),
        }
    }
}

impl<'de> Deserialize<'de> for Encoded {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes(Arc<[u8]>);
        impl<'de> Deserialize<'de> for Bytes {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_byte_buf(BytesVisitor)
            }
        }
        struct BytesVisitor;
        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = Bytes;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte string")
            }

            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(bytes.into()))
            }

            fn visit_byte_buf<E: serde::de::Error>(self, bytes: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(bytes.into()))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
                let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(byte) = seq.next_element::<u8>()? {
                    bytes.push(byte);
                }
                Ok(Bytes(bytes.into()))
            }
        }
        Option::<Bytes>::deserialize(deserializer).map(|bytes| Self(bytes.map(|b| b.0)))
    }
}

#[cfg(test)]
mod tests {
    use cartograph_core::RepoPath;

    use super::*;
    use crate::{Extractor, Grammar};

    /// Whether `held` keeps any bytes of `family`.
    fn has(held: &HeldFacts, family: Family) -> bool {
        held.families[family.slot()].0.is_some()
            || (family == Family::Calls && held.invocations.0.is_some())
    }

    fn extracted(path: &str, grammar: Grammar, text: &str) -> FileFacts {
        Extractor::new().extract(&RepoPath::new(path).unwrap(), grammar, text)
    }

    const PYTHON: &str = "import os\nfrom fastapi import APIRouter\nimport requests\n\
        router = APIRouter()\n\n@router.get('/items')\ndef items():\n    \
        requests.get('http://svc/x')\n    return os.environ['TOKEN']\n";

    #[test]
    fn packed_facts_unpack_to_the_facts_packed() {
        let facts = extracted("app/main.py", Grammar::Python, PYTHON);
        assert!(!facts.imports.is_empty() && !facts.py_routes.is_empty());
        let held = HeldFacts::pack(facts.clone());
        assert_eq!(held.unpack().unwrap(), facts);
        // And through the held encoding (the cache's, the fact files').
        let bytes = postcard::to_allocvec(&held).unwrap();
        let back: HeldFacts = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, held);
        assert_eq!(back.unpack().unwrap(), facts);
    }

    #[test]
    fn one_family_decodes_alone() {
        let facts = extracted("app/main.py", Grammar::Python, PYTHON);
        let held = HeldFacts::pack(facts.clone());
        let routes = held.family(Family::PyRoutes).unwrap();
        assert_eq!(routes.py_routes, facts.py_routes);
        assert!(routes.calls.is_empty() && routes.env.is_empty() && routes.imports.is_empty());
        assert!(has(&held, Family::Env) && has(&held, Family::Calls));
        assert!(!has(&held, Family::JsRoutes) && !has(&held, Family::RustRoutes));
        let env = held.family(Family::Env).unwrap();
        assert_eq!(env.env, facts.env);
        assert!(env.py_routes.is_empty());
    }

    #[test]
    fn empty_parts_hold_no_bytes_and_imports_can_be_dropped() {
        let facts = extracted("web/a.ts", Grammar::TypeScript, "export const x = 1;\n");
        let mut held = HeldFacts::pack(facts.clone());
        assert!(Family::ALL.iter().all(|f| !has(&held, *f)));
        assert_eq!(held.unpack().unwrap(), facts);
        let with_import =
            HeldFacts::pack(extracted("web/b.ts", Grammar::TypeScript, "import x from './a';\n"));
        assert_eq!(with_import.imports().unwrap().len(), 1);
        held = with_import;
        held.drop_imports();
        assert!(held.imports().unwrap().is_empty());
    }

    #[test]
    fn wrapper_invocations_are_held_apart_and_shared_when_decoded() {
        let text = "import { getJSON } from './api';\n\
            export function load(id: string) { return getJSON(`/api/users/${id}`); }\n";
        let facts = extracted("web/users.ts", Grammar::TypeScript, text);
        assert!(!facts.calls.invocations.to_vec().is_empty(), "the sample has an invocation");
        let held = HeldFacts::pack(facts.clone());
        let shared = held.invocations.0.clone().expect("held apart");
        assert!(has(&held, Family::Calls));
        let calls = held.family(Family::Calls).unwrap();
        assert_eq!(calls.calls, facts.calls);
        assert_eq!(held.unpack().unwrap(), facts);
        // The decoded facts read the held bytes: one more holder, no copy.
        assert_eq!(Arc::strong_count(&shared), 3);
        drop(calls);
        assert_eq!(Arc::strong_count(&shared), 2);
    }

    #[test]
    fn damaged_bytes_are_an_error_not_empty_facts() {
        let mut held = HeldFacts::pack(extracted("app/main.py", Grammar::Python, PYTHON));
        held.families[Family::Calls.slot()] = Encoded(Some(vec![0xff; 3].into()));
        assert_eq!(held.family(Family::Calls), Err(Undecodable));
        assert_eq!(held.unpack(), Err(Undecodable));
        assert!(held.family(Family::PyRoutes).is_ok());
    }
}
