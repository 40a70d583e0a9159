//! The facts the extension shares with this binary, printed by `pi-context tool --schemas` as
//! `facts` (docs/protocol.md): the custom types of the session entries pi-context writes (and
//! the name of the tool whose entries are checkpoints), how window ids are built, the boot's
//! identity header, pi-context's keys in Pi's settings, and which tools save notes.
//! Each value is the library constant the binary itself uses, so the two sides cannot drift.

use serde_json::{json, Value};

use pi_context::boot;
use pi_context::checkpoint;
use pi_context::history;
use pi_context::session;
use pi_context::settings;

pub fn all() -> Value {
    json!({
        "marker_type": session::RESET_MARKER_TYPE,
        "boot_type": session::BOOT_MESSAGE_TYPE,
        "continuation_type": session::CONTINUATION_MESSAGE_TYPE,
        "hint_type": session::HINT_MESSAGE_TYPE,
        "guidance_type": session::GUIDANCE_MESSAGE_TYPE,
        "warning_type": session::WARNING_MESSAGE_TYPE,
        "manual_wipe_type": session::MANUAL_WIPE_MESSAGE_TYPE,
        "checkpoint_type": checkpoint::CHECKPOINT_TYPE,
        "checkpoint_request_type": checkpoint::CHECKPOINT_REQUEST_TYPE,
        "checkpoint_tool": checkpoint::TOOL_NAME,
        "window_id_prefix": history::WINDOW_ID_PREFIX,
        "window_id_session_chars": history::WINDOW_ID_SESSION_CHARS,
        "root_window_suffix": history::ROOT_WINDOW_SUFFIX,
        "boot_header_open": boot::IDENTITY_OPEN,
        "boot_header_close": boot::IDENTITY_CLOSE,
        "first_window_label": boot::FIRST_WINDOW_LABEL,
        "current_window_label": boot::CURRENT_WINDOW_LABEL,
        "previous_window_label": boot::PREVIOUS_WINDOW_LABEL,
        "settings_section": settings::SECTION,
        "reminder_margin_setting": settings::REMINDER_MARGIN_KEY,
        "dreamer_setting": settings::DREAMER_KEY,
        "auto_recall_setting": settings::AUTO_RECALL_KEY,
        "default_reminder_margin_tokens": settings::DEFAULT_REMINDER_MARGIN_TOKENS,
        "notes_save_tools": super::registry::save_tool_names(),
    })
}
