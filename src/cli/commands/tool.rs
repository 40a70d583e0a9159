//! `pi-context tool <name> | --schemas`: the Pi tool protocol (always JSON).

use std::io::Read;

use clap::Args;

use crate::cli::error::{exit, CommandError, Kind};
use crate::cli::printer;
use crate::cli::protocol::{self, registry, ToolRequest};
use crate::cli::ui::Ui;
use pi_context::environment::Vars;
use pi_context::wire::MAX_REQUEST_BYTES;

const NOT_A_REQUEST: &str = "the request on stdin is not a valid tool request";

/// Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// The tool to answer (see --schemas)
    // Not `required`: a missing name is reported in `run`, with the list of tools.
    #[arg(value_name = "TOOL_NAME", conflicts_with = "schemas")]
    name: Option<String>,
    /// Print the names, descriptions and JSON Schemas of every tool
    ///
    /// Also prints `facts`: the values the Pi extension shares with the binary (custom types,
    /// window ids, the boot header, settings keys; docs/protocol.md).
    #[arg(long)]
    schemas: bool,
}

pub fn run(args: ToolArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    if args.schemas {
        printer::json_document(ui.out(), &registry::schemas())?;
        return Ok(exit::SUCCESS);
    }
    let Some(name) = args.name else {
        return Err(
            CommandError::usage("which tool? `pi-context tool` needs a tool name")
                .with_hint(format!("tools: {}", registry::names().join(", ")))
                .with_hint("`pi-context tool --schemas` describes them"),
        );
    };
    let unknown = || {
        CommandError::usage(format!("unknown tool {name:?}"))
            .with_hint(format!("tools: {}", registry::names().join(", ")))
    };
    if registry::find(&name).is_none() {
        return Err(unknown());
    }
    let input = read_request()?;
    // One JSON object: serde would also fill the request struct from an array.
    let request: ToolRequest = serde_json::from_str::<serde_json::Value>(&input)
        .and_then(|value| match value {
            serde_json::Value::Object(_) => serde_json::from_value(value),
            _ => Err(serde::de::Error::custom("the request is not a JSON object")),
        })
        .map_err(|e| {
            CommandError::caused(Kind::Usage, NOT_A_REQUEST, e).with_hint(
                r#"send one object: {"params":{…},"context":{"session_file":…,"leaf_id":…}}"#,
            )
        })?;
    let response = protocol::answer(&name, &request, vars).ok_or_else(unknown)?;
    printer::json_document(ui.out(), &response)?;
    Ok(exit::SUCCESS)
}

/// The request on stdin, refused unparsed when it is over [`MAX_REQUEST_BYTES`].
fn read_request() -> Result<String, CommandError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_REQUEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CommandError::io("cannot read the request from stdin", e))?;
    if bytes.len() as u64 > MAX_REQUEST_BYTES {
        return Err(CommandError::usage(format!(
            "the request on stdin is larger than {} MiB; it was not read",
            MAX_REQUEST_BYTES >> 20
        ))
        .with_hint("send less: a tool request carries parameters, not files"));
    }
    String::from_utf8(bytes)
        .map_err(|e| CommandError::caused(Kind::Usage, NOT_A_REQUEST, e.utf8_error()))
}
