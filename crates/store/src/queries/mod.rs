//! One module per table. Each function takes a connection (or a transaction deref'd to one) so
//! that [`crate::Store`] can compose several into one transaction.

pub mod layout;
pub mod lineage;
pub mod threads;
pub mod turns;
