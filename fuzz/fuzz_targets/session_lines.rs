//! Arbitrary bytes as a session file: parsing and every history operation must return, never
//! panic, and every result must fit the budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_context::history::{History, Leaf, ListParams, ReadParams, SearchParams};
use pi_context::session::{parse_line_for_fuzzing, Session};

const BUDGET: usize = 32 * 1024;

fuzz_target!(|data: &[u8]| {
    if let Ok(line) = std::str::from_utf8(data) {
        parse_line_for_fuzzing(line);
    }
    let session = Session::from_bytes(data.to_vec());
    let Ok(history) = History::project(&session, &Leaf::Last, Some("fuzz")) else {
        return;
    };
    let _ = history.windows_result(BUDGET);
    let list = ListParams::default();
    if let Ok(page) = history.list(&list, BUDGET) {
        assert!(serde_json::to_string(&page).unwrap().len() <= BUDGET);
    }
    let search = SearchParams {
        queries: vec!["a".into(), "\"".into()],
        list,
    };
    let _ = history.search(&search, BUDGET);
    for seq in 1..=history.highest_seq().min(8) {
        if let Ok(read) = history.read(&ReadParams::new(seq), BUDGET) {
            assert!(read.window.render().len() <= BUDGET);
        }
    }
});
