//! The MCP stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word (its issue #938: an
//! answer could start an error storm with a peer that echoes it). The contract wants the JSON-RPC
//! answer instead — a parse error (-32700) for bytes that are not JSON, an invalid request
//! (-32600) for JSON that is no message — and the server going on, so this transport reads the
//! lines itself and hands rmcp only the messages.
//!
//! It is also where back-pressure reaches the client: a request read and not yet answered
//! holds room for its line's bytes ([`InFlight`]), and the next line is not read while there is
//! no room, so what a client sends faster than the server works it off waits in the pipe, not
//! in memory (docs/mcp.md, "Back-pressure reaches the client").

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{GetExtensions, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};

/// A message longer than this is answered with an invalid request and skipped unread. A note
/// is at most 1,000,000 bytes; escaped as JSON it stays well under this.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The bytes of the requests read and not yet answered, at most: beyond this the transport
/// reads no further line until a request is done. With the commit queue's 64 MiB and the one
/// line being read (at most [`MAX_MESSAGE_BYTES`]), this bounds what a client's input can
/// make the server hold.
const MAX_IN_FLIGHT_BYTES: usize = 16 << 20;

/// What a request counts for at least, so that small requests are bounded in number too
/// (at most 256 in flight).
const MIN_REQUEST_COST: usize = 64 << 10;

/// The room a request holds among those in flight, carried in its extensions: rmcp moves them
/// into the request's context, which the handler owns until it returns, so the room is given
/// back when the request is done (answered, or cancelled and finished).
#[derive(Clone)]
struct InFlight {
    _room: Arc<OwnedSemaphorePermit>,
}

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
    /// Room for [`MAX_IN_FLIGHT_BYTES`] of requests being handled.
    in_flight: Arc<Semaphore>,
    /// A request read that waits for room, and its cost: kept here across cancellations.
    waiting: Option<(Box<RxJsonRpcMessage<RoleServer>>, u32)>,
    /// An error answer being written: kept here across cancellations, so that none is lost.
    answering: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
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
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT_BYTES)),
            waiting: None,
            answering: None,
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

/// The room a request whose line is `length` bytes holds among those in flight: one longer than
/// the whole room takes all of it, so it is handled alone.
fn request_cost(length: usize) -> u32 {
    let cost = length.clamp(MIN_REQUEST_COST, MAX_IN_FLIGHT_BYTES);
    u32::try_from(cost).unwrap_or(u32::MAX)
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

    /// Cancel-safe: rmcp polls it in a `select!` and drops it when something else happens
    /// first, so every step that waits keeps its state in `self`.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(answering) = self.answering.as_mut() {
                answering.await;
                self.answering = None;
            }
            if let Some((_, cost)) = &self.waiting {
                let room = Arc::clone(&self.in_flight).acquire_many_owned(*cost).await;
                let (mut message, _) = self.waiting.take()?;
                if let (Ok(room), JsonRpcMessage::Request(request)) = (room, &mut *message) {
                    let extensions = request.request.extensions_mut();
                    extensions.insert(InFlight {
                        _room: Arc::new(room),
                    });
                }
                return Some(*message);
            }
            let line = match self.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(e) => {
                    eprintln!("pi-context mcp: cannot read stdin: {e}");
                    return None;
                }
            };
            let length = match &line {
                Line::Bytes(bytes) => bytes.len(),
                Line::Oversized => 0,
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
                Incoming::Message(message) if matches!(*message, JsonRpcMessage::Request(_)) => {
                    self.waiting = Some((message, request_cost(length)));
                }
                // Notifications and answers are handled at once, in rmcp's loop.
                Incoming::Message(message) => return Some(*message),
                Incoming::Ignored => {}
                Incoming::Error(answer) => self.answering = Some(Box::pin(self.answer(answer))),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(answering) = self.answering.take() {
            answering.await;
        }
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

    /// The message `receive` gives at its first poll, if any (the input is in memory: what is
    /// not given at once waits for room).
    async fn received_now<W>(transport: &mut LineTransport<&'static [u8], W>) -> Option<Value>
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        tokio::select! {
            biased;
            message = transport.receive() => message.map(|m| serde_json::to_value(m).unwrap()),
            () = std::future::ready(()) => None,
        }
    }

    #[tokio::test]
    async fn no_line_is_read_while_the_requests_in_flight_fill_their_room() {
        let in_flight = MAX_IN_FLIGHT_BYTES / MIN_REQUEST_COST;
        let lines: String = (0..=in_flight)
            .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"))
            .collect();
        let input: &'static [u8] = Box::leak(lines.into_bytes().into_boxed_slice());
        let mut transport = LineTransport::new(input, tokio::io::sink());
        let mut requests = Vec::new();
        for id in 0..in_flight {
            let message = transport.receive().await.expect("a request");
            let JsonRpcMessage::Request(request) = &message else {
                panic!("{message:?}");
            };
            assert_eq!(request.id.to_string(), id.to_string());
            requests.push(message);
        }
        assert_eq!(
            received_now(&mut transport).await,
            None,
            "no room: not given"
        );
        // A request done (its handler returned, its context dropped) makes room.
        requests.remove(0);
        let next = received_now(&mut transport).await.expect("room again");
        assert_eq!(next["id"], in_flight);
    }

    #[test]
    fn a_request_costs_its_line_within_bounds() {
        assert_eq!(request_cost(10) as usize, MIN_REQUEST_COST);
        assert_eq!(request_cost(1 << 20) as usize, 1 << 20);
        assert_eq!(
            request_cost(MAX_MESSAGE_BYTES + 1) as usize,
            MAX_IN_FLIGHT_BYTES
        );
    }

    /// rmcp drops `receive` when another event comes first: an error answer it was writing
    /// then is written by the next call, never lost.
    #[tokio::test]
    async fn an_error_answer_cut_short_by_a_cancellation_is_still_written() {
        let input: &'static [u8] =
            b"{not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
        let (output, mut written) = tokio::io::duplex(1 << 16);
        let mut transport = LineTransport::new(input, output);
        let busy = Arc::clone(&transport.output).lock_owned().await;
        // The answer waits for stdout, which another send holds: the call is dropped.
        assert_eq!(received_now(&mut transport).await, None);
        drop(busy);
        let ping = transport.receive().await.expect("the next message");
        let ping = serde_json::to_value(ping).unwrap();
        assert_eq!(ping["id"], 1);
        drop(transport);
        let mut line = String::new();
        let mut reader = tokio::io::BufReader::new(&mut written);
        reader.read_line(&mut line).await.unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["error"]["code"], PARSE_ERROR, "{line}");
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
