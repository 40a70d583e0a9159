//! `boot`: the block itself, exactly as the model will see it (no colors).

use std::io::{self, Write};

use pi_context::boot::Rendered;

use super::HumanPrinter;
use crate::cli::printer::BootPrinter;

impl BootPrinter for HumanPrinter {
    fn boot(&self, out: &mut dyn Write, boot: &Rendered) -> io::Result<()> {
        writeln!(out, "{}", boot.text)
    }
}
