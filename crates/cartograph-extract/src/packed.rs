//! Facts kept in their encoding until they are read.
//!
//! The facts of every file are held from extraction until the tree is linked, and some of them are
//! read only once, by the linker of their own file: a file's possible wrapper invocations are most
//! of the memory its facts take, each one a handful of small allocations, and are read only when
//! that file's calls are linked. A [`PackedVec`] keeps such a list as its postcard encoding — about
//! a sixth of its decoded size — and decodes it when asked.
//!
//! Its encoding may stay in the [`Spill`] that held the file's facts ([`PackedVec::from_spill`]):
//! then it is read only when the list is, by the one linker job that reads it, and not held in
//! memory with every other file's while the family is linked.
//!
//! It serializes as the list itself, so the cache's entries and the facts' encoding are the same
//! as with a plain `Vec`. Items pushed or given while a file is extracted wait unencoded until the list is
//! decoded from its encoding (the pipeline holds every file's facts so: see `compact`), which
//! packs them.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Undecodable;
use crate::spill::{Place, Spill};

/// A list held as its encoding. Equal lists have equal encodings, so comparing the encodings
/// compares the lists.
pub struct PackedVec<T> {
    /// The postcard encoding of the list's first items.
    bytes: Bytes,
    /// Items pushed or given after those, not yet encoded.
    pending: Vec<T>,
}

/// Where a [`PackedVec`]'s encoding is.
#[derive(Clone)]
enum Bytes {
    /// In memory; empty when there are no items. Shared, so that facts decoded for linking can
    /// take the held encoding without copying it.
    Held(Arc<[u8]>),
    /// In a spill, read when the list is.
    Spilled(Arc<Spill>, Place),
}

impl Bytes {
    const fn is_spilled(&self) -> bool {
        matches!(self, Self::Spilled(..))
    }

    fn read(&self) -> Result<Cow<'_, [u8]>, Undecodable> {
        match self {
            Self::Held(bytes) => Ok(Cow::Borrowed(bytes)),
            Self::Spilled(spill, place) => {
                spill.get(*place).map(Cow::Owned).map_err(|_| Undecodable)
            }
        }
    }
}

impl<T: Serialize + DeserializeOwned + Clone> PackedVec<T> {
    /// The list, encoded.
    fn new(items: &[T]) -> Self {
        if items.is_empty() {
            return Self::default();
        }
        // Encoding into memory fails only for a value serde cannot represent, which no fact is;
        // a list that could not be encoded would read back as empty rather than stop the run.
        let bytes = postcard::to_allocvec(items).unwrap_or_default();
        Self { bytes: Bytes::Held(bytes.into()), pending: Vec::new() }
    }

    /// The list held as `bytes`, the postcard encoding of a `Vec<T>` that
    /// [`PackedVec::into_encoded`] gave.
    pub(crate) fn from_encoded(bytes: Arc<[u8]>) -> Self {
        Self { bytes: Bytes::Held(bytes), pending: Vec::new() }
    }

    /// The list whose encoding (as [`PackedVec::from_encoded`] takes it) `spill` holds at
    /// `place`: read when the list is.
    pub(crate) fn from_spill(spill: Arc<Spill>, place: Place) -> Self {
        Self { bytes: Bytes::Spilled(spill, place), pending: Vec::new() }
    }

    /// The encoding of the whole list; `None` for an empty one. Only for a list built in
    /// memory (by extraction): a spilled one reads back as its encoding, or `None` if it cannot.
    pub(crate) fn into_encoded(self) -> Option<Arc<[u8]>> {
        let bytes = match (&self.bytes, self.pending.is_empty()) {
            (Bytes::Held(bytes), true) => Arc::clone(bytes),
            _ => Arc::from(self.encoded().ok()?.into_owned()),
        };
        (!bytes.is_empty()).then_some(bytes)
    }

    /// Adds an item at the end; it is encoded with the rest when the list is next decoded from
    /// its encoding.
    pub fn push(&mut self, item: T) {
        self.pending.push(item);
    }

    /// The list, decoded; an error when its encoding cannot be read back (a spill whose file
    /// failed).
    pub fn try_to_vec(&self) -> Result<Vec<T>, Undecodable> {
        let bytes = self.bytes.read()?;
        let mut items: Vec<T> = if bytes.is_empty() {
            Vec::new()
        } else {
            // The bytes were encoded from a `Vec<T>` by `new`, in this process (or read from a
            // cache entry whose checksum held).
            postcard::from_bytes(&bytes).map_err(|_| Undecodable)?
        };
        items.extend(self.pending.iter().cloned());
        Ok(items)
    }

    /// The list, decoded: empty if it cannot be, which only a list read back from a spill can
    /// meet (a linker reads such a list with [`PackedVec::try_to_vec`] and records the loss).
    pub fn to_vec(&self) -> Vec<T> {
        self.try_to_vec().unwrap_or_default()
    }

    /// The encoding of the whole list (of `[]` for an empty one: the empty list has no bytes).
    fn encoded(&self) -> Result<Cow<'_, [u8]>, Undecodable> {
        if self.pending.is_empty() {
            self.bytes.read()
        } else {
            let items = self.try_to_vec()?;
            if items.is_empty() {
                return Ok(Cow::Owned(Vec::new()));
            }
            postcard::to_allocvec(&items).map(Cow::Owned).map_err(|_| Undecodable)
        }
    }

    /// Whether the encoding is in a spill rather than in memory.
    pub fn is_spilled(&self) -> bool {
        self.bytes.is_spilled()
    }
}

