//! Seeing through JSON string escapes. A tool call's arguments are indexed as the raw JSON
//! text they were written as, where a secret can be spelled `postgres:\/\/app:pw@db` (PHP
//! escapes slashes) or `\u0067hp_…`. The rules run over a view of the text with those escapes
//! decoded (`\/` and `\uXXXX`: escapes that never stand for themselves in prose); a range found
//! there is mapped back to the raw characters it came from, a decoded escape masked whole, so
//! masking stays length-preserving in the raw text.
//!
//! The other escapes (`\n`, `\t`, `\"`, `\\`…) stay as they are: `C:\new\token` is a path as
//! often as JSON, and the rules already read them (a token may start right after `\n`, a key's
//! quotes may be escaped, a private key's lines end in `\n`).

use std::ops::Range;

/// Whether `text` holds an escape the view decodes (one `memchr` pass over its backslashes).
pub fn hides(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = memchr::memchr(b'\\', &bytes[from..]).map(|i| from + i) {
        match escape_at(bytes, at) {
            Escape::Decoded(..) => return true,
            Escape::Kept => from = at + 2,
            Escape::None => from = at + 1,
        }
    }
    false
}

/// The text with its `\/` and `\uXXXX` escapes decoded.
pub struct Decoded {
    pub text: String,
    /// Each decoded escape, in order. Between them the two texts agree byte for byte.
    escapes: Vec<Decoding>,
}

/// Where one decoded escape ends in the view and in the raw text, and how long it is in each
/// (offsets as `u32`: a text of 4 GiB or more is not decoded).
#[derive(Debug, Clone, Copy)]
struct Decoding {
    view_end: u32,
    raw_end: u32,
    view_len: u8,
    raw_len: u8,
}

impl Decoded {
    /// The view of `raw`; `None` when there is nothing to decode (or it is 4 GiB or more).
    pub fn of(raw: &str) -> Option<Decoded> {
        u32::try_from(raw.len()).ok()?;
        let bytes = raw.as_bytes();
        let mut text = String::with_capacity(raw.len());
        let mut escapes = Vec::new();
        let mut copied = 0;
        let mut from = 0;
        while let Some(at) = memchr::memchr(b'\\', &bytes[from..]).map(|i| from + i) {
            let (c, len) = match escape_at(bytes, at) {
                Escape::Decoded(c, len) => (c, len),
                Escape::Kept => {
                    from = at + 2;
                    continue;
                }
                Escape::None => {
                    from = at + 1;
                    continue;
                }
            };
            text.push_str(&raw[copied..at]);
            text.push(c);
            copied = at + len;
            from = copied;
            escapes.push(Decoding {
                view_end: text.len() as u32,
                raw_end: copied as u32,
                view_len: c.len_utf8() as u8,
                raw_len: len as u8,
            });
        }
        if escapes.is_empty() {
            return None;
        }
        text.push_str(&raw[copied..]);
        Some(Decoded { text, escapes })
    }

    /// `ranges` of the view (sorted, disjoint) as ranges of the raw text, in one sweep: a
    /// range that holds a decoded character holds the whole escape it came from.
    pub fn to_raw(&self, ranges: &[Range<usize>]) -> Vec<Range<usize>> {
        let mut passed = 0;
        let mut map = |offset: usize, is_end: bool| {
            while passed < self.escapes.len() && self.escapes[passed].view_end as usize <= offset {
                passed += 1;
            }
            if let Some(inside) = self.escapes.get(passed) {
                let view_start = inside.view_end as usize - usize::from(inside.view_len);
                if view_start < offset {
                    // Inside a decoded character: never a rule's edge, but map it outward.
                    let raw_end = inside.raw_end as usize;
                    return if is_end {
                        raw_end
                    } else {
                        raw_end - usize::from(inside.raw_len)
                    };
                }
            }
            match passed.checked_sub(1).map(|i| self.escapes[i]) {
                Some(last) => last.raw_end as usize + (offset - last.view_end as usize),
                None => offset,
            }
        };
        ranges
            .iter()
            .map(|range| map(range.start, false)..map(range.end, true))
            .collect()
    }
}

enum Escape {
    /// `\/` or `\uXXXX`: the character it stands for and the escape's length in bytes.
    Decoded(char, usize),
    /// Another escape of two bytes, kept as it is.
    Kept,
    /// A backslash that starts no escape.
    None,
}

/// The escape at `at` (a backslash). A surrogate pair is one escape; a lone surrogate stands
/// for U+FFFD.
fn escape_at(bytes: &[u8], at: usize) -> Escape {
    match bytes.get(at + 1) {
        Some(b'/') => Escape::Decoded('/', 2),
        Some(b'u') => match unicode_escape_at(bytes, at) {
            Some((c, len)) => Escape::Decoded(c, len),
            None => Escape::None,
        },
        Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => Escape::Kept,
        _ => Escape::None,
    }
}

fn unicode_escape_at(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let unit = hex4(bytes, at + 2)?;
    if (0xD800..0xDC00).contains(&unit) {
        let low = (bytes.get(at + 6..at + 8) == Some(b"\\u"))
            .then(|| hex4(bytes, at + 8))
            .flatten()
            .filter(|low| (0xDC00..0xE000).contains(low));
        if let Some(low) = low {
            let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            return Some((char::from_u32(c)?, 12));
        }
    }
    Some((char::from_u32(unit).unwrap_or('\u{fffd}'), 6))
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |value, &b| {
        Some(value * 16 + char::from(b).to_digit(16)?)
    })
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // a list of one range is what is meant
mod tests {
    use super::*;

    #[test]
    fn slashes_and_unicode_escapes_decode_and_map_back_to_their_raw_bytes() {
        let raw = r#"a\/b\u0067c\"d\uD83D\uDE00e\q\\u0067"#;
        let decoded = Decoded::of(raw).unwrap();
        assert_eq!(decoded.text, r#"a/bgc\"d😀e\q\\u0067"#);
        let at = |s: &str| decoded.text.find(s).unwrap();
        let ranges = [at("g")..at("g") + 1, at("😀")..at("e") + 1];
        let raw_ranges = decoded.to_raw(&ranges);
        assert_eq!(&raw[raw_ranges[0].clone()], r"\u0067");
        assert_eq!(&raw[raw_ranges[1].clone()], r"\uD83D\uDE00e");
        assert_eq!(decoded.to_raw(&[0..1]), [0..1]);
        let tail = at(r"\\u0067");
        assert_eq!(
            &raw[decoded.to_raw(&[tail..decoded.text.len()])[0].clone()],
            r"\\u0067"
        );
    }

    #[test]
    fn only_slashes_and_unicode_escapes_are_decoded() {
        for (text, hides_one) in [
            ("plain", false),
            (r"C:\new\temp\x", false),
            (r#"{\"a\":\"b\\n\"}"#, false),
            (r"\\u0067 is an escaped backslash", false),
            (r"\u00 is cut short", false),
            (r"a\nb:\/\/c", true),
            (r"\u0067hp", true),
        ] {
            assert_eq!(hides(text), hides_one, "{text}");
            assert_eq!(Decoded::of(text).is_some(), hides_one, "{text}");
        }
    }
}
