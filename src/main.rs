#![deny(unsafe_code)]

mod cli;

// Parsing a large session allocates many small strings; mimalloc makes that markedly cheaper.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // No transparent huge pages (mimalloc is built not to ask for them; this covers systems that
    // give them unasked): each first touch of one zeroes 2 MiB, and a run that allocates a little
    // from many pages (the search after an append) spent a third of its time zeroing them, its
    // time varying fourfold. Children (git, the dreamer) inherit the setting; best effort where
    // the kernel lacks it.
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    cli::main()
}
