#!/usr/bin/env python3
"""Create a synthetic pi-context notes home with N markdown notes (default 10,000, ~50 MB).

Layout (the five homes, with nested folders):

    <home>/human/<path>.md
    <home>/project/<name>-<8hex>/<path>.md
    <home>/agents/<slug>/<path>.md
    <home>/models/<slug>/<path>.md
    <home>/pi/session/<session id>/<path>.md

Each note is frontmatter (`origin`, `createdAt`, `updatedAt`, `lastAccessed`, `accessCount`,
sometimes `crumpledAt`, `project` on session notes, rarely an unknown key) then a markdown body.
Two needle words are planted in bodies; the manifest says how many files and lines contain each
(`rg -i -F -c WORD HOME` prints one `path:count` per matching file), and the same for a word that
is never written (`none`) and for a word of the vocabulary found on most lines (`frequent`).
Without --one-identity the manifest also counts what the first project, agent, model and session
see together (`visible`: their five home directories, files, needles), for a search of one
identity side by side with rg over the same directories.

Same --seed, same files. Python 3.9+, standard library only.

    python3 scripts/gen-notes.py --out /tmp/notes-home [--count 10000] [--size-mb 50] [--manifest m.json]
"""
import argparse
import datetime as dt
import hashlib
import json
import os
import random
import sys
import time

RARE_NEEDLE = "quetzalcoatl"
COMMON_NEEDLE = "kestrel"
ABSENT_WORD = "zyzzogeton"    # never written: a search with no hit
FREQUENT_WORD = "the"         # in the vocabulary: most body lines hold it (as a word or inside one)

VOCAB = """
the a of to in and or for with on by from is are be this that it not but if then so we you will
should must need use call function struct trait module crate type value result error parse read
write file path line offset index seq window history session entry branch leaf tree list search
query match page cursor budget limit note notes home store lock rename fsync test fixture bench
memory cache build release flag option command output json schema field key string buffer reader
writer thread process config default compaction summary marker boot reset context token model
provider agent tool event role preview unicode decision reason because later always never prefer
avoid remember convention gotcha workaround bug fix regression deadline owner review
""".split()

UNICODE_SNIPPETS = [
    "日本語のメモ", "中文笔记", "한국어 메모", "👨‍👩‍👧‍👦 🦀 👍🏽", "עברית ومرحبا",
    "cafe\u0301 Z\u0335a\u0336l\u0334g\u0337o", "İstanbul ıi", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠜎", "Straße",
]

TOPICS = ["design", "decisions", "bugs", "todo", "people", "api", "history", "notes", "dream",
          "release", "ci", "perf", "unicode", "extension", "testing", "ideas", "meetings", "glossary"]

CODE = [
    "fn project(entries: &[Entry]) -> Vec<Event> {", "    let leaf = branch.last()?;", "}",
    "pi-context history search --session s.jsonl --json needle",
    "const budget = 32 * 1024;", "    assert_eq!(seq, 42);", "cargo test --test notes",
]


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d+00:00" % (t.microsecond // 1000)


def project_key(name):
    return "%s-%s" % (name, hashlib.sha1(("/home/dev/src/" + name).encode()).hexdigest()[:8])