impl<T> Default for PackedVec<T> {
    fn default() -> Self {
        Self { bytes: Bytes::Held(Arc::from(&[][..])), pending: Vec::new() }
    }
}

/// A list extraction built: held as it is until the facts are next decoded from their encoding.
impl<T> From<Vec<T>> for PackedVec<T> {
    fn from(items: Vec<T>) -> Self {
        Self { bytes: Bytes::Held(Arc::from(&[][..])), pending: items }
    }
}

impl<T: Clone> Clone for PackedVec<T> {
    fn clone(&self) -> Self {
        Self { bytes: self.bytes.clone(), pending: self.pending.clone() }
    }
}

/// Equal when their items are (a list that cannot be read is equal to nothing).
impl<T: Serialize + DeserializeOwned + Clone> PartialEq for PackedVec<T> {
    fn eq(&self, other: &Self) -> bool {
        matches!((self.encoded(), other.encoded()), (Ok(a), Ok(b)) if a == b)
    }
}

impl<T: Serialize + DeserializeOwned + Clone> Eq for PackedVec<T> {}

impl<T: Serialize + DeserializeOwned + Clone + fmt::Debug> fmt::Debug for PackedVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

impl<T: Serialize + DeserializeOwned + Clone> Serialize for PackedVec<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        self.try_to_vec().map_err(S::Error::custom)?.serialize(serializer)
    }
}

impl<'de, T: Serialize + DeserializeOwned + Clone> Deserialize<'de> for PackedVec<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(|items| Self::new(&items))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
    struct Item {
        name: String,
        args: Vec<Option<String>>,
    }

    fn items() -> Vec<Item> {
        vec![
            Item { name: "api.get".into(), args: vec![Some("/users".into()), None] },
            Item { name: "fetch".into(), args: vec![] },
        ]
    }

    #[test]
    fn reads_back_what_it_was_given() {
        let packed = PackedVec::new(&items());
        assert_eq!(packed.to_vec(), items());
        assert!(packed.pending.is_empty() && !packed.bytes.read().unwrap().is_empty());
        let empty = PackedVec::<Item>::new(&[]);
        assert!(empty.bytes.read().unwrap().is_empty());
        assert_eq!(empty.to_vec(), Vec::new());
        assert_eq!(empty, PackedVec::default());
    }

    #[test]
    fn encodes_as_the_list_itself() {
        let packed = PackedVec::new(&items());
        let as_list = postcard::to_allocvec(&items()).unwrap();
        assert_eq!(postcard::to_allocvec(&packed).unwrap(), as_list);
        let back: PackedVec<Item> = postcard::from_bytes(&as_list).unwrap();
        assert_eq!(back, packed);
        assert_eq!(format!("{packed:?}"), format!("{:?}", items()));
    }

    #[test]
    fn pushed_items_read_back_and_pack_when_decoded() {
        let mut pushed = PackedVec::default();
        for item in items() {
            pushed.push(item);
        }
        assert_eq!(pushed.to_vec(), items());
        assert_eq!(pushed, PackedVec::new(&items()));
        assert_eq!(PackedVec::from(items()), pushed);
        let encoded = postcard::to_allocvec(&pushed).unwrap();
        assert_eq!(encoded, postcard::to_allocvec(&items()).unwrap());
        let back: PackedVec<Item> = postcard::from_bytes(&encoded).unwrap();
        assert!(back.pending.is_empty() && !back.bytes.read().unwrap().is_empty());
        assert_eq!(back.to_vec(), items());
        let mut more = back.clone();
        more.push(items()[0].clone());
        assert_eq!(more.to_vec().len(), 3);
        assert_ne!(more, back);
    }

    #[test]
    fn the_encoding_taken_out_reads_back_as_the_list() {
        let bytes = PackedVec::from(items()).into_encoded().expect("not empty");
        assert_eq!(&bytes[..], &postcard::to_allocvec(&items()).unwrap()[..]);
        assert_eq!(PackedVec::<Item>::from_encoded(bytes).to_vec(), items());
        assert_eq!(PackedVec::<Item>::default().into_encoded(), None);
        assert_eq!(PackedVec::<Item>::from(Vec::new()).into_encoded(), None);
    }

    #[test]
    fn equal_lists_are_equal() {
        assert_eq!(PackedVec::new(&items()), PackedVec::new(&items()));
        assert_ne!(PackedVec::new(&items()), PackedVec::new(&items()[..1]));
    }

    #[test]
    fn a_spilled_list_reads_back_from_its_spill() {
        let spill = Arc::new(Spill::with_limit(0));
        let bytes = PackedVec::from(items()).into_encoded().unwrap();
        let place = spill.put(&bytes).unwrap();
        let spilled = PackedVec::<Item>::from_spill(Arc::clone(&spill), place);
        assert!(spilled.is_spilled());
        assert_eq!(spilled.try_to_vec().unwrap(), items());
        assert_eq!(spilled, PackedVec::new(&items()));
        assert_eq!(
            postcard::to_allocvec(&spilled).unwrap(),
            postcard::to_allocvec(&items()).unwrap()
        );
        assert_eq!(spilled.into_encoded().as_deref(), Some(&bytes[..]));
        // A place the spill never gave cannot be read: an error, not an empty list.
        let lost = PackedVec::<Item>::from_spill(Arc::new(Spill::new()), place);
        assert_eq!(lost.try_to_vec(), Err(Undecodable));
        assert!(postcard::to_allocvec(&lost).is_err());
        assert_ne!(lost, PackedVec::default());
    }
}
