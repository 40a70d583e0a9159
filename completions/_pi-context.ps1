
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'pi-context' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'pi-context'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'pi-context' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor, OpenCode): context windows, events, full text, search')
            [CompletionResult]::new('notes', 'notes', [CompletionResultType]::ParameterValue, 'Read and write the five-home markdown notes store')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index')
            [CompletionResult]::new('dream', 'dream', [CompletionResultType]::ParameterValue, 'Consolidate the notes store with a dreamer agent, under a lock and a git audit trail')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the notes, sessions and history tools to any MCP client over stdio')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Answer an agent''s hook: the boot, the recall hint, the way back after a compaction (run by the hooks `pi-context setup` installs; reads the hook''s JSON on stdin)')
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Install pi-context into an agent: its MCP server and the hooks that push the boot, the recall hint and the way back after a compaction (docs/agents.md)')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed, bytes pushed, pi-context tool calls (read from the transcripts)')
            [CompletionResult]::new('boot', 'boot', [CompletionResultType]::ParameterValue, 'Render the boot block for a fresh context window from a JSON request on stdin')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'The task-state checkpoint of a Pi session''s branch')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;history' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('windows', 'windows', [CompletionResultType]::ParameterValue, 'List the context windows of the current branch, oldest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read an event''s full text as a READ WINDOW; follow `next_offset_chars` for more')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;history;windows' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The result budget in UTF-8 bytes, as for a tool result')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;history;list' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The result budget in UTF-8 bytes, as for a tool result')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Rows per page (fold rows are extra)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Rows per page (fold rows are extra)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Only these roles (repeatable); without it, `list` shows the conversation view')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only these roles (repeatable); without it, `list` shows the conversation view')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Only events with a seq below this (exclusive); page older with the printed `older_before`')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only events with a seq above this (exclusive); page newer with the printed `newer_after`')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'Only events of this context window')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Code points of preview per row')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;history;read' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The result budget in UTF-8 bytes, as for a tool result')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Start at this code point; negative counts from the end')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Code points to read (at most 50000)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;history;search' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The result budget in UTF-8 bytes, as for a tool result')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Rows per page (fold rows are extra)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Rows per page (fold rows are extra)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Only these roles (repeatable); without it, `list` shows the conversation view')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only these roles (repeatable); without it, `list` shows the conversation view')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Only events with a seq below this (exclusive); page older with the printed `older_before`')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only events with a seq above this (exclusive); page newer with the printed `newer_after`')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'Only events of this context window')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Code points of preview per row')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;history;help' {
            [CompletionResult]::new('windows', 'windows', [CompletionResultType]::ParameterValue, 'List the context windows of the current branch, oldest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read an event''s full text as a READ WINDOW; follow `next_offset_chars` for more')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;history;help;windows' {
            break
        }
        'pi-context;history;help;list' {
            break
        }
        'pi-context;history;help;read' {
            break
        }
        'pi-context;history;help;search' {
            break
        }
        'pi-context;history;help;help' {
            break
        }
        'pi-context;notes' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Create or overwrite a note; the body comes from --content or stdin')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace exact text in a note''s body, relabel its origin, or crumple / smooth it')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move a note to another address, atomically')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read a window of a note''s body as a READ WINDOW; follow `next_offset_chars` for more')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List notes, most recently updated first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the notes history: the commits that changed a note, newest first')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare a note with a past version of it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Put back a note as it was at a past commit, as a new change: history is never rewritten')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Exchange the notes with a git remote: fetch, merge, push')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;notes;write' {
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The whole body; without it, the body is read from stdin')
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'The whole body; without it, the body is read from stdin')
            [CompletionResult]::new('--origin', '--origin', [CompletionResultType]::ParameterName, 'Who the content comes from [default: self for a new note, unchanged on overwrite]')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;edit' {
            [CompletionResult]::new('--old', '--old', [CompletionResultType]::ParameterName, 'Text to replace; pairs with the --new at the same position (repeatable)')
            [CompletionResult]::new('--new', '--new', [CompletionResultType]::ParameterName, 'The replacement for the --old at the same position (repeatable; may be empty)')
            [CompletionResult]::new('--edits', '--edits', [CompletionResultType]::ParameterName, 'Edits as JSON, as Pi''s edit tool takes them: ''[{"oldText":"a","newText":"b"}]''')
            [CompletionResult]::new('--origin', '--origin', [CompletionResultType]::ParameterName, 'Relabel who the content comes from')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--replace-all', '--replace-all', [CompletionResultType]::ParameterName, 'Replace every occurrence of each old text instead of requiring exactly one')
            [CompletionResult]::new('--crumple', '--crumple', [CompletionResultType]::ParameterName, 'Move the note to the wastebasket (keeps the first crumple time)')
            [CompletionResult]::new('--smooth', '--smooth', [CompletionResultType]::ParameterName, 'Take the note out of the wastebasket')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;move' {
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--files', '--files', [CompletionResultType]::ParameterName, 'FROM and TO are note files below the notes home (`human/a.md`, `project/<key>/b.md`), as the dreamer names them')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;read' {
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Start at this code point; negative counts from the end')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Code points to read (at most 50000)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The window''s budget in UTF-8 bytes, as for a tool result')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;list' {
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only addresses matching this glob (`*`, `**`, `?`), e.g. ''@project/**'' or ''**/MAP.md''')
            [CompletionResult]::new('--pattern', '--pattern', [CompletionResultType]::ParameterName, 'Only addresses matching this glob (`*`, `**`, `?`), e.g. ''@project/**'' or ''**/MAP.md''')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most this many notes')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many notes')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--wastebasket', '--wastebasket', [CompletionResultType]::ParameterName, 'List only crumpled notes')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;search' {
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Only addresses matching this glob (`*`, `**`, `?`)')
            [CompletionResult]::new('--pattern', '--pattern', [CompletionResultType]::ParameterName, 'Only addresses matching this glob (`*`, `**`, `?`)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most this many notes')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many notes')
            [CompletionResult]::new('--max-matches', '--max-matches', [CompletionResultType]::ParameterName, 'At most this many matching lines per note')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--wastebasket', '--wastebasket', [CompletionResultType]::ParameterName, 'Search only crumpled notes')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;log' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most this many commits')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most this many commits')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;diff' {
            [CompletionResult]::new('--rev', '--rev', [CompletionResultType]::ParameterName, 'The older side: a commit of the notes history')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;restore' {
            [CompletionResult]::new('--rev', '--rev', [CompletionResultType]::ParameterName, 'The commit whose version to put back (an id from `notes log`, HEAD~1, …)')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;sync' {
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'The remote: a name in the notes home''s repository, or a URL')
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]')
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The project key for @project/ [default: derived from --cwd]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Derive the project key from this directory''s git checkout [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (the tool protocol''s result object) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;notes;help' {
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Create or overwrite a note; the body comes from --content or stdin')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace exact text in a note''s body, relabel its origin, or crumple / smooth it')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move a note to another address, atomically')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read a window of a note''s body as a READ WINDOW; follow `next_offset_chars` for more')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List notes, most recently updated first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the notes history: the commits that changed a note, newest first')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare a note with a past version of it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Put back a note as it was at a past commit, as a new change: history is never rewritten')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Exchange the notes with a git remote: fetch, merge, push')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;notes;help;write' {
            break
        }
        'pi-context;notes;help;edit' {
            break
        }
        'pi-context;notes;help;move' {
            break
        }
        'pi-context;notes;help;read' {
            break
        }
        'pi-context;notes;help;list' {
            break
        }
        'pi-context;notes;help;search' {
            break
        }
        'pi-context;notes;help;log' {
            break
        }
        'pi-context;notes;help;diff' {
            break
        }
        'pi-context;notes;help;restore' {
            break
        }
        'pi-context;notes;help;sync' {
            break
        }
        'pi-context;notes;help;help' {
            break
        }
        'pi-context;sessions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, most recently updated first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Bring the session index up to date (never required: list and search refresh it first)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;sessions;list' {
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The sessions of this project key')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'The sessions of the project holding this directory [default: the current directory]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most this many sessions')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many sessions')
            [CompletionResult]::new('--sessions-dir', '--sessions-dir', [CompletionResultType]::ParameterName, 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]')
            [CompletionResult]::new('--copilot-dir', '--copilot-dir', [CompletionResultType]::ParameterName, 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]')
            [CompletionResult]::new('--cursor-dir', '--cursor-dir', [CompletionResultType]::ParameterName, 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]')
            [CompletionResult]::new('--opencode-dir', '--opencode-dir', [CompletionResultType]::ParameterName, 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]')
            [CompletionResult]::new('--harness', '--harness', [CompletionResultType]::ParameterName, 'Only the sessions of this agent (repeatable)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions (the current project''s rank higher)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;sessions;search' {
            [CompletionResult]::new('--project-key', '--project-key', [CompletionResultType]::ParameterName, 'The sessions of this project key')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'The sessions of the project holding this directory [default: the current directory]')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Only events of this role (repeatable)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only events of this role (repeatable)')
            [CompletionResult]::new('--branches', '--branches', [CompletionResultType]::ParameterName, '`current`: each session''s default branch; `all`: abandoned branches too')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most this many sessions')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many sessions')
            [CompletionResult]::new('--hits', '--hits', [CompletionResultType]::ParameterName, 'At most this many hits per session')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Code points of preview per hit')
            [CompletionResult]::new('--sessions-dir', '--sessions-dir', [CompletionResultType]::ParameterName, 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]')
            [CompletionResult]::new('--copilot-dir', '--copilot-dir', [CompletionResultType]::ParameterName, 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]')
            [CompletionResult]::new('--cursor-dir', '--cursor-dir', [CompletionResultType]::ParameterName, 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]')
            [CompletionResult]::new('--opencode-dir', '--opencode-dir', [CompletionResultType]::ParameterName, 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]')
            [CompletionResult]::new('--harness', '--harness', [CompletionResultType]::ParameterName, 'Only the sessions of this agent (repeatable)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions (the current project''s rank higher)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;sessions;index' {
            [CompletionResult]::new('--sessions-dir', '--sessions-dir', [CompletionResultType]::ParameterName, 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]')
            [CompletionResult]::new('--claude-dir', '--claude-dir', [CompletionResultType]::ParameterName, 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]')
            [CompletionResult]::new('--codex-dir', '--codex-dir', [CompletionResultType]::ParameterName, 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]')
            [CompletionResult]::new('--gemini-dir', '--gemini-dir', [CompletionResultType]::ParameterName, 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]')
            [CompletionResult]::new('--copilot-dir', '--copilot-dir', [CompletionResultType]::ParameterName, 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]')
            [CompletionResult]::new('--cursor-dir', '--cursor-dir', [CompletionResultType]::ParameterName, 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]')
            [CompletionResult]::new('--opencode-dir', '--opencode-dir', [CompletionResultType]::ParameterName, 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]')
            [CompletionResult]::new('--harness', '--harness', [CompletionResultType]::ParameterName, 'Only the sessions of this agent (repeatable)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--rebuild', '--rebuild', [CompletionResultType]::ParameterName, 'Start from an empty index')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;sessions;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, most recently updated first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Bring the session index up to date (never required: list and search refresh it first)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;sessions;help;list' {
            break
        }
        'pi-context;sessions;help;search' {
            break
        }
        'pi-context;sessions;help;index' {
            break
        }
        'pi-context;sessions;help;help' {
            break
        }
        'pi-context;dream' {
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--min-hours', '--min-hours', [CompletionResultType]::ParameterName, 'Skip unless this many hours passed since the last run')
            [CompletionResult]::new('--min-sessions', '--min-sessions', [CompletionResultType]::ParameterName, 'Skip unless this many sessions changed notes since the last run')
            [CompletionResult]::new('--dreamer', '--dreamer', [CompletionResultType]::ParameterName, 'The dreamer model pattern [default: settings `pi-context.dreamer`, else Pi''s default]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The dreamer''s agent name (its writable home is agents/<name>/) [env: PI_NOTES_AGENT] [default: anonymous]')
            [CompletionResult]::new('--purge-after', '--purge-after', [CompletionResultType]::ParameterName, 'Empty the wastebasket: remove notes crumpled longer ago than this (`30d`, `12h`, `4w`, `0`)')
            [CompletionResult]::new('--playbook', '--playbook', [CompletionResultType]::ParameterName, 'A playbook file to use instead of the built-in one')
            [CompletionResult]::new('--pi', '--pi', [CompletionResultType]::ParameterName, 'The `pi` executable [env: PI_CONTEXT_PI] [default: `pi` on PATH]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Run even when the time or material gate says no (never bypasses the lock)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Evaluate the gates and the lock, print the plan, change nothing')
            [CompletionResult]::new('--print-playbook', '--print-playbook', [CompletionResultType]::ParameterName, 'Print the playbook (the built-in one, or --playbook) and exit')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the notes store without changing it (exit 0 clean, 1 issues found)')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Revert one dream''s changes as a new commit (exit 0 undone, 1 refused, 75 locked)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;dream;doctor' {
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;dream;undo' {
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Undo even notes changed after the dream, keeping both versions visibly')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;dream;help' {
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the notes store without changing it (exit 0 clean, 1 issues found)')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Revert one dream''s changes as a new commit (exit 0 undone, 1 refused, 75 locked)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;dream;help;doctor' {
            break
        }
        'pi-context;dream;help;undo' {
            break
        }
        'pi-context;dream;help;help' {
            break
        }
        'pi-context;mcp' {
            [CompletionResult]::new('--notes-home', '--notes-home', [CompletionResultType]::ParameterName, 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]')
            [CompletionResult]::new('--session-id', '--session-id', [CompletionResultType]::ParameterName, 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID] [default: a new id each start, printed on stderr]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'The project''s directory, for @project/ and sessions'' default scope [default: the current directory]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent whose home is @self/ and who signs the notes commits (slugified) [default: the client''s name]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The Pi session history_* tools read when no session_id is given: a session file, or a session id or unique prefix of at least 8 characters')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The Pi session history_* tools read when no session_id is given: a session file, or a session id or unique prefix of at least 8 characters')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;hook' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;setup' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change, as a diff, and change nothing')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Take out exactly what a setup adds (the user''s own entries stay)')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Show what is installed, whether the binary the hooks name is there and is this version, and how each hook last ran')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'With --status: print JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;stats' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions updated this recently: 30m, 12h, 7d, 4w or an RFC 3339 date; `all` for every session')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;boot' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print {"text","window_id","previous_window_id","reason","homes_unavailable"} instead of the text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;checkpoint' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the checkpoint that applies on a session''s branch (exit 1 when it has none)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;checkpoint;show' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The Pi session JSONL file, or a session id or unique prefix of at least 8 characters found under Pi''s session dirs [default: PI_CONTEXT_SESSION_ID, else the most recently updated session of the current project]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The Pi session JSONL file, or a session id or unique prefix of at least 8 characters found under Pi''s session dirs [default: PI_CONTEXT_SESSION_ID, else the most recently updated session of the current project]')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;checkpoint;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the checkpoint that applies on a session''s branch (exit 1 when it has none)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;checkpoint;help;show' {
            break
        }
        'pi-context;checkpoint;help;help' {
            break
        }
        'pi-context;tool' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--schemas', '--schemas', [CompletionResultType]::ParameterName, 'Print the names, descriptions and JSON Schemas of every tool')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;man' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pi-context;help' {
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor, OpenCode): context windows, events, full text, search')
            [CompletionResult]::new('notes', 'notes', [CompletionResultType]::ParameterValue, 'Read and write the five-home markdown notes store')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index')
            [CompletionResult]::new('dream', 'dream', [CompletionResultType]::ParameterValue, 'Consolidate the notes store with a dreamer agent, under a lock and a git audit trail')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the notes, sessions and history tools to any MCP client over stdio')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Answer an agent''s hook: the boot, the recall hint, the way back after a compaction (run by the hooks `pi-context setup` installs; reads the hook''s JSON on stdin)')
            [CompletionResult]::new('setup', 'setup', [CompletionResultType]::ParameterValue, 'Install pi-context into an agent: its MCP server and the hooks that push the boot, the recall hint and the way back after a compaction (docs/agents.md)')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed, bytes pushed, pi-context tool calls (read from the transcripts)')
            [CompletionResult]::new('boot', 'boot', [CompletionResultType]::ParameterValue, 'Render the boot block for a fresh context window from a JSON request on stdin')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'The task-state checkpoint of a Pi session''s branch')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-context;help;history' {
            [CompletionResult]::new('windows', 'windows', [CompletionResultType]::ParameterValue, 'List the context windows of the current branch, oldest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read an event''s full text as a READ WINDOW; follow `next_offset_chars` for more')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches')
            break
        }
        'pi-context;help;history;windows' {
            break
        }
        'pi-context;help;history;list' {
            break
        }
        'pi-context;help;history;read' {
            break
        }
        'pi-context;help;history;search' {
            break
        }
        'pi-context;help;notes' {
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Create or overwrite a note; the body comes from --content or stdin')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace exact text in a note''s body, relabel its origin, or crumple / smooth it')
            [CompletionResult]::new('move', 'move', [CompletionResultType]::ParameterValue, 'Move a note to another address, atomically')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read a window of a note''s body as a READ WINDOW; follow `next_offset_chars` for more')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List notes, most recently updated first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the notes history: the commits that changed a note, newest first')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare a note with a past version of it')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Put back a note as it was at a past commit, as a new change: history is never rewritten')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Exchange the notes with a git remote: fetch, merge, push')
            break
        }
        'pi-context;help;notes;write' {
            break
        }
        'pi-context;help;notes;edit' {
            break
        }
        'pi-context;help;notes;move' {
            break
        }
        'pi-context;help;notes;read' {
            break
        }
        'pi-context;help;notes;list' {
            break
        }
        'pi-context;help;notes;search' {
            break
        }
        'pi-context;help;notes;log' {
            break
        }
        'pi-context;help;notes;diff' {
            break
        }
        'pi-context;help;notes;restore' {
            break
        }
        'pi-context;help;notes;sync' {
            break
        }
        'pi-context;help;sessions' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, most recently updated first')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches')
            [CompletionResult]::new('index', 'index', [CompletionResultType]::ParameterValue, 'Bring the session index up to date (never required: list and search refresh it first)')
            break
        }
        'pi-context;help;sessions;list' {
            break
        }
        'pi-context;help;sessions;search' {
            break
        }
        'pi-context;help;sessions;index' {
            break
        }
        'pi-context;help;dream' {
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the notes store without changing it (exit 0 clean, 1 issues found)')
            [CompletionResult]::new('undo', 'undo', [CompletionResultType]::ParameterValue, 'Revert one dream''s changes as a new commit (exit 0 undone, 1 refused, 75 locked)')
            break
        }
        'pi-context;help;dream;doctor' {
            break
        }
        'pi-context;help;dream;undo' {
            break
        }
        'pi-context;help;mcp' {
            break
        }
        'pi-context;help;hook' {
            break
        }
        'pi-context;help;setup' {
            break
        }
        'pi-context;help;stats' {
            break
        }
        'pi-context;help;boot' {
            break
        }
        'pi-context;help;checkpoint' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the checkpoint that applies on a session''s branch (exit 1 when it has none)')
            break
        }
        'pi-context;help;checkpoint;show' {
            break
        }
        'pi-context;help;tool' {
            break
        }
        'pi-context;help;completions' {
            break
        }
        'pi-context;help;man' {
            break
        }
        'pi-context;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