class NotesGenerator:
    def __init__(self, args):
        self.a = args
        self.r = random.Random(args.seed)
        self.avg_bytes = args.size_mb * 1024 * 1024 / args.count
        self.projects = [project_key(n) for n in ("pi-context", "website", "infra", "dotfiles")]
        self.agents = ["anonymous", "reviewer", "dreamer"]
        self.models = ["claude-sonnet-4-5", "gpt-5", "gemini-2-5-pro"]
        self.sessions = ["%08x-%04x-4%03x-8%03x-%012x" % (self.r.getrandbits(32), self.r.getrandbits(16),
                                                         self.r.getrandbits(12), self.r.getrandbits(12),
                                                         self.r.getrandbits(48)) for _ in range(args.sessions)]
        if args.one_identity:
            # Every note in a home one identity sees, so `notes search` and `rg` read the same files.
            self.projects, self.agents = self.projects[:1], self.agents[:1]
            self.models, self.sessions = self.models[:1], self.sessions[:1]
        self.used = set()
        self.stats = {"files": 0, "bytes": 0, "crumpled": 0, "homes": {}}
        words = (RARE_NEEDLE, COMMON_NEEDLE, ABSENT_WORD, FREQUENT_WORD)
        self.needle_files = dict.fromkeys(words, 0)
        self.needle_lines = dict.fromkeys(words, 0)
        # The five homes of the first identity (project, agent, model, session), as directories.
        self.visible_dirs = ["pi/session/" + self.sessions[0], "project/" + self.projects[0], "human",
                             "agents/" + self.agents[0], "models/" + self.models[0]]
        self.visible = {"files": 0, "bytes": 0, "needle_files": dict.fromkeys(words, 0),
                        "needle_lines": dict.fromkeys(words, 0)}
        self.rare_every = max(1, round(1 / args.rare_rate)) if args.rare_rate > 0 else 0

    # ------------------------------------------------------------------ where
    def home_dir(self):
        """Pick a home; returns (label, relative directory, project key for session notes)."""
        x = self.r.random()
        if x < 0.10:
            return "human", "human", None
        if x < 0.40:
            key = self.r.choice(self.projects)
            return "project", "project/" + key, None
        if x < 0.60:
            return "agents", "agents/" + self.r.choice(self.agents), None
        if x < 0.75:
            return "models", "models/" + self.r.choice(self.models), None
        return "session", "pi/session/" + self.r.choice(self.sessions), self.r.choice(self.projects)

    def note_path(self, home):
        while True:
            depth = self.r.choice((0, 1, 1, 2, 2, 3))
            folders = self.r.sample(TOPICS, depth)
            name = "%s-%s-%04d.md" % (self.r.choice(TOPICS), self.r.choice(VOCAB), self.r.randrange(10000))
            rel = "/".join([home] + folders + [name])
            if rel not in self.used:
                self.used.add(rel)
                return rel

    # ------------------------------------------------------------------ what
    def frontmatter(self, index, session_project):
        created = dt.datetime(2026, 1, 1, 10, 0, 0, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=index * 7)
        updated = created + dt.timedelta(seconds=self.r.randint(0, 30 * 86400), milliseconds=self.r.randint(0, 999))
        accessed = updated + dt.timedelta(seconds=self.r.randint(0, 10 * 86400))
        origin = self.r.choice(("self",) * 7 + ("user", "user", "external"))
        lines = ["origin: " + origin, "createdAt: " + iso(created), "updatedAt: " + iso(updated),
                 "lastAccessed: " + iso(accessed), "accessCount: %d" % self.r.randint(0, 40)]
        if self.r.random() < self.a.crumpled_rate:
            lines.append("crumpledAt: " + iso(accessed))
            self.stats["crumpled"] += 1
        if session_project:
            lines.append("project: " + session_project)
        if self.r.random() < 0.02:
            lines.append("tags: [\"legacy\", \"imported\"]")
        return "---\n" + "\n".join(lines) + "\n---\n\n"

    def sentence(self):
        words = self.r.choices(VOCAB, k=self.r.randint(6, 16))
        words[0] = words[0].capitalize()
        return " ".join(words) + "."

    def block(self):
        x = self.r.random()
        if x < 0.15:
            return "## " + self.sentence()[:-1]
        if x < 0.35:
            return "\n".join("- " + self.sentence() for _ in range(self.r.randint(2, 6)))
        if x < 0.42:
            return "```\n" + "\n".join(self.r.choices(CODE, k=self.r.randint(2, 6))) + "\n```"
        if x < 0.50:
            return "See `@project/%s/%s.md`. " % (self.r.choice(TOPICS), self.r.choice(TOPICS)) + self.sentence()
        text = " ".join(self.sentence() for _ in range(self.r.randint(2, 7)))
        if self.r.random() < 0.1:
            text += " " + self.r.choice(UNICODE_SNIPPETS)
        return text

    def body(self, index):
        target = self.avg_bytes * self.r.uniform(0.15, 1.85) - 450  # frontmatter and overshoot
        title = "# " + self.sentence()[:-1]
        blocks, size = [title], len(title)
        while size < target:
            b = self.block()
            blocks.append(b)
            size += len(b.encode()) + 2
        if self.rare_every and index % self.rare_every == self.rare_every // 2:
            self.insert_line(blocks, "Remember the %s incident: %s" % (self.case(RARE_NEEDLE), self.sentence()))
        if self.r.random() < self.a.common_rate:
            for _ in range(self.r.randint(1, 4)):
                self.insert_line(blocks, "%s: %s" % (self.case(COMMON_NEEDLE), self.sentence()))
        return "\n\n".join(blocks) + "\n"

    def case(self, word):
        return self.r.choice((word, word.capitalize(), word.upper()))

    def insert_line(self, blocks, line):
        blocks.insert(self.r.randint(1, len(blocks)), line)

    # ------------------------------------------------------------------ driver
    def count_needles(self, body, visible):
        low = body.lower().split("\n")
        for word in self.needle_lines:
            n = sum(1 for line in low if word in line)
            if n:
                self.needle_files[word] += 1
                self.needle_lines[word] += n
                if visible:
                    self.visible["needle_files"][word] += 1
                    self.visible["needle_lines"][word] += n

    def write_note(self, index):
        label, home, session_project = self.home_dir()
        rel = self.note_path(home)
        body = self.body(index)
        visible = home in self.visible_dirs
        self.count_needles(body, visible)
        data = (self.frontmatter(index, session_project) + body).encode("utf-8")
        if visible:
            self.visible["files"] += 1
            self.visible["bytes"] += len(data)
        path = os.path.join(self.a.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        self.stats["files"] += 1
        self.stats["bytes"] += len(data)
        self.stats["homes"][label] = self.stats["homes"].get(label, 0) + 1

    def run(self):
        for i in range(self.a.count):
            self.write_note(i)
        return {
            "generator": "scripts/gen-notes.py",
            "seed": self.a.seed,
            "home": os.path.abspath(self.a.out),
            "files": self.stats["files"],
            "bytes": self.stats["bytes"],
            "crumpled": self.stats["crumpled"],
            "homes": dict(sorted(self.stats["homes"].items())),
            "project_keys": self.projects,
            "agents": self.agents,
            "models": self.models,
            "sessions": self.sessions,
            "needles": {role: {"word": w, "files": self.needle_files[w], "lines": self.needle_lines[w]}
                        for role, w in self.roles()},
            "visible": {
                "dirs": self.visible_dirs,
                "files": self.visible["files"],
                "bytes": self.visible["bytes"],
                "needles": {role: {"word": w, "files": self.visible["needle_files"][w],
                                   "lines": self.visible["needle_lines"][w]} for role, w in self.roles()},
            },
        }

    @staticmethod
    def roles():
        return (("rare", RARE_NEEDLE), ("common", COMMON_NEEDLE), ("none", ABSENT_WORD),
                ("frequent", FREQUENT_WORD))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="the notes home to create (must not exist or be empty)")
    p.add_argument("--count", type=int, default=10_000, help="number of notes (default 10000)")
    p.add_argument("--size-mb", type=float, default=50, help="approximate total size (default 50)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--manifest", help="also write a JSON manifest (counts, needles)")
    p.add_argument("--rare-rate", type=float, default=0.005, help=f"share of notes with {RARE_NEEDLE!r}")
    p.add_argument("--common-rate", type=float, default=0.2, help=f"share of notes with {COMMON_NEEDLE!r}")
    p.add_argument("--crumpled-rate", type=float, default=0.01)
    p.add_argument("--sessions", type=int, default=40,
                   help="number of session homes without --one-identity (default 40)")
    p.add_argument("--one-identity", action="store_true",
                   help="use one project, agent, model and session, so one identity sees every note")
    args = p.parse_args(argv)
    if args.count < 1:
        p.error("--count must be at least 1")
    if args.sessions < 1:
        p.error("--sessions must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    if os.path.exists(args.out) and (not os.path.isdir(args.out) or os.listdir(args.out)):
        sys.exit("gen-notes: %s exists and is not an empty directory" % args.out)
    started = time.monotonic()
    manifest = NotesGenerator(args).run()
    if args.manifest:
        with open(args.manifest, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print("wrote %s: %d notes, %.1f MB, %.1fs" % (args.out, manifest["files"], manifest["bytes"] / 1048576,
                                                 time.monotonic() - started), file=sys.stderr)


if __name__ == "__main__":
    main()
