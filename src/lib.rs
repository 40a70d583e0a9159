//! pi-context: durable memory for coding agents.
//!
//! The library holds everything that is not printing: the Pi session reader ([`session`]), the
//! history projection ([`history`]), the notes store ([`notes`]), and the shared wire limits and
//! READ WINDOW format. The `pi-context` binary adds the command line, the printers and the tool
//! protocol on top.

#![deny(unsafe_code)]

pub mod beneath;
pub mod boot;
pub mod checkpoint;
pub mod clock;
pub mod dream;
// Still unsafe: gethostname (to do with rustix::system::uname or the `gethostname` crate).
#[allow(unsafe_code)]
pub mod environment;
pub mod history;
pub mod home;
pub mod notes;
pub mod project;
pub mod readwindow;
// Still unsafe: umask around the index directory's creation (recall/store.rs).
#[allow(unsafe_code)]
pub mod recall;
pub mod session;
pub mod settings;
pub mod sync;
pub mod text;
pub mod wire;
