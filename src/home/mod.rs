//! The notes home as a versioned directory: its fixed names and the one rule for what is the
//! store's machinery ([`layout`]), its git repository (a commit per change; the dream's baseline
//! and audit commits: [`repo`], [`audit`], [`snapshot`]), the lock of a run over the whole home
//! ([`run_lock`]) and the journal of live writes during a dream ([`journal`]).
//!
//! The notes store, the dream and the sync all use it; none of them owns it, and it imports
//! none of them (docs/architecture.md, "Rules").

pub mod audit;
pub mod index;
pub mod journal;
pub mod layout;
pub mod repo;
pub mod run_lock;
pub mod snapshot;
