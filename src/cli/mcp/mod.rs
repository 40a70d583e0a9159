//! `pi-context mcp`: the tool registry served over the Model Context Protocol on stdio
//! (docs/mcp.md). rmcp speaks the protocol; [`transport`] reads and writes the lines;
//! [`server`] answers from the registry.

mod server;
mod transport;

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{serve_server_with_ct, ServerInitializeError};
use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use pi_context::notes::Committer;

pub use server::Identity;

/// How long a stop waits for calls still writing notes (a note write is milliseconds; a
/// stuck lock holder is not waited for forever).
const FINISH_CALLS_WITHIN: Duration = Duration::from_secs(30);

/// Serves until stdin ends or a stop signal arrives (SIGTERM, SIGINT, SIGHUP or SIGQUIT: the
/// launcher forwards all four); calls under way finish first, then the commits of their notes
/// changes are made.
pub fn serve(identity: Identity) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("pi-context-mcp")
        .build()?;
    let committer = Committer::start(Box::new(|failure| {
        eprintln!("pi-context mcp: warning: {failure}");
    }));
    let served = runtime.block_on(run(identity, Arc::clone(&committer)));
    // Nothing runs any more but stdin's reader thread, which would block until input comes.
    runtime.shutdown_background();
    committer.finish();
    served
}

async fn run(identity: Identity, committer: Arc<Committer>) -> std::io::Result<()> {
    let server = server::Server::new(identity, committer);
    let calls = server.calls_running();
    let stop = CancellationToken::new();
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let mut quit = signal(SignalKind::quit())?;
    let signals = stop.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
            _ = hangup.recv() => {}
            _ = quit.recv() => {}
        }
        signals.cancel();
    });
    let input = tokio::io::BufReader::with_capacity(64 << 10, tokio::io::stdin());
    let transport = transport::LineTransport::new(input, tokio::io::stdout());
    match serve_server_with_ct(server, transport, stop.clone()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        // Stopped, or stdin ended, before the client said hello: nothing to serve.
        Err(ServerInitializeError::Cancelled | ServerInitializeError::ConnectionClosed(_)) => {}
        Err(e) => {
            return Err(std::io::Error::other(format!(
                "the MCP session did not start: {e}"
            )))
        }
    }
    let _ = tokio::time::timeout(FINISH_CALLS_WITHIN, calls.write()).await;
    Ok(())
}
