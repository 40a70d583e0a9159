//! The READ WINDOW block shared by `history read` and `notes read`.
//!
//! ```text
//! --- READ WINDOW ---
//! <key: value identity lines>
//! chars: [<start>,<end>) of <total>
//! next_offset_chars: <n|null>
//!
//! <content, verbatim>
//! ```
//!
//! The delivered content is the longest prefix of the requested window whose whole block fits
//! the byte budget, so following `next_offset_chars` and concatenating the content after each
//! block reconstructs the source exactly.

use crate::text;

/// One delivered window over a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadWindow {
    pub identity: Vec<(&'static str, String)>,
    pub offset_chars: usize,
    pub total_chars: usize,
    pub next_offset_chars: Option<usize>,
    pub content: String,
}

/// Why a window could not be cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowError {
    /// The offset lies past the end of the document.
    OffsetPastEnd { offset: i64, total: usize },
    /// Not even the block header fits the budget.
    HeaderTooLarge,
}

/// Resolves a possibly negative offset against `total`: negative counts from the end, and an
/// offset below `-total` starts at 0.
pub fn resolve_offset(offset: i64, total: usize) -> Result<usize, WindowError> {
    if offset < 0 {
        return Ok(total.saturating_sub(offset.unsigned_abs() as usize));
    }
    let offset = offset as u64;
    if offset > total as u64 {
        return Err(WindowError::OffsetPastEnd {
            offset: offset as i64,
            total,
        });
    }
    Ok(offset as usize)
}

/// Cuts the window `[start, start + limit)` of `document`, shortened to fit `budget` bytes.
pub fn cut(
    identity: Vec<(&'static str, String)>,
    document: &str,
    start: usize,
    limit: usize,
    budget: usize,
) -> Result<ReadWindow, WindowError> {
    let total = text::char_len(document);
    let from = text::byte_index(document, start);
    let rest = &document[from..];
    // Byte ends of each code-point prefix of the requested window.
    let mut ends: Vec<usize> = Vec::with_capacity(limit.min(rest.len()) + 1);
    ends.push(0);
    ends.extend(
        rest.char_indices()
            .take(limit)
            .map(|(i, c)| i + c.len_utf8()),
    );
    let window_for = |n: usize| ReadWindow {
        identity: identity.clone(),
        offset_chars: start,
        total_chars: total,
        next_offset_chars: Some(start + n).filter(|&end| end < total),
        content: rest[..ends[n]].to_string(),
    };
    let fits = |n: usize| header_len(&identity, start, n, total) + ends[n] <= budget;
    // The header grows by at most a few digits as more is delivered, so fits() is monotone.
    let delivered =
        crate::wire::longest_fitting(ends.len() - 1, fits).ok_or(WindowError::HeaderTooLarge)?;
    Ok(window_for(delivered))
}

fn header_len(identity: &[(&str, String)], start: usize, delivered: usize, total: usize) -> usize {
    let next = if start + delivered < total {
        (start + delivered).to_string()
    } else {
        "null".to_string()
    };
    render_header(identity, start, start + delivered, total, &next).len()
}

fn render_header(
    identity: &[(&str, String)],
    start: usize,
    end: usize,
    total: usize,
    next: &str,
) -> String {
    let mut out = String::from("--- READ WINDOW ---\n");
    for (key, value) in identity {
        out.push_str(key);
        out.push_str(": ");
        out.push_str(value);
        out.push('\n');
    }
    out.push_str(&format!(
        "chars: [{start},{end}) of {total}\nnext_offset_chars: {next}\n\n"
    ));
    out
}

impl ReadWindow {
    /// Code points delivered.
    pub fn delivered_chars(&self) -> usize {
        text::char_len(&self.content)
    }

    /// The header of the block, up to and including the blank line.
    pub fn header(&self) -> String {
        let next = self
            .next_offset_chars
            .map_or_else(|| "null".to_string(), |n| n.to_string());
        render_header(
            &self.identity,
            self.offset_chars,
            self.offset_chars + self.delivered_chars(),
            self.total_chars,
            &next,
        )
    }

    /// The whole block: header then content.
    pub fn render(&self) -> String {
        let mut out = self.header();
        out.push_str(&self.content);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ident() -> Vec<(&'static str, String)> {
        vec![("seq", "7".into()), ("window_id", "pcw:abc:root".into())]
    }

    #[test]
    fn renders_the_exact_block() {
        let w = cut(ident(), "héllo wörld", 2, 3, 1000).unwrap();
        assert_eq!(
            w.render(),
            "--- READ WINDOW ---\nseq: 7\nwindow_id: pcw:abc:root\nchars: [2,5) of 11\nnext_offset_chars: 5\n\nllo"
        );
    }

    #[test]
    fn end_read_is_empty_with_null_next() {
        let w = cut(ident(), "abc", 3, 10, 1000).unwrap();
        assert_eq!(w.content, "");
        assert_eq!(w.next_offset_chars, None);
    }

    #[test]
    fn budget_cuts_to_the_longest_fitting_prefix_and_pages_reconstruct() {
        let doc: String = "😀ab".repeat(5000);
        let mut offset = 0;
        let mut rebuilt = String::new();
        loop {
            let w = cut(ident(), &doc, offset, 50_000, 4096).unwrap();
            assert!(w.render().len() <= 4096);
            rebuilt.push_str(&w.content);
            match w.next_offset_chars {
                Some(n) => offset = n,
                None => break,
            }
        }
        assert_eq!(rebuilt, doc);
    }

    #[test]
    fn negative_offsets_count_from_the_end() {
        assert_eq!(resolve_offset(-2, 10), Ok(8));
        assert_eq!(resolve_offset(-20, 10), Ok(0));
        assert_eq!(resolve_offset(10, 10), Ok(10));
        assert!(resolve_offset(11, 10).is_err());
    }
}
