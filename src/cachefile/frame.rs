//! The frame of a cache file: a fixed header (magic, format, payload length) before the payload.

/// Magic (8 bytes), format (u32 LE), payload length (u64 LE).
pub(super) const HEADER_LEN: usize = 8 + 4 + 8;

/// What a cache file holds: the magic its header starts with, and the format of its payload,
/// bumped whenever the payload's layout or meaning changes, so that an older file is refused (and
/// rebuilt), never misread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kind {
    magic: [u8; 8],
    format: u32,
}

impl Kind {
    pub(crate) const fn new(magic: &[u8; 8], format: u32) -> Kind {
        Kind {
            magic: *magic,
            format,
        }
    }

    /// A cache file's bytes begun: the header, its payload length 0 until [`end`]; the caller
    /// appends the payload. A large payload is built in its frame, never copied into one.
    pub(crate) fn start(self, payload_capacity: usize) -> Vec<u8> {
        let mut data = Vec::with_capacity(HEADER_LEN + payload_capacity);
        data.extend_from_slice(&self.magic);
        data.extend_from_slice(&self.format.to_le_bytes());
        data.extend_from_slice(&0u64.to_le_bytes());
        data
    }

    /// A cache file's bytes: the header, then `payload`.
    pub(crate) fn framed(self, payload: &[u8]) -> Vec<u8> {
        let mut data = self.start(payload.len());
        data.extend_from_slice(payload);
        end(data)
    }

    /// The payload length `header` promises; `None` for another kind or format.
    pub(super) fn payload_len(self, header: &[u8; HEADER_LEN]) -> Option<u64> {
        let (magic, rest) = header.split_at(self.magic.len());
        let (format, len) = rest.split_at(4);
        (magic == self.magic && format == self.format.to_le_bytes())
            .then(|| u64::from_le_bytes(len.try_into().unwrap_or_default()))
    }
}

/// The cache file [`Kind::start`] began, its payload appended: the payload's length goes into
/// the header.
pub(crate) fn end(mut data: Vec<u8>) -> Vec<u8> {
    let payload_len = (data.len() - HEADER_LEN) as u64;
    data[HEADER_LEN - 8..HEADER_LEN].copy_from_slice(&payload_len.to_le_bytes());
    data
}

/// A payload that starts with a small part of its own (its length, u64 LE, then its bytes):
/// that part, and the raw bytes after it.
pub(crate) fn split_meta(payload: &[u8]) -> Option<(&[u8], &[u8])> {
    let meta_len = usize::try_from(u64::from_le_bytes(payload.get(..8)?.try_into().ok()?)).ok()?;
    let meta = payload.get(8..8usize.checked_add(meta_len)?)?;
    Some((meta, &payload[8 + meta_len..]))
}
