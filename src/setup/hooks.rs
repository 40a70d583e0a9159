//! The `hooks` object Claude Code's `settings.json`, Codex's `hooks.json` and Gemini CLI's
//! `settings.json` share: `{"<Event>": [{"matcher"?: …, "hooks": [{"type": "command", "command":
//! …, "timeout": …}]}]}`; each agent names the prompt's event its own way, and Gemini CLI counts
//! the timeout in milliseconds.
//! pi-context's handlers are known by their command ([`super::is_our_hook`]); the user's own,
//! in the same groups or others, stay as they are.

use serde_json::{json, Map, Value};

use super::{hook_command, is_our_hook, HookStatus, Target, HOOK_TIMEOUT_SECS};
use crate::push::Event;
use crate::session::AgentConfig;

/// The handler a setup installs for `event`.
pub fn handler(target: &Target, event: Event) -> Value {
    let millis = target
        .agent
        .agent_facts()
        .is_some_and(|f| f.config == AgentConfig::Gemini);
    json!({
        "type": "command",
        "command": hook_command(target, event),
        "timeout": if millis { HOOK_TIMEOUT_SECS * 1000 } else { HOOK_TIMEOUT_SECS },
    })
}

/// The agent's name of `event` (the key of its list of handlers).
pub fn event_key(target: &Target, event: Event) -> &'static str {
    match target.agent.agent_facts() {
        Some(facts) => event.hook_name_for(&facts),
        None => event.hook_name(),
    }
}

fn is_ours(handler: &Value, target: &Target) -> bool {
    handler
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| is_our_hook(c, target.agent))
}

/// Puts pi-context's handler for `event` into `hooks`, replacing any earlier one of ours (a
/// moved binary); the index of the group it is in. An event whose list is not an array is left
/// alone (`None`).
pub fn install(hooks: &mut Map<String, Value>, target: &Target, event: Event) -> Option<usize> {
    let wanted = handler(target, event);
    let groups = super::json::array_at(hooks, event_key(target, event))?;
    let ours: Vec<(usize, usize)> = handlers_of_ours(groups, target);
    if let [(group, index)] = ours.as_slice() {
        if groups[*group]["hooks"][*index] == wanted {
            return Some(*group);
        }
    }
    remove_ours(groups, target);
    groups.push(json!({ "hooks": [wanted] }));
    Some(groups.len() - 1)
}

/// Takes pi-context's handlers out of `hooks`: a group left empty goes, an event left without
/// groups goes; the handlers it took (their commands, to find their trust).
pub fn remove(hooks: &mut Map<String, Value>, target: &Target, event: Event) -> Vec<Value> {
    let name = event_key(target, event);
    let Some(groups) = hooks.get_mut(name).and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    let removed = remove_ours(groups, target);
    if groups.is_empty() && !removed.is_empty() {
        hooks.remove(name);
    }
    removed
}

/// `(group, handler)` of each of our handlers.
fn handlers_of_ours(groups: &[Value], target: &Target) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if let Some(handlers) = group.get("hooks").and_then(Value::as_array) {
            for (h, handler) in handlers.iter().enumerate() {
                if is_ours(handler, target) {
                    found.push((g, h));
                }
            }
        }
    }
    found
}

fn remove_ours(groups: &mut Vec<Value>, target: &Target) -> Vec<Value> {
    let mut removed = Vec::new();
    groups.retain_mut(|group| {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = handlers.len();
        handlers.retain(|h| {
            let ours = is_ours(h, target);
            if ours {
                removed.push(h.clone());
            }
            !ours
        });
        !(handlers.is_empty() && before > 0)
    });
    removed
}

/// The handler of ours for `event` in `hooks`, and the index of its group.
pub fn find(hooks: &Map<String, Value>, target: &Target, event: Event) -> Option<(usize, Value)> {
    let groups = hooks.get(event_key(target, event))?.as_array()?;
    let (group, index) = *handlers_of_ours(groups, target).first()?;
    Some((group, groups[group]["hooks"][index].clone()))
}

/// The status of pi-context's handler for each of `events` in `hooks`: installed or not, its
/// command.
pub fn statuses(hooks: &Map<String, Value>, target: &Target, events: &[Event]) -> Vec<HookStatus> {
    events
        .iter()
        .map(|&event| {
            let command = find(hooks, target, event).and_then(|(_, handler)| {
                handler
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
            HookStatus::of(event, command)
        })
        .collect()
}
