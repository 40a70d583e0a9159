//! The MCP door onto the tool registry: `tools/list` is `offered_by(Door::Mcp)`, `tools/call`
//! answers the tool it found as `pi-context tool <name>` does ([`protocol::answer_with`]), in
//! the environment the server resolved at start, refined per call by the client's name.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};
use tokio::sync::{Mutex, RwLock};

use crate::cli::protocol::registry::{self, Door, Mode, Tool};
use crate::cli::protocol::{self, Call, Refusal, ToolContext, ToolResponse};
use pi_context::environment::Environment;
use pi_context::notes::Committer;

/// Who the server writes as and what it reads by default, resolved once at start
/// (docs/mcp.md, "Identity").
#[derive(Debug)]
pub struct Identity {
    /// Where every call runs: the notes home, the session id bare addresses use, the project,
    /// the model, and the agent of `--agent` (else the environment's, for a client without a
    /// name).
    pub environment: Environment,
    /// Whether `--agent` named the agent; else each call's client name does, when it has one.
    pub agent_named: bool,
    /// `--session`: the Pi session `history_*` read when no `session_id` is given.
    pub session_file: Option<PathBuf>,
}

pub struct Server {
    /// Resolved once; each call runs in [`Environment::for_call`] of it.
    environment: Arc<Environment>,
    agent_named: bool,
    /// The live session every call reads by default: `--session` and the session id.
    live: Arc<ToolContext>,
    tools: Vec<McpTool>,
    /// Held by every call of a sequential tool (notes writes): they never overlap, as in Pi.
    sequential: Mutex<()>,
    /// Held (shared) by every call while its work runs on a blocking thread, also when the
    /// request was cancelled meanwhile: [`Server::finish`] waits for them all.
    running: Arc<RwLock<()>>,
    /// Commits notes changes after their answers (docs/mcp.md, "Latency").
    committer: Arc<Committer>,
}

impl Server {
    pub fn new(identity: Identity, committer: Arc<Committer>) -> Self {
        let tools = registry::offered_by(Door::Mcp)
            .map(|tool| listed(tool, identity.session_file.is_none()))
            .collect();
        let live = ToolContext {
            session_file: identity.session_file,
            session_id: identity.environment.session_id.clone(),
            ..ToolContext::default()
        };
        Server {
            environment: Arc::new(identity.environment),
            agent_named: identity.agent_named,
            live: Arc::new(live),
            tools,
            sequential: Mutex::new(()),
            running: Arc::new(RwLock::new(())),
            committer,
        }
    }

    /// A handle that resolves once no call is running (see [`Server::running`]).
    pub fn calls_running(&self) -> Arc<RwLock<()>> {
        Arc::clone(&self.running)
    }

    /// The agent a call writes as, when not the server's: the client's name, unless `--agent`
    /// named one.
    fn agent_of_call(&self, client: Option<&Implementation>) -> Option<String> {
        if self.agent_named {
            return None;
        }
        client.and_then(|c| agent_of_client(&c.name))
    }

    async fn call(
        &self,
        tool: &'static Tool,
        params: Value,
        agent: Option<String>,
    ) -> Result<ToolResponse, ErrorData> {
        if let Some(refusal) = self.missing_session(tool, &params) {
            return Ok(ToolResponse::refusal(refusal));
        }
        let _one_at_a_time = match tool.mode {
            Mode::Sequential => Some(self.sequential.lock().await),
            Mode::Parallel => None,
        };
        let running = Arc::clone(&self.running).read_owned().await;
        let environment = Arc::clone(&self.environment);
        let live = Arc::clone(&self.live);
        let committer = Arc::clone(&self.committer);
        let work = tokio::task::spawn_blocking(move || {
            let _running = running;
            let environment = environment.for_call(agent.as_deref());
            let call = Call::in_environment(&live, &environment, Some(&committer));
            protocol::answer_with(tool, &params, &call)
        });
        match work.await {
            Ok(response) => Ok(response),
            Err(e) => Err(ErrorData::internal_error(
                format!("internal error: the {} call failed: {e}", tool.name),
                None,
            )),
        }
    }

