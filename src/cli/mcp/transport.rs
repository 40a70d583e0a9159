//! The MCP stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word (its issue #938: an
//! answer could start an error storm with a peer that echoes it). The contract wants the JSON-RPC
//! answer instead — a parse error (-32700) for bytes that are not JSON, an invalid request
//! (-32600) for JSON that is no message — and the server going on, so this transport reads the
//! lines itself and hands rmcp only the messages.

use std::io;
use std::sync::Arc;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

/// A message longer than this is answered with an invalid request and skipped unread. A note
/// is at most 1,000,000 bytes; escaped as JSON it stays well under this.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

pub struct LineTransport<R, W> {
    input: R,
    /// The line read so far: reads are resumed across cancellations (rmcp polls `receive` in a
    /// `select!`), so partial lines live here, not in the future.
    line: Vec<u8>,
    /// The line being read is over [`MAX_MESSAGE_BYTES`]: its bytes are dropped.
    oversized: bool,
    at_eof: bool,
    output: Arc<Mutex<W>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(input: R, output: W) -> Self {
        LineTransport {
            input,
            line: Vec::new(),
            oversized: false,
            at_eof: false,
            output: Arc::new(Mutex::new(output)),
        }
    }

    /// The next line, without its newline; `None` at the end of the input. Cancel-safe.
    async fn next_line(&mut self) -> io::Result<Option<Line>> {
        loop {
            if self.at_eof {
                return Ok(None);
            }
            let chunk = self.input.fill_buf().await?;
            if chunk.is_empty() {
                self.at_eof = true;
                if self.line.is_empty() && !self.oversized {
                    return Ok(None);
                }
                return Ok(Some(self.take_line()));
            }
            let (bytes, used, ended) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (&chunk[..at], at + 1, true),
                None => (chunk, chunk.len(), false),
            };
            if self.line.len() + bytes.len() > MAX_MESSAGE_BYTES {
                self.oversized = true;
                self.line = Vec::new();
            } else if !self.oversized {
                self.line.extend_from_slice(bytes);
            }
            self.input.consume(used);
            if ended {
                return Ok(Some(self.take_line()));
            }
        }
    }

    fn take_line(&mut self) -> Line {
        let oversized = std::mem::take(&mut self.oversized);
        let bytes = std::mem::take(&mut self.line);
        if oversized {
            Line::Oversized
        } else {
            Line::Bytes(bytes)
        }
    }

    /// Writes one JSON-RPC error answer (never fails the transport for it: if stdout is gone,
    /// the next read or send ends the session).
    fn answer(&self, error: Value) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut line = to_line(&error);
        line.push(b'\n');
        let output = Arc::clone(&self.output);
        async move {
            let mut out = output.lock().await;
            if out.write_all(&line).await.is_ok() {
                let _ = out.flush().await;
            }
        }
    }
}

enum Line {
    Bytes(Vec<u8>),
    Oversized,
}

/// What a line of input is.
#[derive(Debug)]
enum Incoming {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to do: a blank line, or a notification the protocol does not define.
    Ignored,
    /// An answer the transport gives itself.
    Error(Value),
}

fn classify(line: &[u8]) -> Incoming {
    let line = line.strip_prefix(BYTE_ORDER_MARK).unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Incoming::Ignored;
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Incoming::Message(Box::new(message)),
        Err(error) => error,
    };
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Incoming::Error(error_answer(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: the line is not JSON ({error})"),
        ));
    };
    let message =
        || format!("Invalid Request: not a JSON-RPC 2.0 message this server knows ({error})");
    match value.get("id") {
        // A notification (no id member) gets no answer, as JSON-RPC says, even a malformed one.
        None if value.get("method").is_some_and(Value::is_string) => Incoming::Ignored,
        Some(id) if id.is_string() || id.is_number() => {
            Incoming::Error(error_answer(id.clone(), INVALID_REQUEST, message()))
        }
        // An id that is null, an object, an array or a boolean makes no notification: MCP wants
        // a string or an integer, and the answer carries `null` for an id it cannot repeat.
        _ => Incoming::Error(error_answer(Value::Null, INVALID_REQUEST, message())),
    }
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

fn error_answer(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn to_line<T: serde::Serialize + ?Sized>(message: &T) -> Vec<u8> {
    // Serializing a protocol message or a JSON value cannot fail (string keys only).
    serde_json::to_vec(message).unwrap_or_else(|e| {
        serde_json::to_vec(&error_answer(
            Value::Null,
            -32603,
            format!("internal error: {e}"),
        ))
        .unwrap_or_default()
    })
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let mut line = to_line(&item);
        line.push(b'\n');
        let output = Arc::clone(&self.output);
        async move {
            let mut out = output.lock().await;
            out.write_all(&line).await?;
            out.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let line = match self.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(e) => {
                    eprintln!("pi-context mcp: cannot read stdin: {e}");
                    return None;
                }
            };
            let incoming = match line {
                Line::Bytes(bytes) => classify(&bytes),
                Line::Oversized => Incoming::Error(error_answer(
                    Value::Null,
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: a message over {} MiB was skipped unread",
                        MAX_MESSAGE_BYTES >> 20
                    ),
                )),
            };
            match incoming {
                Incoming::Message(message) => return Some(*message),
                Incoming::Ignored => {}
                Incoming::Error(answer) => self.answer(answer).await,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.output.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(line: &str) -> Value {
        match classify(line.as_bytes()) {
            Incoming::Error(answer) => answer,
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    #[test]
    fn bytes_that_are_not_json_are_a_parse_error_without_id() {
        let answer = error_of("{not json");
        assert_eq!(answer["error"]["code"], PARSE_ERROR);
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(error_of("\u{FEFF}]")["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_with_its_id() {
        let answer = error_of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        assert_eq!(answer["id"], 7);
        assert_eq!(error_of("[1,2]")["id"], Value::Null);
        assert_eq!(error_of("42")["error"]["code"], INVALID_REQUEST);
    }

    #[test]
    fn messages_blank_lines_and_notifications_pass_or_are_ignored() {
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(matches!(classify(ping.as_bytes()), Incoming::Message(_)));
        assert!(matches!(classify(b"  \r"), Incoming::Ignored));
        let odd = r#"{"jsonrpc":"2.0","method":"notifications/odd","params":3}"#;
        assert!(matches!(classify(odd.as_bytes()), Incoming::Ignored));
    }

    #[test]
    fn a_request_with_an_id_of_another_kind_is_invalid_not_a_notification() {
        for id in ["null", "{}", "[1]", "true"] {
            let answer = error_of(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
            assert_eq!(answer["error"]["code"], INVALID_REQUEST, "{id}");
            assert_eq!(answer["id"], Value::Null, "{id}");
        }
    }

    #[tokio::test]
    async fn lines_split_across_reads_and_a_last_line_without_newline_are_read() {
        let input: &[u8] = b"{\"a\":1}\n\n{\"b\":2}";
        let reader = tokio::io::BufReader::with_capacity(3, input);
        let mut transport = LineTransport::new(reader, tokio::io::sink());
        let mut lines = Vec::new();
        while let Some(Line::Bytes(line)) = transport.next_line().await.unwrap() {
            lines.push(String::from_utf8(line).unwrap());
        }
        assert_eq!(lines, ["{\"a\":1}", "", "{\"b\":2}"]);
    }
}
