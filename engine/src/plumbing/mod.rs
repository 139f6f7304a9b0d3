//! The plumbing under the domain: reading JSON strictly and naming every
//! type error (`json_read`), numbers written with unit suffixes (`units`),
//! text made safe to show (`printable`), the words and checks of
//! validation (`validate`), and halving a bounded history (`pairs`). None of it knows a block, a scenario or a run.

pub mod json_read;
pub mod pairs;
pub mod printable;
pub mod units;
pub mod validate;
