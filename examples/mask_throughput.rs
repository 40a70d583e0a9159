//! Masking throughput on realistic text: the documents the recall index would hold for the Pi
//! session files given (every event of each file's default branch), masked one by one as the
//! index build masks them. Run by `scripts/bench --redact-only` (docs/benchmarks.md):
//!
//! ```sh
//! cargo run --release --example mask_throughput -- [--secret-every N] FILE...
//! ```
//!
//! `--secret-every N` appends a line holding secrets of four kinds to every Nth document, to
//! measure the path where the prefilter fires and the regexes run.

use std::time::Instant;

use pi_context::history::{History, Leaf};
use pi_context::redact;
use pi_context::session::Session;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut every: Option<usize> = None;
    if let Some(at) = args.iter().position(|a| a == "--secret-every") {
        every = args
            .get(at + 1)
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0);
        args.drain(at..(at + 2).min(args.len()));
    }
    let secret_line = format!(
        "\nexport GITHUB_TOKEN=ghp_{} AWS_ACCESS_KEY_ID=AKIA{} DB_PASSWORD={} url=postgres://app:{}@db/app\n",
        "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ0123456", "Q3ZXN5TL7WJ2RB4M", "Zx8#qL2!vN7@pR4wT9kM", "Sup3rS3cr3tPw"
    );
    let mut documents: Vec<String> = Vec::new();
    for path in &args {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let session = Session::from_bytes(bytes);
        let Ok(history) = History::project(&session, &Leaf::Last, None) else {
            continue;
        };
        for event in history.events() {
            documents.push(history.document(event));
        }
    }
    if let Some(n) = every {
        for document in documents.iter_mut().step_by(n) {
            document.push_str(&secret_line);
        }
    }
    let bytes: usize = documents.iter().map(String::len).sum();
    let started = Instant::now();
    let mut masked = 0usize;
    for document in &documents {
        if matches!(redact::mask(document), std::borrow::Cow::Owned(_)) {
            masked += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} documents, {:.1} MB, {} masked, {:.3} s, {:.0} MB/s",
        documents.len(),
        bytes as f64 / 1e6,
        masked,
        seconds,
        bytes as f64 / 1e6 / seconds.max(1e-9)
    );
}
