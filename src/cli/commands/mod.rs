pub mod boot;
pub mod completions;
pub mod dream;
pub mod history;
pub mod man;
pub mod notes;
pub mod tool;
