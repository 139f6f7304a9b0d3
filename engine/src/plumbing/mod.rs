//! The plumbing under the domain: reading JSON strictly and naming every
//! type error (`json_read`), numbers written with unit suffixes (`units`),
//! text made safe to show (`printable`), the words and checks of
//! validation (`validate`), halving a bounded history (`pairs`), numbers written for people (`numbers`), a field's
//! place in a block (`field_path`), a number field set in place
//! (`number_field`) and the heap a value takes (`heap`). None of it knows a
//! block, a scenario or a run.

pub mod field_path;
pub mod heap;
pub mod json_read;
pub mod numbers;
pub mod pairs;
pub mod printable;
pub mod number_field;
pub mod units;
pub mod validate;

/// Serde for a type that is written as its text: serialised as its
/// `Display`, read back through its `parse` (whose error is serde's
/// message). Its text is then the one form in every file, map key and
/// message.
macro_rules! serde_as_text {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$t, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(deserializer)?;
                <$t>::parse(&text).map_err(serde::de::Error::custom)
            }
        }
    )*};
}
pub(crate) use serde_as_text;
