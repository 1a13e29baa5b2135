//! A file's facts as the analyser holds them from extraction until they are linked.
//!
//! The facts of every file of a tree are held until the tree is linked, and decoded they take
//! several times their encoding (each list and string an allocation of its own). Held, a file's
//! imports and each family of its facts stay in their postcard encoding; resolution decodes the
//! imports of one file at a time, and linking decodes one family of every file at a time
//! ([`HeldFacts::family`]), drops it, and goes on to the next. The few fields every file reads
//! at once (language, refusals, error regions) are held decoded.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use cartograph_core::{Language, Refusal, RefusalKind, RepoPath, SourceLocation};
use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::facts::{EmptyFamily, Slot};
use crate::spill::{Place, Spill};
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
/// [`HeldFacts::pack`]; [`HeldFacts::unpack`] gives the same facts back. Their bytes may be moved
/// to a [`Spill`] ([`HeldFacts::spill_into`]); nothing else about them changes (equality and
/// encoding compare and write the bytes wherever they are).
#[derive(Debug, Clone)]
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
    /// Where the parts [`Encoded::Spilled`] are.
    spill: Option<Arc<Spill>>,
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

impl Undecodable {
    /// The refusal recorded for `path` when its facts about `what` could not be read back.
    pub fn refusal(path: &RepoPath, what: &str) -> Refusal {
        Refusal::new(
            RefusalKind::UnreadableFile,
            SourceLocation::file(path.clone()),
            format!("its {what} facts could not be decoded; claims made of them are missing"),
        )
    }
}

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
            std::mem::take(&mut calls.invocations)
                .into_encoded()
                .map_or(Encoded::NONE, Encoded::Held)
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
            spill: None,
        }
    }

    /// Moves every encoded part into `spill` (unless they are in a spill already). A part the
    /// spill does not take stays in memory.
    pub fn spill_into(&mut self, spill: &Arc<Spill>) {
        if self.spill.is_some() {
            return;
        }
        let mut spilled = false;
        for part in self.parts_mut() {
            if let Encoded::Held(bytes) = part
                && let Some(place) = spill.put(bytes)
            {
                *part = Encoded::Spilled(place);
                spilled = true;
            }
        }
        if spilled {
            self.spill = Some(Arc::clone(spill));
        }
    }

    /// The file's imports, decoded.
    pub fn imports(&self) -> Result<Vec<ImportFact>, Undecodable> {
        self.imports.decode(self.spill())
    }

    /// Forgets the imports: once they are resolved, nothing reads them.
    pub fn drop_imports(&mut self) {
        self.imports = Encoded::NONE;
    }

    fn spill(&self) -> Option<&Spill> {
        self.spill.as_deref()
    }

    fn parts(&self) -> impl Iterator<Item = &Encoded> {
        std::iter::once(&self.imports).chain(&self.families).chain([&self.invocations])
    }

    fn parts_mut(&mut self) -> impl Iterator<Item = &mut Encoded> {
        std::iter::once(&mut self.imports).chain(&mut self.families).chain([&mut self.invocations])
    }

    /// The file's facts with only `family` decoded: the language and that family, every other
    /// part empty. What one linker reads of a file.
    pub fn family(&self, family: Family) -> Result<FileFacts, Undecodable> {
        let mut facts = FileFacts::new(self.language);
        let (bytes, spill) = (&self.families[family.slot()], self.spill());
        match family {
            Family::PyRoutes => facts.py_routes = bytes.decode_slot(spill)?,
            Family::JsRoutes => facts.js_routes = bytes.decode_slot(spill)?,
            Family::RustRoutes => facts.rust_routes = bytes.decode_slot(spill)?,
            Family::Calls => {
                facts.calls = bytes.decode_slot(spill)?;
                // Shared, or left in the spill for the one linker job that reads them.
                match (&self.invocations, &self.spill) {
                    (Encoded::None, _) => {}
                    (Encoded::Held(held), _) => {
                        facts.calls.invocations = PackedVec::from_encoded(Arc::clone(held));
                    }
                    (Encoded::Spilled(place), Some(spill)) => {
                        facts.calls.invocations = PackedVec::from_spill(Arc::clone(spill), *place);
                    }
                    (Encoded::Spilled(_), None) => return Err(Undecodable),
                }
            }
            Family::Tables => facts.tables = bytes.decode_slot(spill)?,
            Family::Env => facts.env = bytes.decode_slot(spill)?,
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

/// A value's postcard encoding: in memory, in the file's [`Spill`], or nothing for a part with
/// nothing in it.
#[derive(Clone, Default)]
enum Encoded {
    #[default]
    None,
    Held(Arc<[u8]>),
    Spilled(Place),
}

impl Encoded {
    const NONE: Self = Self::None;

    fn of<T: Serialize + ?Sized>(value: &T) -> Self {
        // Encoding into memory fails only for a value serde cannot represent, which no fact is.
        postcard::to_allocvec(value).map_or(Self::None, |bytes| Self::Held(bytes.into()))
    }

    fn of_slot<T: EmptyFamily + Serialize>(slot: &Slot<T>) -> Self {
        if slot.is_empty() { Self::NONE } else { Self::of(&**slot) }
    }

    /// The bytes, wherever they are; `None` for an empty part.
    fn bytes<'a>(&'a self, spill: Option<&Spill>) -> Result<Option<Cow<'a, [u8]>>, Undecodable> {
        match self {
            Self::None => Ok(None),
            Self::Held(bytes) => Ok(Some(Cow::Borrowed(bytes))),
            Self::Spilled(place) => {
                let spill = spill.ok_or(Undecodable)?;
                spill.get(*place).map(|bytes| Some(Cow::Owned(bytes))).map_err(|_| Undecodable)
            }
        }
    }

    fn decode<T: DeserializeOwned + Default>(
        &self,
        spill: Option<&Spill>,
    ) -> Result<T, Undecodable> {
        match self.bytes(spill)? {
            None => Ok(T::default()),
            Some(bytes) => postcard::from_bytes(&bytes).map_err(|_| Undecodable),
        }
    }

    fn decode_slot<T: EmptyFamily + DeserializeOwned>(
        &self,
        spill: Option<&Spill>,
    ) -> Result<Slot<T>, Undecodable> {
        self.decode(spill).map(Slot::of)
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("none"),
            Self::Held(bytes) => write!(f, "{} bytes", bytes.len()),
            Self::Spilled(place) => write!(f, "spilled at {place:?}"),
        }
    }
}

