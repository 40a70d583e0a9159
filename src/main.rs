#![deny(unsafe_code)]

mod cli;

// Parsing a large session allocates many small strings; mimalloc makes that markedly cheaper.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
