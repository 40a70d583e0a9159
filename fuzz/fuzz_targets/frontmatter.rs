//! Arbitrary text as a note file: the frontmatter codec never panics and round-trips exactly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_context::notes::frontmatter::{head_len, Document};

fuzz_target!(|data: &str| {
    let document = Document::parse(data);
    assert_eq!(document.render(), data, "the codec is lossless");
    if let Some(head) = head_len(data, true) {
        assert!(head <= data.len());
    }
    for cut in [0, data.len() / 2] {
        if data.is_char_boundary(cut) {
            let _ = head_len(&data[..cut], false);
        }
    }
});
