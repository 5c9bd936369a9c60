//! ango's studies. Each study chooses its points, verifies every
//! implementation before timing it, measures with the harness and emits
//! [`event::Event`]s as results arrive.

pub mod event;
pub mod pk;
pub mod speed;

pub use event::{Event, Sink};
