//! Masking time on the adversarial inputs of issue 38 (item 7): secrets back to back and many
//! assignments in one text, which a quadratic masking took seconds to minutes over. Run by
//! hand (docs/recall.md, "Secrets", "Speed"):
//!
//! ```sh
//! cargo run --release --example mask_worst_case [-- SCALE]
//! ```
//!
//! `SCALE` (default 1) multiplies every input's size.

use std::time::Instant;

use pi_context::redact;

const B62: &str = "Xk9fQ2mZ7pL4vR8tW1yBn3Hc5Jd6Ge0Ks8Uq2Ow4Ia7Ep";

fn b62(n: usize, shift: usize) -> String {
    B62.chars()
        .cycle()
        .skip(shift % B62.len())
        .take(n)
        .collect()
}

/// The inputs: a name and the text.
pub fn inputs(scale: usize) -> Vec<(&'static str, String)> {
    let google = |i: usize| format!("AIza{}", b62(35, i));
    // A body of 255 characters, the most the old rule took: the next token starts right where
    // a match ends, which an older masking freed one token per pass.
    let github = |i: usize| format!("github_pat_{}", b62(255, i));
    let mixed = {
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 390_000 * scale {
            text.push_str(&google(i));
            text.push_str(&github(i));
            i += 1;
        }
        text
    };
    vec![
        (
            "4,000 AIza keys back to back",
            (0..4000 * scale).map(google).collect(),
        ),
        (
            "4,000 github_pat_ tokens back to back",
            (0..4000 * scale).map(github).collect(),
        ),
        (
            "100k `password: <20 chars>` lines",
            (0..100_000 * scale)
                .map(|i| format!("password: {}\n", b62(20, i)))
                .collect(),
        ),
        ("a 390 KB output of both tokens back to back", mixed),
    ]
}

fn main() {
    let scale: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    for (name, text) in inputs(scale) {
        let started = Instant::now();
        let masked = redact::mask(&text);
        let seconds = started.elapsed().as_secs_f64();
        let stars = masked.chars().filter(|&c| c == '*').count();
        let scaled = if scale == 1 {
            String::new()
        } else {
            format!(" (×{scale})")
        };
        println!(
            "{name}{scaled}: {:.1} KB, {stars} characters masked, {seconds:.3} s",
            text.len() as f64 / 1e3
        );
    }
}
