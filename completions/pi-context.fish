# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pi_context_global_optspecs
    string join \n color= h/help V/version
end

function __fish_pi_context_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_pi_context_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_pi_context_using_subcommand
    set -l cmd (__fish_pi_context_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c pi-context -n "__fish_pi_context_needs_command" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_needs_command" -s V -l version -d 'Print version'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "history" -d 'Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor, OpenCode): context windows, events, full text, search'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "notes" -d 'Read and write the five-home markdown notes store'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "sessions" -d 'Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "dream" -d 'Consolidate the notes store with a dreamer agent, under a lock and a git audit trail'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "mcp" -d 'Serve the notes, sessions and history tools to any MCP client over stdio'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "hook" -d 'Answer an agent\'s hook: the boot, the recall hint, the way back after a compaction (run by the hooks `pi-context setup` installs; reads the hook\'s JSON on stdin)'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "setup" -d 'Install pi-context into an agent: its MCP server and the hooks that push the boot, the recall hint and the way back after a compaction (docs/agents.md)'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "stats" -d 'How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed, bytes pushed, pi-context tool calls (read from the transcripts)'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "boot" -d 'Render the boot block for a fresh context window from a JSON request on stdin'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "checkpoint" -d 'The task-state checkpoint of a Pi session\'s branch'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "tool" -d 'Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "man" -d 'Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`'
complete -c pi-context -n "__fish_pi_context_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -f -a "windows" -d 'List the context windows of the current branch, oldest first'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -f -a "list" -d 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -f -a "read" -d 'Read an event\'s full text as a READ WINDOW; follow `next_offset_chars` for more'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -f -a "search" -d 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and not __fish_seen_subcommand_from windows list read search help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -s s -l session -d 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent\'s session dirs' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -l leaf -d 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -l session-id -d 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -l max-bytes -d 'The result budget in UTF-8 bytes, as for a tool result' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -l redact -d 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from windows" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -s s -l session -d 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent\'s session dirs' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l leaf -d 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l session-id -d 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l max-bytes -d 'The result budget in UTF-8 bytes, as for a tool result' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -s n -l limit -d 'Rows per page (fold rows are extra)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -s r -l role -d 'Only these roles (repeatable); without it, `list` shows the conversation view' -r -f -a "user\t''
assistant\t''
tool\t''
context\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l before -d 'Only events with a seq below this (exclusive); page older with the printed `older_before`' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l after -d 'Only events with a seq above this (exclusive); page newer with the printed `newer_after`' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l window -d 'Only events of this context window' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l max-chars -d 'Code points of preview per row' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -l redact -d 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -s s -l session -d 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent\'s session dirs' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l leaf -d 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l session-id -d 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l max-bytes -d 'The result budget in UTF-8 bytes, as for a tool result' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l offset -d 'Start at this code point; negative counts from the end' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l limit -d 'Code points to read (at most 50000)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -l redact -d 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -s s -l session -d 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent\'s session dirs' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l leaf -d 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l session-id -d 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l max-bytes -d 'The result budget in UTF-8 bytes, as for a tool result' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -s n -l limit -d 'Rows per page (fold rows are extra)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -s r -l role -d 'Only these roles (repeatable); without it, `list` shows the conversation view' -r -f -a "user\t''
assistant\t''
tool\t''
context\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l before -d 'Only events with a seq below this (exclusive); page older with the printed `older_before`' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l after -d 'Only events with a seq above this (exclusive); page newer with the printed `newer_after`' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l window -d 'Only events of this context window' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l max-chars -d 'Code points of preview per row' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -l redact -d 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "windows" -d 'List the context windows of the current branch, oldest first'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "list" -d 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "read" -d 'Read an event\'s full text as a READ WINDOW; follow `next_offset_chars` for more'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "search" -d 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "write" -d 'Create or overwrite a note; the body comes from --content or stdin'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "edit" -d 'Replace exact text in a note\'s body, relabel its origin, or crumple / smooth it'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "move" -d 'Move a note to another address, atomically'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "read" -d 'Read a window of a note\'s body as a READ WINDOW; follow `next_offset_chars` for more'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "list" -d 'List notes, most recently updated first'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "search" -d 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "log" -d 'Show the notes history: the commits that changed a note, newest first'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "diff" -d 'Compare a note with a past version of it'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "restore" -d 'Put back a note as it was at a past commit, as a new change: history is never rewritten'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "sync" -d 'Exchange the notes with a git remote: fetch, merge, push'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and not __fish_seen_subcommand_from write edit move read list search log diff restore sync help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -s c -l content -d 'The whole body; without it, the body is read from stdin' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l origin -d 'Who the content comes from [default: self for a new note, unchanged on overwrite]' -r -f -a "user\t'The human said or wrote it'
self\t'You (the agent) wrote it'
external\t'It comes from elsewhere (a web page, a tool, another agent)'"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from write" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l old -d 'Text to replace; pairs with the --new at the same position (repeatable)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l new -d 'The replacement for the --old at the same position (repeatable; may be empty)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l edits -d 'Edits as JSON, as Pi\'s edit tool takes them: \'[{"oldText":"a","newText":"b"}]\'' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l origin -d 'Relabel who the content comes from' -r -f -a "user\t'The human said or wrote it'
self\t'You (the agent) wrote it'
external\t'It comes from elsewhere (a web page, a tool, another agent)'"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l replace-all -d 'Replace every occurrence of each old text instead of requiring exactly one'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l crumple -d 'Move the note to the wastebasket (keeps the first crumple time)'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l smooth -d 'Take the note out of the wastebasket'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l files -d 'FROM and TO are note files below the notes home (`human/a.md`, `project/<key>/b.md`), as the dreamer names them'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from move" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l offset -d 'Start at this code point; negative counts from the end' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l limit -d 'Code points to read (at most 50000)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l max-bytes -d 'The window\'s budget in UTF-8 bytes, as for a tool result' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -s p -l pattern -d 'Only addresses matching this glob (`*`, `**`, `?`), e.g. \'@project/**\' or \'**/MAP.md\'' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -s n -l limit -d 'At most this many notes' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l wastebasket -d 'List only crumpled notes'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -s p -l pattern -d 'Only addresses matching this glob (`*`, `**`, `?`)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -s n -l limit -d 'At most this many notes' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l max-matches -d 'At most this many matching lines per note' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l wastebasket -d 'Search only crumpled notes'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -s n -l limit -d 'Show at most this many commits' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l rev -d 'The older side: a commit of the notes history' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l rev -d 'The commit whose version to put back (an id from `notes log`, HEAD~1, …)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l remote -d 'The remote: a name in the notes home\'s repository, or a URL' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l project-key -d 'The project key for @project/ [default: derived from --cwd]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l cwd -d 'Derive the project key from this directory\'s git checkout [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l agent -d 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -l json -d 'Print JSON (the tool protocol\'s result object) instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "write" -d 'Create or overwrite a note; the body comes from --content or stdin'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Replace exact text in a note\'s body, relabel its origin, or crumple / smooth it'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "move" -d 'Move a note to another address, atomically'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "read" -d 'Read a window of a note\'s body as a READ WINDOW; follow `next_offset_chars` for more'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "list" -d 'List notes, most recently updated first'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "search" -d 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "log" -d 'Show the notes history: the commits that changed a note, newest first'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "diff" -d 'Compare a note with a past version of it'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "restore" -d 'Put back a note as it was at a past commit, as a new change: history is never rewritten'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "sync" -d 'Exchange the notes with a git remote: fetch, merge, push'
complete -c pi-context -n "__fish_pi_context_using_subcommand notes; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and not __fish_seen_subcommand_from list search index help" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and not __fish_seen_subcommand_from list search index help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and not __fish_seen_subcommand_from list search index help" -f -a "list" -d 'List sessions, most recently updated first'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and not __fish_seen_subcommand_from list search index help" -f -a "search" -d 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and not __fish_seen_subcommand_from list search index help" -f -a "index" -d 'Bring the session index up to date (never required: list and search refresh it first)'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and not __fish_seen_subcommand_from list search index help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l project-key -d 'The sessions of this project key' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l cwd -d 'The sessions of the project holding this directory [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l since -d 'Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -s n -l limit -d 'At most this many sessions' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l sessions-dir -d 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l claude-dir -d 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l codex-dir -d 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l gemini-dir -d 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l copilot-dir -d 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l cursor-dir -d 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l opencode-dir -d 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l harness -d 'Only the sessions of this agent (repeatable)' -r -f -a "pi\t''
claude\t''
codex\t''
gemini\t''
copilot\t''
cursor\t''
opencode\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l all -d 'Every project\'s sessions (the current project\'s rank higher)'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -l json -d 'Print JSON instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l project-key -d 'The sessions of this project key' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l cwd -d 'The sessions of the project holding this directory [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l since -d 'Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -s r -l role -d 'Only events of this role (repeatable)' -r -f -a "user\t''
assistant\t''
tool\t''
context\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l branches -d '`current`: each session\'s default branch; `all`: abandoned branches too' -r -f -a "current\t''
all\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -s n -l limit -d 'At most this many sessions' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l hits -d 'At most this many hits per session' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l max-chars -d 'Code points of preview per hit' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l sessions-dir -d 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l claude-dir -d 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l codex-dir -d 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l gemini-dir -d 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l copilot-dir -d 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l cursor-dir -d 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l opencode-dir -d 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l harness -d 'Only the sessions of this agent (repeatable)' -r -f -a "pi\t''
claude\t''
codex\t''
gemini\t''
copilot\t''
cursor\t''
opencode\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l all -d 'Every project\'s sessions (the current project\'s rank higher)'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -l json -d 'Print JSON instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l sessions-dir -d 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l claude-dir -d 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l codex-dir -d 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l gemini-dir -d 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l copilot-dir -d 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l cursor-dir -d 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l opencode-dir -d 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l harness -d 'Only the sessions of this agent (repeatable)' -r -f -a "pi\t''
claude\t''
codex\t''
gemini\t''
copilot\t''
cursor\t''
opencode\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l rebuild -d 'Start from an empty index'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -l json -d 'Print JSON instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "list" -d 'List sessions, most recently updated first'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "search" -d 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "index" -d 'Bring the session index up to date (never required: list and search refresh it first)'
complete -c pi-context -n "__fish_pi_context_using_subcommand sessions; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l min-hours -d 'Skip unless this many hours passed since the last run' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l min-sessions -d 'Skip unless this many sessions changed notes since the last run' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l dreamer -d 'The dreamer model pattern [default: settings `pi-context.dreamer`, else Pi\'s default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l agent -d 'The dreamer\'s agent name (its writable home is agents/<name>/) [env: PI_NOTES_AGENT] [default: anonymous]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l purge-after -d 'Empty the wastebasket: remove notes crumpled longer ago than this (`30d`, `12h`, `4w`, `0`)' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l playbook -d 'A playbook file to use instead of the built-in one' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l pi -d 'The `pi` executable [env: PI_CONTEXT_PI] [default: `pi` on PATH]' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l force -d 'Run even when the time or material gate says no (never bypasses the lock)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l dry-run -d 'Evaluate the gates and the lock, print the plan, change nothing'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l print-playbook -d 'Print the playbook (the built-in one, or --playbook) and exit'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -l json -d 'Print one JSON object'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -f -a "doctor" -d 'Check the notes store without changing it (exit 0 clean, 1 issues found)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -f -a "undo" -d 'Revert one dream\'s changes as a new commit (exit 0 undone, 1 refused, 75 locked)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and not __fish_seen_subcommand_from doctor undo help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from doctor" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from doctor" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from doctor" -l json -d 'Print one JSON object'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from undo" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from undo" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from undo" -l force -d 'Undo even notes changed after the dream, keeping both versions visibly'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from undo" -l json -d 'Print one JSON object'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from help" -f -a "doctor" -d 'Check the notes store without changing it (exit 0 clean, 1 issues found)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from help" -f -a "undo" -d 'Revert one dream\'s changes as a new commit (exit 0 undone, 1 refused, 75 locked)'
complete -c pi-context -n "__fish_pi_context_using_subcommand dream; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -l notes-home -d 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -l session-id -d 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID] [default: a new id each start, printed on stderr]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -l cwd -d 'The project\'s directory, for @project/ and sessions\' default scope [default: the current directory]' -r -f -a "(__fish_complete_directories)"
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -l agent -d 'The agent whose home is @self/ and who signs the notes commits (slugified) [default: the client\'s name]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -l model -d 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -s s -l session -d 'The Pi session history_* tools read when no session_id is given: a session file, or a session id or unique prefix of at least 8 characters' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand hook" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand hook" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand setup" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand setup" -l dry-run -d 'Show what would change, as a diff, and change nothing'
complete -c pi-context -n "__fish_pi_context_using_subcommand setup" -l remove -d 'Take out exactly what a setup adds (the user\'s own entries stay)'
complete -c pi-context -n "__fish_pi_context_using_subcommand setup" -l status -d 'Show what is installed, whether the binary the hooks name is there and is this version, and how each hook last ran'
complete -c pi-context -n "__fish_pi_context_using_subcommand setup" -l json -d 'With --status: print JSON'
complete -c pi-context -n "__fish_pi_context_using_subcommand setup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand stats" -l since -d 'Only sessions updated this recently: 30m, 12h, 7d, 4w or an RFC 3339 date; `all` for every session' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand stats" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand stats" -l json -d 'Print JSON'
complete -c pi-context -n "__fish_pi_context_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand boot" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand boot" -l json -d 'Print {"text","window_id","previous_window_id","reason","homes_unavailable"} instead of the text'
complete -c pi-context -n "__fish_pi_context_using_subcommand boot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and not __fish_seen_subcommand_from show help" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'Print the checkpoint that applies on a session\'s branch (exit 1 when it has none)'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from show" -s s -l session -d 'The Pi session JSONL file, or a session id or unique prefix of at least 8 characters found under Pi\'s session dirs [default: PI_CONTEXT_SESSION_ID, else the most recently updated session of the current project]' -r -F
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from show" -l leaf -d 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]' -r
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from show" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from show" -l json -d 'Print JSON instead of text'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the checkpoint that applies on a session\'s branch (exit 1 when it has none)'
complete -c pi-context -n "__fish_pi_context_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand tool" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand tool" -l schemas -d 'Print the names, descriptions and JSON Schemas of every tool'
complete -c pi-context -n "__fish_pi_context_using_subcommand tool" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand completions" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand man" -l color -d 'When to color human output' -r -f -a "auto\t'Color when writing to a terminal and NO_COLOR is unset'
always\t''
never\t''"
complete -c pi-context -n "__fish_pi_context_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "history" -d 'Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor, OpenCode): context windows, events, full text, search'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "notes" -d 'Read and write the five-home markdown notes store'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "sessions" -d 'Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "dream" -d 'Consolidate the notes store with a dreamer agent, under a lock and a git audit trail'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "mcp" -d 'Serve the notes, sessions and history tools to any MCP client over stdio'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "hook" -d 'Answer an agent\'s hook: the boot, the recall hint, the way back after a compaction (run by the hooks `pi-context setup` installs; reads the hook\'s JSON on stdin)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "setup" -d 'Install pi-context into an agent: its MCP server and the hooks that push the boot, the recall hint and the way back after a compaction (docs/agents.md)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "stats" -d 'How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed, bytes pushed, pi-context tool calls (read from the transcripts)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "boot" -d 'Render the boot block for a fresh context window from a JSON request on stdin'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "checkpoint" -d 'The task-state checkpoint of a Pi session\'s branch'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "tool" -d 'Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "completions" -d 'Print shell completions'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "man" -d 'Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and not __fish_seen_subcommand_from history notes sessions dream mcp hook setup stats boot checkpoint tool completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "windows" -d 'List the context windows of the current branch, oldest first'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "list" -d 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "read" -d 'Read an event\'s full text as a READ WINDOW; follow `next_offset_chars` for more'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "search" -d 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "write" -d 'Create or overwrite a note; the body comes from --content or stdin'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "edit" -d 'Replace exact text in a note\'s body, relabel its origin, or crumple / smooth it'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "move" -d 'Move a note to another address, atomically'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "read" -d 'Read a window of a note\'s body as a READ WINDOW; follow `next_offset_chars` for more'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "list" -d 'List notes, most recently updated first'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "search" -d 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "log" -d 'Show the notes history: the commits that changed a note, newest first'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "diff" -d 'Compare a note with a past version of it'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "restore" -d 'Put back a note as it was at a past commit, as a new change: history is never rewritten'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from notes" -f -a "sync" -d 'Exchange the notes with a git remote: fetch, merge, push'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "list" -d 'List sessions, most recently updated first'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "search" -d 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from sessions" -f -a "index" -d 'Bring the session index up to date (never required: list and search refresh it first)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from dream" -f -a "doctor" -d 'Check the notes store without changing it (exit 0 clean, 1 issues found)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from dream" -f -a "undo" -d 'Revert one dream\'s changes as a new commit (exit 0 undone, 1 refused, 75 locked)'
complete -c pi-context -n "__fish_pi_context_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "show" -d 'Print the checkpoint that applies on a session\'s branch (exit 1 when it has none)'
