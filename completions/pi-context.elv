
use builtin;
use str;

set edit:completion:arg-completer[pi-context] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'pi-context'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'pi-context'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand history 'Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor, OpenCode): context windows, events, full text, search'
            cand notes 'Read and write the five-home markdown notes store'
            cand sessions 'Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index'
            cand dream 'Consolidate the notes store with a dreamer agent, under a lock and a git audit trail'
            cand mcp 'Serve the notes, sessions and history tools to any MCP client over stdio'
            cand hook 'Answer an agent''s hook: the boot, the recall hint, the way back after a compaction (run by the hooks `pi-context setup` installs; reads the hook''s JSON on stdin)'
            cand setup 'Install pi-context into an agent: its MCP server and the hooks that push the boot, the recall hint and the way back after a compaction (docs/agents.md)'
            cand stats 'How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed, bytes pushed, pi-context tool calls (read from the transcripts)'
            cand boot 'Render the boot block for a fresh context window from a JSON request on stdin'
            cand checkpoint 'The task-state checkpoint of a Pi session''s branch'
            cand tool 'Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout'
            cand completions 'Print shell completions'
            cand man 'Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;history'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand windows 'List the context windows of the current branch, oldest first'
            cand list 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows'
            cand read 'Read an event''s full text as a READ WINDOW; follow `next_offset_chars` for more'
            cand search 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;history;windows'= {
            cand -s 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --session 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --leaf 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]'
            cand --session-id 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]'
            cand --max-bytes 'The result budget in UTF-8 bytes, as for a tool result'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand --redact 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;history;list'= {
            cand -s 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --session 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --leaf 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]'
            cand --session-id 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]'
            cand --max-bytes 'The result budget in UTF-8 bytes, as for a tool result'
            cand -n 'Rows per page (fold rows are extra)'
            cand --limit 'Rows per page (fold rows are extra)'
            cand -r 'Only these roles (repeatable); without it, `list` shows the conversation view'
            cand --role 'Only these roles (repeatable); without it, `list` shows the conversation view'
            cand --before 'Only events with a seq below this (exclusive); page older with the printed `older_before`'
            cand --after 'Only events with a seq above this (exclusive); page newer with the printed `newer_after`'
            cand --window 'Only events of this context window'
            cand --max-chars 'Code points of preview per row'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand --redact 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;history;read'= {
            cand -s 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --session 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --leaf 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]'
            cand --session-id 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]'
            cand --max-bytes 'The result budget in UTF-8 bytes, as for a tool result'
            cand --offset 'Start at this code point; negative counts from the end'
            cand --limit 'Code points to read (at most 50000)'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand --redact 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;history;search'= {
            cand -s 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --session 'The session file of any agent read (a missing file is an empty session), or a session id or unique prefix of at least 8 characters, found under every agent''s session dirs'
            cand --leaf 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]'
            cand --session-id 'The session id naming the root window when the file has no header id [env: PI_CONTEXT_SESSION_ID]'
            cand --max-bytes 'The result budget in UTF-8 bytes, as for a tool result'
            cand -n 'Rows per page (fold rows are extra)'
            cand --limit 'Rows per page (fold rows are extra)'
            cand -r 'Only these roles (repeatable); without it, `list` shows the conversation view'
            cand --role 'Only these roles (repeatable); without it, `list` shows the conversation view'
            cand --before 'Only events with a seq below this (exclusive); page older with the printed `older_before`'
            cand --after 'Only events with a seq above this (exclusive); page newer with the printed `newer_after`'
            cand --window 'Only events of this context window'
            cand --max-chars 'Code points of preview per row'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand --redact 'Mask secrets (API keys, tokens, passwords) as the recall index does; offsets stay those of the exact text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;history;help'= {
            cand windows 'List the context windows of the current branch, oldest first'
            cand list 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows'
            cand read 'Read an event''s full text as a READ WINDOW; follow `next_offset_chars` for more'
            cand search 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;history;help;windows'= {
        }
        &'pi-context;history;help;list'= {
        }
        &'pi-context;history;help;read'= {
        }
        &'pi-context;history;help;search'= {
        }
        &'pi-context;history;help;help'= {
        }
        &'pi-context;notes'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand write 'Create or overwrite a note; the body comes from --content or stdin'
            cand edit 'Replace exact text in a note''s body, relabel its origin, or crumple / smooth it'
            cand move 'Move a note to another address, atomically'
            cand read 'Read a window of a note''s body as a READ WINDOW; follow `next_offset_chars` for more'
            cand list 'List notes, most recently updated first'
            cand search 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
            cand log 'Show the notes history: the commits that changed a note, newest first'
            cand diff 'Compare a note with a past version of it'
            cand restore 'Put back a note as it was at a past commit, as a new change: history is never rewritten'
            cand sync 'Exchange the notes with a git remote: fetch, merge, push'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;notes;write'= {
            cand -c 'The whole body; without it, the body is read from stdin'
            cand --content 'The whole body; without it, the body is read from stdin'
            cand --origin 'Who the content comes from [default: self for a new note, unchanged on overwrite]'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;edit'= {
            cand --old 'Text to replace; pairs with the --new at the same position (repeatable)'
            cand --new 'The replacement for the --old at the same position (repeatable; may be empty)'
            cand --edits 'Edits as JSON, as Pi''s edit tool takes them: ''[{"oldText":"a","newText":"b"}]'''
            cand --origin 'Relabel who the content comes from'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --replace-all 'Replace every occurrence of each old text instead of requiring exactly one'
            cand --crumple 'Move the note to the wastebasket (keeps the first crumple time)'
            cand --smooth 'Take the note out of the wastebasket'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;move'= {
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --files 'FROM and TO are note files below the notes home (`human/a.md`, `project/<key>/b.md`), as the dreamer names them'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;read'= {
            cand --offset 'Start at this code point; negative counts from the end'
            cand --limit 'Code points to read (at most 50000)'
            cand --max-bytes 'The window''s budget in UTF-8 bytes, as for a tool result'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;list'= {
            cand -p 'Only addresses matching this glob (`*`, `**`, `?`), e.g. ''@project/**'' or ''**/MAP.md'''
            cand --pattern 'Only addresses matching this glob (`*`, `**`, `?`), e.g. ''@project/**'' or ''**/MAP.md'''
            cand -n 'At most this many notes'
            cand --limit 'At most this many notes'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --wastebasket 'List only crumpled notes'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;search'= {
            cand -p 'Only addresses matching this glob (`*`, `**`, `?`)'
            cand --pattern 'Only addresses matching this glob (`*`, `**`, `?`)'
            cand -n 'At most this many notes'
            cand --limit 'At most this many notes'
            cand --max-matches 'At most this many matching lines per note'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --wastebasket 'Search only crumpled notes'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;log'= {
            cand -n 'Show at most this many commits'
            cand --limit 'Show at most this many commits'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;diff'= {
            cand --rev 'The older side: a commit of the notes history'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;restore'= {
            cand --rev 'The commit whose version to put back (an id from `notes log`, HEAD~1, …)'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;sync'= {
            cand --remote 'The remote: a name in the notes home''s repository, or a URL'
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID]'
            cand --project-key 'The project key for @project/ [default: derived from --cwd]'
            cand --cwd 'Derive the project key from this directory''s git checkout [default: the current directory]'
            cand --agent 'The agent whose home is @self/ (slugified) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand --color 'When to color human output'
            cand --json 'Print JSON (the tool protocol''s result object) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;notes;help'= {
            cand write 'Create or overwrite a note; the body comes from --content or stdin'
            cand edit 'Replace exact text in a note''s body, relabel its origin, or crumple / smooth it'
            cand move 'Move a note to another address, atomically'
            cand read 'Read a window of a note''s body as a READ WINDOW; follow `next_offset_chars` for more'
            cand list 'List notes, most recently updated first'
            cand search 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
            cand log 'Show the notes history: the commits that changed a note, newest first'
            cand diff 'Compare a note with a past version of it'
            cand restore 'Put back a note as it was at a past commit, as a new change: history is never rewritten'
            cand sync 'Exchange the notes with a git remote: fetch, merge, push'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;notes;help;write'= {
        }
        &'pi-context;notes;help;edit'= {
        }
        &'pi-context;notes;help;move'= {
        }
        &'pi-context;notes;help;read'= {
        }
        &'pi-context;notes;help;list'= {
        }
        &'pi-context;notes;help;search'= {
        }
        &'pi-context;notes;help;log'= {
        }
        &'pi-context;notes;help;diff'= {
        }
        &'pi-context;notes;help;restore'= {
        }
        &'pi-context;notes;help;sync'= {
        }
        &'pi-context;notes;help;help'= {
        }
        &'pi-context;sessions'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'List sessions, most recently updated first'
            cand search 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches'
            cand index 'Bring the session index up to date (never required: list and search refresh it first)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;sessions;list'= {
            cand --project-key 'The sessions of this project key'
            cand --cwd 'The sessions of the project holding this directory [default: the current directory]'
            cand --since 'Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date'
            cand -n 'At most this many sessions'
            cand --limit 'At most this many sessions'
            cand --sessions-dir 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]'
            cand --claude-dir 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]'
            cand --codex-dir 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]'
            cand --gemini-dir 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]'
            cand --copilot-dir 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]'
            cand --cursor-dir 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]'
            cand --opencode-dir 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]'
            cand --harness 'Only the sessions of this agent (repeatable)'
            cand --color 'When to color human output'
            cand --all 'Every project''s sessions (the current project''s rank higher)'
            cand --json 'Print JSON instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;sessions;search'= {
            cand --project-key 'The sessions of this project key'
            cand --cwd 'The sessions of the project holding this directory [default: the current directory]'
            cand --since 'Only what happened this recently: 30m, 12h, 7d, 4w, or an RFC 3339 date'
            cand -r 'Only events of this role (repeatable)'
            cand --role 'Only events of this role (repeatable)'
            cand --branches '`current`: each session''s default branch; `all`: abandoned branches too'
            cand -n 'At most this many sessions'
            cand --limit 'At most this many sessions'
            cand --hits 'At most this many hits per session'
            cand --max-chars 'Code points of preview per hit'
            cand --sessions-dir 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]'
            cand --claude-dir 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]'
            cand --codex-dir 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]'
            cand --gemini-dir 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]'
            cand --copilot-dir 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]'
            cand --cursor-dir 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]'
            cand --opencode-dir 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]'
            cand --harness 'Only the sessions of this agent (repeatable)'
            cand --color 'When to color human output'
            cand --all 'Every project''s sessions (the current project''s rank higher)'
            cand --json 'Print JSON instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;sessions;index'= {
            cand --sessions-dir 'Look for Pi sessions in this Pi session directory (repeatable); any such flag names the only places looked in [default: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions]'
            cand --claude-dir 'Look for Claude Code sessions in this Claude Code `projects` directory (repeatable); any such flag names the only places looked in [default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects]'
            cand --codex-dir 'Look for Codex sessions in this Codex home (repeatable); any such flag names the only places looked in [default: $CODEX_HOME, else ~/.codex]'
            cand --gemini-dir 'Look for Gemini CLI sessions in this Gemini CLI directory (`~/.gemini`) (repeatable); any such flag names the only places looked in [default: $GEMINI_CLI_HOME/.gemini, else ~/.gemini]'
            cand --copilot-dir 'Look for GitHub Copilot CLI sessions in this GitHub Copilot CLI home (repeatable); any such flag names the only places looked in [default: $COPILOT_HOME, else ~/.copilot]'
            cand --cursor-dir 'Look for Cursor sessions in this Cursor home (repeatable); any such flag names the only places looked in [default: $CURSOR_CONFIG_DIR, else ~/.cursor]'
            cand --opencode-dir 'Look for OpenCode sessions in this OpenCode data directory (`~/.local/share/opencode`) or database file (repeatable); any such flag names the only places looked in [default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode]'
            cand --harness 'Only the sessions of this agent (repeatable)'
            cand --color 'When to color human output'
            cand --rebuild 'Start from an empty index'
            cand --json 'Print JSON instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;sessions;help'= {
            cand list 'List sessions, most recently updated first'
            cand search 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches'
            cand index 'Bring the session index up to date (never required: list and search refresh it first)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;sessions;help;list'= {
        }
        &'pi-context;sessions;help;search'= {
        }
        &'pi-context;sessions;help;index'= {
        }
        &'pi-context;sessions;help;help'= {
        }
        &'pi-context;dream'= {
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --min-hours 'Skip unless this many hours passed since the last run'
            cand --min-sessions 'Skip unless this many sessions changed notes since the last run'
            cand --dreamer 'The dreamer model pattern [default: settings `pi-context.dreamer`, else Pi''s default]'
            cand --agent 'The dreamer''s agent name (its writable home is agents/<name>/) [env: PI_NOTES_AGENT] [default: anonymous]'
            cand --purge-after 'Empty the wastebasket: remove notes crumpled longer ago than this (`30d`, `12h`, `4w`, `0`)'
            cand --playbook 'A playbook file to use instead of the built-in one'
            cand --pi 'The `pi` executable [env: PI_CONTEXT_PI] [default: `pi` on PATH]'
            cand --color 'When to color human output'
            cand --force 'Run even when the time or material gate says no (never bypasses the lock)'
            cand --dry-run 'Evaluate the gates and the lock, print the plan, change nothing'
            cand --print-playbook 'Print the playbook (the built-in one, or --playbook) and exit'
            cand --json 'Print one JSON object'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand doctor 'Check the notes store without changing it (exit 0 clean, 1 issues found)'
            cand undo 'Revert one dream''s changes as a new commit (exit 0 undone, 1 refused, 75 locked)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;dream;doctor'= {
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --color 'When to color human output'
            cand --json 'Print one JSON object'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;dream;undo'= {
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --color 'When to color human output'
            cand --force 'Undo even notes changed after the dream, keeping both versions visibly'
            cand --json 'Print one JSON object'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;dream;help'= {
            cand doctor 'Check the notes store without changing it (exit 0 clean, 1 issues found)'
            cand undo 'Revert one dream''s changes as a new commit (exit 0 undone, 1 refused, 75 locked)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;dream;help;doctor'= {
        }
        &'pi-context;dream;help;undo'= {
        }
        &'pi-context;dream;help;help'= {
        }
        &'pi-context;mcp'= {
            cand --notes-home 'The notes home [env: PI_NOTES_HOME] [default: ~/.agents/notes]'
            cand --session-id 'The session whose notes bare addresses name [env: PI_CONTEXT_SESSION_ID] [default: a new id each start, printed on stderr]'
            cand --cwd 'The project''s directory, for @project/ and sessions'' default scope [default: the current directory]'
            cand --agent 'The agent whose home is @self/ and who signs the notes commits (slugified) [default: the client''s name]'
            cand --model 'The model whose home is @model/; `provider/id` uses `id`, slugified [env: PI_CONTEXT_MODEL] [default: default]'
            cand -s 'The Pi session history_* tools read when no session_id is given: a session file, or a session id or unique prefix of at least 8 characters'
            cand --session 'The Pi session history_* tools read when no session_id is given: a session file, or a session id or unique prefix of at least 8 characters'
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;hook'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;setup'= {
            cand --color 'When to color human output'
            cand --dry-run 'Show what would change, as a diff, and change nothing'
            cand --remove 'Take out exactly what a setup adds (the user''s own entries stay)'
            cand --status 'Show what is installed, whether the binary the hooks name is there and is this version, and how each hook last ran'
            cand --json 'With --status: print JSON'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;stats'= {
            cand --since 'Only sessions updated this recently: 30m, 12h, 7d, 4w or an RFC 3339 date; `all` for every session'
            cand --color 'When to color human output'
            cand --json 'Print JSON'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;boot'= {
            cand --color 'When to color human output'
            cand --json 'Print {"text","window_id","previous_window_id","reason","homes_unavailable"} instead of the text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;checkpoint'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand show 'Print the checkpoint that applies on a session''s branch (exit 1 when it has none)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;checkpoint;show'= {
            cand -s 'The Pi session JSONL file, or a session id or unique prefix of at least 8 characters found under Pi''s session dirs [default: PI_CONTEXT_SESSION_ID, else the most recently updated session of the current project]'
            cand --session 'The Pi session JSONL file, or a session id or unique prefix of at least 8 characters found under Pi''s session dirs [default: PI_CONTEXT_SESSION_ID, else the most recently updated session of the current project]'
            cand --leaf 'The entry id that ends the branch, or `none` for an empty branch [default: the last entry]'
            cand --color 'When to color human output'
            cand --json 'Print JSON instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;checkpoint;help'= {
            cand show 'Print the checkpoint that applies on a session''s branch (exit 1 when it has none)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;checkpoint;help;show'= {
        }
        &'pi-context;checkpoint;help;help'= {
        }
        &'pi-context;tool'= {
            cand --color 'When to color human output'
            cand --schemas 'Print the names, descriptions and JSON Schemas of every tool'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;completions'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;man'= {
            cand --color 'When to color human output'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pi-context;help'= {
            cand history 'Read a session of any agent pi-context reads (Pi, Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, Cursor, OpenCode): context windows, events, full text, search'
            cand notes 'Read and write the five-home markdown notes store'
            cand sessions 'Find and search every past session of Pi, Claude Code and Codex: list, ranked search, index'
            cand dream 'Consolidate the notes store with a dreamer agent, under a lock and a git audit trail'
            cand mcp 'Serve the notes, sessions and history tools to any MCP client over stdio'
            cand hook 'Answer an agent''s hook: the boot, the recall hint, the way back after a compaction (run by the hooks `pi-context setup` installs; reads the hook''s JSON on stdin)'
            cand setup 'Install pi-context into an agent: its MCP server and the hooks that push the boot, the recall hint and the way back after a compaction (docs/agents.md)'
            cand stats 'How the memory was used, per agent: sessions, boot blocks and hints pushed, hints followed, bytes pushed, pi-context tool calls (read from the transcripts)'
            cand boot 'Render the boot block for a fresh context window from a JSON request on stdin'
            cand checkpoint 'The task-state checkpoint of a Pi session''s branch'
            cand tool 'Answer one Pi tool call: a JSON request on stdin, a JSON result on stdout'
            cand completions 'Print shell completions'
            cand man 'Print the man page (roff); e.g. `pi-context man > ~/.local/share/man/man1/pi-context.1`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-context;help;history'= {
            cand windows 'List the context windows of the current branch, oldest first'
            cand list 'List events, newest page first; without --role, the conversation view folds tool and context events between user and assistant rows'
            cand read 'Read an event''s full text as a READ WINDOW; follow `next_offset_chars` for more'
            cand search 'Search event text for literal strings (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
        }
        &'pi-context;help;history;windows'= {
        }
        &'pi-context;help;history;list'= {
        }
        &'pi-context;help;history;read'= {
        }
        &'pi-context;help;history;search'= {
        }
        &'pi-context;help;notes'= {
            cand write 'Create or overwrite a note; the body comes from --content or stdin'
            cand edit 'Replace exact text in a note''s body, relabel its origin, or crumple / smooth it'
            cand move 'Move a note to another address, atomically'
            cand read 'Read a window of a note''s body as a READ WINDOW; follow `next_offset_chars` for more'
            cand list 'List notes, most recently updated first'
            cand search 'Search note bodies for literal text (case-insensitive; several queries are OR-ed). Exits 1 when nothing matches'
            cand log 'Show the notes history: the commits that changed a note, newest first'
            cand diff 'Compare a note with a past version of it'
            cand restore 'Put back a note as it was at a past commit, as a new change: history is never rewritten'
            cand sync 'Exchange the notes with a git remote: fetch, merge, push'
        }
        &'pi-context;help;notes;write'= {
        }
        &'pi-context;help;notes;edit'= {
        }
        &'pi-context;help;notes;move'= {
        }
        &'pi-context;help;notes;read'= {
        }
        &'pi-context;help;notes;list'= {
        }
        &'pi-context;help;notes;search'= {
        }
        &'pi-context;help;notes;log'= {
        }
        &'pi-context;help;notes;diff'= {
        }
        &'pi-context;help;notes;restore'= {
        }
        &'pi-context;help;notes;sync'= {
        }
        &'pi-context;help;sessions'= {
            cand list 'List sessions, most recently updated first'
            cand search 'Search every past session by words; "quoted text" is a phrase, several QUERY arguments are alternatives (OR). Exits 1 when nothing matches'
            cand index 'Bring the session index up to date (never required: list and search refresh it first)'
        }
        &'pi-context;help;sessions;list'= {
        }
        &'pi-context;help;sessions;search'= {
        }
        &'pi-context;help;sessions;index'= {
        }
        &'pi-context;help;dream'= {
            cand doctor 'Check the notes store without changing it (exit 0 clean, 1 issues found)'
            cand undo 'Revert one dream''s changes as a new commit (exit 0 undone, 1 refused, 75 locked)'
        }
        &'pi-context;help;dream;doctor'= {
        }
        &'pi-context;help;dream;undo'= {
        }
        &'pi-context;help;mcp'= {
        }
        &'pi-context;help;hook'= {
        }
        &'pi-context;help;setup'= {
        }
        &'pi-context;help;stats'= {
        }
        &'pi-context;help;boot'= {
        }
        &'pi-context;help;checkpoint'= {
            cand show 'Print the checkpoint that applies on a session''s branch (exit 1 when it has none)'
        }
        &'pi-context;help;checkpoint;show'= {
        }
        &'pi-context;help;tool'= {
        }
        &'pi-context;help;completions'= {
        }
        &'pi-context;help;man'= {
        }
        &'pi-context;help;help'= {
        }
    ]
    $completions[$command]
}
