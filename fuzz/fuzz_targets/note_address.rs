//! Arbitrary text as a note address or pattern: parsing never panics, and an accepted address
//! never escapes its home.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_context::notes::address::{Address, Pattern};
use pi_context::notes::identity::Identity;

fuzz_target!(|data: &str| {
    if let Ok(address) = Address::parse(data) {
        let path = &address.path;
        assert!(!path.starts_with('/'), "absolute path accepted: {data:?}");
        assert!(!path.contains('\\') && !path.contains('\0'), "{data:?}");
        assert!(
            path.split('/').all(|segment| !segment.is_empty() && segment != "." && segment != ".."),
            "escaping path accepted: {data:?}"
        );
    }
    let identity = Identity {
        session_id: Some("fuzz-session".into()),
        project_key: "proj-0123abcd".into(),
        agent: "me".into(),
        model: "model".into(),
        home: "/notes".into(),
    };
    let _ = Pattern::parse(Some(data), &identity);
});
