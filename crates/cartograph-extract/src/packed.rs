//! Facts kept in their encoding until they are read.
//!
//! The facts of every file are held from extraction until the tree is linked, and some of them are
//! read only once, by the linker of their own file: a file's possible wrapper invocations are most
//! of the memory its facts take, each one a handful of small allocations, and are read only when
//! that file's calls are linked. A [`PackedVec`] keeps such a list as its postcard encoding — about
//! a sixth of its decoded size — and decodes it when asked.
//!
//! It serializes as the list itself, so the cache's entries and the facts' encoding are the same
//! as with a plain `Vec`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A list held as its encoding. Equal lists have equal encodings, so comparing the bytes compares
/// the lists.
pub struct PackedVec<T> {
    /// The postcard encoding of the list; empty for an empty list.
    bytes: Box<[u8]>,
    len: u32,
    items: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> PackedVec<T> {
    pub fn new(items: &[T]) -> Self {
        if items.is_empty() {
            return Self::default();
        }
        // Encoding into memory fails only for a value serde cannot represent, which no fact is;
        // a list that could not be encoded would read back as empty rather than stop the run.
        let bytes = postcard::to_allocvec(items).unwrap_or_default();
        let len = if bytes.is_empty() { 0 } else { u32::try_from(items.len()).unwrap_or(u32::MAX) };
        Self { bytes: bytes.into_boxed_slice(), len, items: PhantomData }
    }

    /// The list, decoded.
    pub fn to_vec(&self) -> Vec<T> {
        if self.bytes.is_empty() {
            return Vec::new();
        }
        // The bytes were encoded from a `Vec<T>` by `new`, in this process.
        postcard::from_bytes(&self.bytes).unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Default for PackedVec<T> {
    fn default() -> Self {
        Self { bytes: Box::default(), len: 0, items: PhantomData }
    }
}

impl<T> Clone for PackedVec<T> {
    fn clone(&self) -> Self {
        Self { bytes: self.bytes.clone(), len: self.len, items: PhantomData }
    }
}

impl<T> PartialEq for PackedVec<T> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<T> Eq for PackedVec<T> {}

impl<T: Serialize + DeserializeOwned + fmt::Debug> fmt::Debug for PackedVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

impl<T: Serialize + DeserializeOwned> Serialize for PackedVec<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_vec().serialize(serializer)
    }
}

impl<'de, T: Serialize + DeserializeOwned> Deserialize<'de> for PackedVec<T> {
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
        assert_eq!(packed.len(), 2);
        assert!(!packed.is_empty());
        let empty = PackedVec::<Item>::new(&[]);
        assert!(empty.is_empty());
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
    fn equal_lists_are_equal() {
        assert_eq!(PackedVec::new(&items()), PackedVec::new(&items()));
        assert_ne!(PackedVec::new(&items()), PackedVec::new(&items()[..1]));
    }
}
