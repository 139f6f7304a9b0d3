//! The plumbing under the domain: reading JSON strictly and naming every
//! type error (`json_read`), numbers written with unit suffixes (`units`),
//! text made safe to show (`printable`), and the words and checks of
//! validation (`validate`). None of it knows a block, a scenario or a run.

pub mod json_read;
pub mod printable;
pub mod units;
pub mod validate;
