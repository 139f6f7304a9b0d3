//! The plumbing under the domain: reading JSON strictly and naming every
//! type error (`json_read`), numbers written with unit suffixes (`units`),
//! text made safe to show (`printable`), the words and checks of
//! validation (`validate`), halving a bounded history (`pairs`), numbers written for people (`numbers`), a field's
//! place in a block (`field_path`) and a number field set in place
//! (`number_field`). None of it knows a block, a scenario or a run.

pub mod field_path;
pub mod json_read;
pub mod numbers;
pub mod pairs;
pub mod printable;
pub mod number_field;
pub mod units;
pub mod validate;
