//! Whether a value looks like a random secret rather than words, a path, an id or a digest
//! (docs/recall.md, "Secrets", the entropy rule).

/// Values shorter than this (in code points) are never taken for secrets by the entropy rule.
pub const MIN_CHARS: usize = 16;
/// The least Shannon entropy, in bits per character, of a random value.
pub const MIN_ENTROPY_BITS: f64 = 3.0;
/// The least share of neighbouring characters of different classes (lower, upper, digit,
/// other): random text switches often, words and identifiers seldom.
pub const MIN_SWITCH_RATIO: f64 = 0.3;

/// Characters that separate the words of paths, dotted names and identifiers.
const SEPARATORS: &[char] = &['/', '.', '_', '-', ':', '\\', '@', '~', '+', '=', '%', '$'];

pub fn looks_random(value: &str) -> bool {
    value.chars().count() >= MIN_CHARS
        && !is_uuid(value)
        && !is_digest(value)
        && !is_words(value)
        && !is_base64_of_text(value)
        && entropy_bits(value) >= MIN_ENTROPY_BITS
        && switch_ratio(value) >= MIN_SWITCH_RATIO
}

/// Shannon entropy of the value's characters, in bits per character.
pub fn entropy_bits(value: &str) -> f64 {
    let mut counts: rustc_hash::FxHashMap<char, u32> = rustc_hash::FxHashMap::default();
    let mut total = 0u32;
    for c in value.chars() {
        *counts.entry(c).or_default() += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    let total = f64::from(total);
    counts
        .values()
        .map(|&n| {
            let p = f64::from(n) / total;
            -p * p.log2()
        })
        .sum()
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Class {
    Lower,
    Upper,
    Digit,
    Other,
}

fn class(c: char) -> Class {
    if c.is_lowercase() {
        Class::Lower
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_numeric() {
        Class::Digit
    } else {
        Class::Other
    }
}

/// The share of neighbouring character pairs whose classes differ.
pub fn switch_ratio(value: &str) -> f64 {
    let classes: Vec<Class> = value.chars().map(class).collect();
    if classes.len() < 2 {
        return 0.0;
    }
    let switches = classes.windows(2).filter(|w| w[0] != w[1]).count();
    switches as f64 / (classes.len() - 1) as f64
}

/// `8-4-4-4-12` hex digits.
fn is_uuid(value: &str) -> bool {
    let groups: Vec<&str> = value.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A hex digest of a file: SHA-1 (git), SHA-256 or SHA-512, optionally after `sha256:`-like
/// algorithm names.
fn is_digest(value: &str) -> bool {
    let hex = value.rsplit(':').next().unwrap_or(value);
    matches!(hex.len(), 40 | 64 | 128) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Every part between separators is a word: letters in one case, Title or camel case, maybe
/// ending in a few digits, or a number. Paths, dotted names and identifiers are such values.
fn is_words(value: &str) -> bool {
    value
        .split(SEPARATORS)
        .filter(|part| !part.is_empty())
        .all(is_word)
}

fn is_word(part: &str) -> bool {
    let letters = part.trim_end_matches(|c: char| c.is_ascii_digit());
    if letters.is_empty() {
        return true;
    }
    if part.len() - letters.len() > 4 || !letters.chars().all(char::is_alphabetic) {
        return false;
    }
    if letters.chars().all(|c| !c.is_lowercase()) {
        return true;
    }
    // Each capital starts a word of at least two more lowercase letters (or ends the part).
    let chars: Vec<char> = letters.chars().collect();
    chars.iter().enumerate().all(|(i, c)| {
        !c.is_uppercase()
            || i + 1 == chars.len()
            || chars[i + 1..].iter().take(2).all(|n| n.is_lowercase())
    })
}

/// Standard base64 (padding optional) that decodes to printable text holding a space: an
/// encoded sentence, not a key.
fn is_base64_of_text(value: &str) -> bool {
    let Some(bytes) = decode_base64(value) else {
        return false;
    };
    bytes.contains(&b' ')
        && bytes
            .iter()
            .all(|&b| (0x20..0x7f).contains(&b) || matches!(b, b'\n' | b'\r' | b'\t'))
}

fn decode_base64(value: &str) -> Option<Vec<u8>> {
    let digits = value.trim_end_matches('=');
    if value.len() - digits.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for b in digits.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_paths_ids_and_digests_are_not_random() {
        for value in [
            "getTokenFromEnvironment",
            "process.env.DB_PASSWORD",
            "/usr/local/lib/python3.12/site-packages",
            "~/.config/pi-context/settings.json",
            "C:\\Users\\someone\\AppData\\Roaming",
            "0190a5e4-7b1c-7d2e-8f3a-9b4c5d6e7f80",
            "da39a3ee5e6b4b0d3255bfef95601890afd80709",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "THIS_IS_NOT_A_SECRET_VALUE",
            "supercalifragilisticexpialidocious",
            "VGhpcyBpcyBqdXN0IGEgc2VudGVuY2Uu",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "my-very-long-kebab-case-name-v2",
        ] {
            assert!(!looks_random(value), "{value} was taken for a secret");
        }
    }

    #[test]
    fn random_values_are() {
        for value in [
            "Xk9fQ2mZ7pL4vR8tW1yB",
            "3f7c9a1e5b2d8f4a6c0e9b7d",
            "AbCdEfGhIjKlMnOpQrStUv",
            "dXNlcjpodW50ZXIyMDI2IQ==",
            "q8Z/3kLmN+vPx7rT2wYs0bHj",
        ] {
            assert!(looks_random(value), "{value} was not taken for a secret");
        }
    }

    #[test]
    fn base64_decodes() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert!(decode_base64("a*b").is_none());
    }
}