    /// A tool that reads the live session by default has none here without `--session`.
    fn missing_session(&self, tool: &Tool, params: &Value) -> Option<Refusal> {
        let named = params.get("session_id").is_some_and(|v| !v.is_null());
        (tool.live_session && self.live.session_file.is_none() && !named).then(|| {
            Refusal::new(
                "invalid_params",
                format!(
                    "{} needs session_id here: this MCP server reads no live session (find one with sessions_search or sessions_list, or start the server with --session FILE|ID)",
                    tool.name
                ),
            )
        })
    }
}

/// The agent a client's name (`clientInfo.name`) stands for: slugified, without the
/// `-mcp-client` some clients append (Codex sends `codex-mcp-client`: it writes as `codex`).
fn agent_of_client(name: &str) -> Option<String> {
    let slug = pi_context::text::slugify(name);
    let agent = slug.strip_suffix("-mcp-client").unwrap_or(&slug);
    (!name.trim().is_empty()).then(|| agent.to_string())
}

/// A registry tool as MCP lists it: the same name, description and schema; `readOnlyHint`
/// from the registry; `session_id` required where no session is read by default.
fn listed(tool: &Tool, no_live_session: bool) -> McpTool {
    let mut schema = match (tool.parameters)() {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    if tool.live_session && no_live_session {
        require(&mut schema, "session_id");
    }
    let mut listed = McpTool::new(tool.name, tool.description, schema);
    listed.title = Some(tool.label.to_string());
    listed.annotations = Some(
        ToolAnnotations::with_title(tool.label)
            .read_only(tool.read_only)
            .destructive(false)
            .open_world(false),
    );
    listed
}

fn require(schema: &mut Map<String, Value>, key: &str) {
    let required = schema
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(keys) = required {
        if !keys.iter().any(|k| k == key) {
            keys.push(json!(key));
        }
    }
}

fn unknown_tool(name: &str) -> ErrorData {
    let offered: Vec<&str> = registry::offered_by(Door::Mcp).map(|t| t.name).collect();
    ErrorData::invalid_params(
        format!("Unknown tool: {name}"),
        Some(json!({ "tools": offered })),
    )
}

/// The registry's answer as an MCP tool result: the same text, a refusal as `isError`.
fn result(response: ToolResponse) -> CallToolResult {
    let content = vec![ContentBlock::text(response.text)];
    if response.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

const INSTRUCTIONS: &str = "pi-context: durable memory shared by every coding agent on this machine. \
Markdown notes (notes_*) in five homes: bare paths for this session, @project/ for this project, @human/ for what the human wants \
kept, @self/ for you across projects, @model/ for your model. Every past session of Pi (and other agents) is searchable \
with sessions_search; read a hit with history_read and its session_id.";

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("pi-context", env!("CARGO_PKG_VERSION"))
                    .with_title("pi-context"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = registry::offered_by(Door::Mcp).find(|t| t.name == request.name) else {
            return Err(unknown_tool(&request.name));
        };
        let params = Value::Object(request.arguments.unwrap_or_default());
        let agent = self.agent_of_call(context.client_info().as_ref());
        let response = self.call(tool, params, agent).await?;
        Ok(result(response).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_become_agent_slugs() {
        let agent = |name: &str| agent_of_client(name);
        assert_eq!(agent("claude-code").as_deref(), Some("claude-code"));
        assert_eq!(agent("Claude Code").as_deref(), Some("claude-code"));
        assert_eq!(agent("codex-mcp-client").as_deref(), Some("codex"));
        assert_eq!(
            agent("gemini-cli-mcp-client").as_deref(),
            Some("gemini-cli")
        );
        assert_eq!(agent("mcp-client").as_deref(), Some("mcp-client"));
        assert_eq!(agent("  "), None);
    }
}