/// Equal when they hold the same facts, wherever their bytes are (a part that cannot be read is
/// equal to nothing).
impl PartialEq for HeldFacts {
    fn eq(&self, other: &Self) -> bool {
        let same_part =
            |(a, b): (&Encoded, &Encoded)| match (a.bytes(self.spill()), b.bytes(other.spill())) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            };
        self.language == other.language
            && self.refusals == other.refusals
            && self.error_regions == other.error_regions
            && self.parts().zip(other.parts()).all(same_part)
    }
}

impl Eq for HeldFacts {}

/// Encoded as a struct of the decoded fields and each part as an optional byte string (postcard:
/// a tag, a length and the bytes), read from the spill where it is there: a cache entry or fact
/// file does not depend on where the bytes were held.
impl Serialize for HeldFacts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeStruct, SerializeTuple};
        struct Part<'a>(&'a Encoded, Option<&'a Spill>);
        impl Serialize for Part<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                struct Bytes<'a>(&'a [u8]);
                impl Serialize for Bytes<'_> {
                    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                        serializer.serialize_bytes(self.0)
                    }
                }
                match self.0.bytes(self.1).map_err(|_| S::Error::custom(Undecodable))? {
                    None => serializer.serialize_none(),
                    Some(bytes) => serializer.serialize_some(&Bytes(&bytes)),
                }
            }
        }
        struct Families<'a>(&'a [Encoded; 6], Option<&'a Spill>);
        impl Serialize for Families<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut tuple = serializer.serialize_tuple(self.0.len())?;
                for part in self.0 {
                    tuple.serialize_element(&Part(part, self.1))?;
                }
                tuple.end()
            }
        }
        let spill = self.spill();
        let mut out = serializer.serialize_struct("HeldFacts", 6)?;
        out.serialize_field("language", &self.language)?;
        out.serialize_field("refusals", &self.refusals)?;
        out.serialize_field("error_regions", &self.error_regions)?;
        out.serialize_field("imports", &Part(&self.imports, spill))?;
        out.serialize_field("families", &Families(&self.families, spill))?;
        out.serialize_field("invocations", &Part(&self.invocations, spill))?;
        out.end()
    }
}

impl<'de> Deserialize<'de> for HeldFacts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// The fields [`HeldFacts`] serializes, in its order.
        #[derive(Deserialize)]
        #[serde(rename = "HeldFacts")]
        struct Wire {
            language: Language,
            refusals: Vec<Refusal>,
            error_regions: u32,
            imports: Encoded,
            families: [Encoded; 6],
            invocations: Encoded,
        }
        let Wire { language, refusals, error_regions, imports, families, invocations } =
            Wire::deserialize(deserializer)?;
        Ok(Self { language, refusals, error_regions, imports, families, invocations, spill: None })
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
        Option::<Bytes>::deserialize(deserializer)
            .map(|bytes| bytes.map_or(Self::None, |b| Self::Held(b.0)))
    }
}

#[cfg(test)]
mod tests {
    use cartograph_core::RepoPath;

    use super::*;
    use crate::{Extractor, Grammar};

    /// Whether `held` keeps any bytes of `family`.
    fn has(held: &HeldFacts, family: Family) -> bool {
        let some = |part: &Encoded| !matches!(part, Encoded::None);
        some(&held.families[family.slot()]) || (family == Family::Calls && some(&held.invocations))
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
        let Encoded::Held(shared) = held.invocations.clone() else { panic!("held apart") };
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
        held.families[Family::Calls.slot()] = Encoded::Held(vec![0xff; 3].into());
        assert_eq!(held.family(Family::Calls), Err(Undecodable));
        assert_eq!(held.unpack(), Err(Undecodable));
        assert!(held.family(Family::PyRoutes).is_ok());
    }

    #[test]
    fn spilled_facts_decode_compare_and_encode_as_held_ones() {
        let facts = extracted("app/main.py", Grammar::Python, PYTHON);
        let held = HeldFacts::pack(facts.clone());
        // A limit of 0 writes every part to the file as it comes.
        let spill = Arc::new(Spill::with_limit(0));
        let mut spilled = held.clone();
        spilled.spill_into(&spill);
        assert!(spill.bytes_on_disk() > 0);
        assert!(spilled.parts().all(|part| !matches!(part, Encoded::Held(_))));
        assert_eq!(spilled, held);
        assert_eq!(spilled.unpack().unwrap(), facts);
        assert_eq!(spilled.family(Family::Calls).unwrap().calls, facts.calls);
        assert_eq!(spilled.imports().unwrap(), facts.imports);
        // The same encoding as held facts: a cache entry does not say where they were.
        let bytes = postcard::to_allocvec(&spilled).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&held).unwrap());
        let back: HeldFacts = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, held);
        // Spilled once, they stay where they are.
        let other = Arc::new(Spill::with_limit(0));
        spilled.spill_into(&other);
        assert_eq!(other.bytes_on_disk(), 0);
    }

    #[test]
    fn a_part_the_spill_cannot_give_back_is_undecodable() {
        let mut held = HeldFacts::pack(extracted("app/main.py", Grammar::Python, PYTHON));
        held.spill_into(&Arc::new(Spill::new()));
        // Facts that claim a spill they do not have cannot be read, nor encoded, nor equal.
        let mut orphan = held.clone();
        orphan.spill = None;
        assert_eq!(orphan.family(Family::PyRoutes), Err(Undecodable));
        assert!(postcard::to_allocvec(&orphan).is_err());
        assert_ne!(orphan, held);
    }
}
