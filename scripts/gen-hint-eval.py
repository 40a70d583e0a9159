#!/usr/bin/env python3
"""Write the labelled evaluation set of the recall hint (`sessions_hint`, docs/recall.md).

    python3 scripts/gen-hint-eval.py --out DIR [--seed 7] [--facts 80] [--filler 160]

DIR/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl holds Pi sessions (version 3) of two projects,
DIR/projects/<name> (created, so each is a real cwd). Among realistic filler sessions that share
the common words of coding work (and a few marathon sessions of several MB), each planted session
records earlier work: a distinct fact (a bug fixed in a named file, a decision about a library, a
config value, a procedure), said by the user and the assistant in their own words, amid filler
turns. DIR/labels.json lists the prompts:

  {"now": RFC 3339, "projects": {name: cwd}, "prompts": [{"id", "split": "tune"|"heldout",
   "kind": "continuing"|"unrelated", "class", "project", "prompt", "session_id"|null,
   "window"}]}

Continuing prompts paraphrase a planted fact (other word order, some words replaced by
synonyms, never the planted sentence); `session_id` is the session that holds it. Unrelated
prompts expect no hint: other topics in the corpus's common words, prompts that share one of
the corpus's words, continuations of facts planted in the *other* project, and other tasks in
the area (billing, media…) of a planted fact. Facts (and so
their prompts) are split half for tuning, half held out; unrelated prompts alternate. `window`
groups prompts asked in one context window (a fact's prompts and unrelated ones, in order), so
the bench can count repeats. Same --seed, same bytes. Python 3.9+, standard library only.
"""
import argparse
import datetime as dt
import json
import os
import random
import subprocess
import uuid

NOW = dt.datetime(2026, 11, 20, 12, 0, 0, tzinfo=dt.timezone.utc)
PROJECTS = {"shopfront": "shopfront", "ledger": "ledger"}

# -- vocabulary --------------------------------------------------------------------------------

COMMON = """
the a an of to in and or for with on by from at as is are was be this that it its not but if then
so we you they will should could would can need use using call function method type value result
error errors return file files path line lines test tests build release debug flag option command
output input config settings default check fix fixed change changed update bug issue problem work
code module struct field fields string list map key keys cache request response server client
handler route page view component state data query table column row index log logs warning retry
timeout run runs running failing fails failed passes pass now again still just also first last
add write support set up docs loads faster update remind time why reason pick over instead crate
regression back morning production changed schema json final tail api jobs storage files seconds
""".split()

# Filler topics: present in the corpus, never in a fact, never in an unrelated prompt's topic.
FILLER_TOPICS = """
navbar footer breadcrumb pagination checkout cart wishlist coupon newsletter sitemap robots
favicon spinner tooltip modal carousel accordion dropdown sidebar banner webhook healthcheck
dashboard analytics onboarding signup password reset session cookie middleware cors csrf
migration seed fixture linter formatter prettier eslint clippy rustfmt dockerfile makefile
readme changelog license workflow pipeline artifact coverage snapshot mock stub benchmark
profiling flamegraph allocator mutex channel semaphore backpressure batching pooling
""".split()

FILLER_LIBS = ["serde", "tokio", "clap", "anyhow", "tracing", "react", "vite", "jest", "pytest",
               "express", "lodash", "axios", "zod", "prisma", "redis", "postgres", "nginx"]

# Fact material: each fact takes its own component, its own symptom and so on.
COMPONENTS = [
    ("thumbnailer", "media"), ("invoicer", "billing"), ("geocoder", "maps"), ("transcoder", "media"),
    ("deduplicator", "catalog"), ("tokenizer", "search"), ("scheduler", "jobs"), ("throttler", "api"),
    ("reconciler", "ledger"), ("notifier", "alerts"), ("importer", "catalog"), ("exporter", "reports"),
    ("sanitizer", "forms"), ("watermarker", "media"), ("compressor", "storage"), ("uploader", "storage"),
    ("indexer", "search"), ("renderer", "emails"), ("validator", "forms"), ("aggregator", "reports"),
    ("translator", "i18n"), ("resizer", "media"), ("encryptor", "vault"), ("archiver", "storage"),
    ("dispatcher", "jobs"), ("classifier", "catalog"), ("estimator", "shipping"), ("allocator", "warehouse"),
    ("pricer", "catalog"), ("refunder", "billing"), ("subscriber", "alerts"), ("matcher", "search"),
    ("splitter", "billing"), ("merger", "catalog"), ("tagger", "catalog"), ("router", "shipping"),
    ("snapshotter", "vault"), ("replayer", "events"), ("rotator", "vault"), ("summarizer", "reports"),
    ("stitcher", "media"), ("chunker", "storage"), ("ranker", "search"), ("parser", "imports"),
    ("normalizer", "imports"), ("batcher", "events"), ("poller", "events"), ("sweeper", "jobs"),
    ("forecaster", "warehouse"), ("labeler", "shipping"), ("slugger", "catalog"), ("mailer", "emails"),
    ("digester", "emails"), ("counter", "analytics"), ("sampler", "analytics"), ("bucketer", "analytics"),
    ("hasher", "vault"), ("signer", "vault"), ("verifier", "vault"), ("prefetcher", "storage"),
    ("debouncer", "forms"), ("paginator", "api"), ("serializer", "api"), ("proxier", "api"),
    ("migrator", "imports"), ("cropper", "media"), ("packer", "warehouse"), ("picker", "warehouse"),
    ("taxer", "billing"), ("discounter", "billing"), ("speller", "search"), ("stemmer", "search"),
    ("limiter", "api"), ("janitor", "jobs"), ("watcher", "events"), ("collector", "analytics"),
    ("formatter2", "reports"), ("planner", "shipping"), ("auditor", "ledger"), ("settler", "ledger"),
]

SYMPTOMS = [
    ("deadlocked", "hung", "froze"), ("leaked memory", "kept growing", "ballooned"),
    ("dropped the last record", "lost the final row", "skipped the tail"),
    ("double-counted", "counted twice", "duplicated totals"), ("crashed on empty input", "panicked with nothing", "blew up on blank data"),
    ("drifted by one hour", "was an hour off", "showed the wrong hour"), ("returned stale results", "served old data", "showed outdated entries"),
    ("truncated unicode names", "cut accented names", "mangled non-ascii names"), ("timed out under load", "stalled when busy", "hit the deadline at peak"),
    ("rounded cents wrong", "lost a cent", "got pennies wrong"), ("ignored the retry budget", "retried forever", "never stopped retrying"),
    ("wrote corrupt gzip", "produced broken archives", "emitted unreadable gz files"),
    ("sorted descending", "put newest last", "reversed the order"), ("rejected valid postcodes", "refused good zip codes", "failed real postal codes"),
    ("sent duplicate emails", "mailed people twice", "emailed everyone two times"),
]

CAUSES = [
    "the lock was taken twice on the same thread", "a buffer was never cleared between batches",
    "the loop bound used < instead of <=", "the cache key ignored the locale",
    "the timestamp was parsed as local time instead of UTC", "the byte length was used as a character count",
    "the default pool size was 2", "a float was used for money", "the backoff counter was never reset",
    "the flush happened before the final write", "the comparator was inverted",
    "the regex anchored only the start", "the consumer acknowledged before processing",
]

LIBS = [
    ("rust_decimal", "f64 arithmetic", "exact decimal money"), ("ureq", "reqwest", "no async runtime in the cli"),
    ("rusqlite", "sled", "a single file we can inspect"), ("chrono-tz", "hand written offsets", "daylight saving rules"),
    ("image", "imagemagick", "no system dependency"), ("zstd", "gzip", "faster decompression"),
    ("argon2", "bcrypt", "memory hardness"), ("tantivy", "meilisearch", "an embedded index"),
    ("polars", "pandas", "lazy frames and speed"), ("minijinja", "handlebars", "jinja templates the designers know"),
    ("lettre", "a smtp subprocess", "pooled connections"), ("moka", "a hashmap with a mutex", "eviction by size"),
    ("governor", "a token bucket by hand", "per key quotas"), ("backon", "a retry loop", "jittered backoff"),
    ("quick-xml", "xml-rs", "streaming parsing"), ("csv-async", "the csv crate", "async readers"),
    ("fluent", "gettext", "plural rules"), ("ring", "openssl", "static linking"),
    ("insta", "hand written asserts", "snapshot review"), ("proptest", "quickcheck", "shrinking strategies"),
]

SETTINGS = [
    ("max_batch_size", "1500"), ("pool_timeout_ms", "8500"), ("retry_ceiling", "7"), ("shard_count", "24"),
    ("cache_ttl_seconds", "5400"), ("worker_threads", "12"), ("chunk_bytes", "262144"), ("grace_period_s", "95"),
    ("queue_depth", "4096"), ("sample_rate", "0.035"), ("max_upload_mb", "375"), ("lease_seconds", "45"),
]

SYNONYMS = {
    "bug": ["problem", "glitch", "fault"], "fixed": ["sorted out", "patched", "repaired"],
    "decided": ["settled on", "chose", "went with"], "because": ["since", "given", "as"],
    "value": ["number", "setting", "knob"], "slow": ["sluggish"], "crash": ["failure"],
}

NOVEL_TOPICS = """
kubernetes helm terraform ansible graphql websocket oauth saml ldap kafka rabbitmq grpc protobuf
webassembly wasm tailwind bootstrap svelte angular flutter kotlin swift android ios bluetooth
opengl vulkan shader physics audio midi synth calendar chess sudoku blockchain mining weather
telescope recipe garden fitness
""".split()


class Writer:
    """One Pi session file: header, then entries chained by id/parentId."""

    def __init__(self, rnd, path, session_id, cwd, start):
        self.r = rnd
        self.f = open(path, "w", encoding="utf-8")
        self.t = start
        self.leaf = None
        self.f.write(json.dumps({"type": "session", "version": 3, "id": session_id,
                                 "timestamp": self.iso(), "cwd": cwd}, ensure_ascii=False) + "\n")

    def iso(self):
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (self.t.microsecond // 1000)

    def entry(self, kind, fields):
        self.t += dt.timedelta(seconds=self.r.uniform(2, 90))
        eid = "%08x" % self.r.getrandbits(32)
        obj = {"type": kind, "id": eid, "parentId": self.leaf, "timestamp": self.iso()}
        obj.update(fields)
        self.f.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.leaf = eid
        return eid

    def message(self, msg):
        msg["timestamp"] = int(self.t.timestamp() * 1000)
        return self.entry("message", {"message": msg})

    def user(self, text):
        self.message({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(self, text, calls=()):
        content = [{"type": "text", "text": text}] + [
            {"type": "toolCall", "id": "call_%06x" % self.r.getrandbits(24), "name": n, "arguments": a}
            for n, a in calls]
        self.message({"role": "assistant", "content": content, "api": "anthropic-messages",
                      "provider": "anthropic", "model": "claude-sonnet-4-5",
                      "stopReason": "toolUse" if calls else "stop"})
        return [b for b in content if b["type"] == "toolCall"]

    def result(self, call, text):
        self.message({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                      "content": [{"type": "text", "text": text}], "isError": False})

    def name(self, text):
        self.entry("session_info", {"name": text})

    def close(self):
        self.f.close()


class Eval:
    def __init__(self, args):
        self.a = args
        self.r = random.Random(args.seed)
        self.root = os.path.abspath(args.out)
        self.sessions_dir = os.path.join(self.root, "agent", "sessions")
        self.cwds = {}
        for name, d in PROJECTS.items():
            cwd = os.path.join(self.root, "projects", d)
            os.makedirs(cwd, exist_ok=True)
            # Each project its own repository: written inside a checkout (target/bench/ of this
            # one), the two would otherwise share the checkout's project key and be one scope.
            subprocess.run(["git", "init", "-q", cwd], check=True)
            self.cwds[name] = cwd

    # -- text --------------------------------------------------------------------------------

    def words(self, n, topics=FILLER_TOPICS):
        out = []
        for _ in range(n):
            pick = self.r.random()
            if pick < 0.75:
                out.append(self.r.choice(COMMON))
            elif pick < 0.93:
                out.append(self.r.choice(topics))
            else:
                out.append(self.r.choice(FILLER_LIBS))
        return out

    def sentence(self, lo=6, hi=16):
        w = self.words(self.r.randint(lo, hi))
        return (" ".join(w)).capitalize() + "."

    def paragraph(self, lo=2, hi=6):
        return " ".join(self.sentence() for _ in range(self.r.randint(lo, hi)))

    def code_output(self, lines):
        paths = ["src/%s/%s.rs" % (self.r.choice(FILLER_TOPICS), self.r.choice(FILLER_TOPICS)) for _ in range(4)]
        return "\n".join("%s:%d: %s" % (self.r.choice(paths), self.r.randint(1, 900), " ".join(self.words(8)))
                         for _ in range(lines))

    # -- sessions ----------------------------------------------------------------------------

    def open_session(self, project, days_ago):
        start = NOW - dt.timedelta(days=days_ago, minutes=self.r.randint(0, 600))
        sid = str(uuid.UUID(int=self.r.getrandbits(128), version=4))
        directory = os.path.join(self.sessions_dir, "--" + self.cwds[project].strip("/").replace("/", "-") + "--")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, start.strftime("%Y-%m-%dT%H-%M-%S-000Z") + "_" + sid + ".jsonl")
        return sid, Writer(self.r, path, sid, self.cwds[project], start)

    def filler_turn(self, w, big=False):
        w.user(self.paragraph(1, 3))
        calls = w.assistant(self.paragraph(1, 4), [("bash", {"command": "cargo test " + self.r.choice(FILLER_TOPICS)})]
                            if self.r.random() < 0.6 else [])
        for call in calls:
            w.result(call, self.code_output(self.r.randint(20, 400) if big else self.r.randint(3, 30)))
        if calls:
            w.assistant(self.paragraph(1, 3))

    def filler_session(self, project, turns, big=False):
        sid, w = self.open_session(project, self.r.uniform(0.5, 120))
        if self.r.random() < 0.5:
            w.name(" ".join(self.r.sample(FILLER_TOPICS, 3)))
        for _ in range(turns):
            self.filler_turn(w, big)
        w.close()
        return sid

    def plant(self, project, fact):
        sid, w = self.open_session(project, self.r.uniform(1, 90))
        before = self.r.randint(2, 12)
        after = self.r.randint(2, 12)
        for _ in range(before):
            self.filler_turn(w)
        w.user(fact["ask"])
        calls = w.assistant(fact["look"], [("read", {"path": fact["file"]})])
        w.result(calls[0], self.code_output(self.r.randint(5, 20)))
        w.assistant(fact["answer"])
        for _ in range(after):
            self.filler_turn(w)
        w.close()
        return sid

    # -- facts and prompts -------------------------------------------------------------------

    def syn(self, word):
        return self.r.choice(SYNONYMS[word]) if word in SYNONYMS and self.r.random() < 0.7 else word

    def make_facts(self, n):
        comps = self.r.sample(COMPONENTS, n)
        libs = self.r.sample(LIBS, len(LIBS))
        facts = []
        for i, (comp, area) in enumerate(comps):
            kind = ("bug", "library", "config", "bug", "procedure")[i % 5]
            file = "src/%s/%s.rs" % (area, comp)
            f = {"kind": kind, "component": comp, "area": area, "file": file}
            if kind == "bug":
                sym = self.r.choice(SYMPTOMS)
                cause = self.r.choice(CAUSES)
                f["ask"] = "The %s in %s %s when the %s job ran overnight. Can you find out why?" % (comp, area, sym[0], area)
                f["look"] = "Let me read %s." % file
                f["answer"] = ("Found it: in %s %s, so the %s %s. I fixed it and added a regression test "
                               "named %s_regression." % (file, cause, comp, sym[0], comp))
                f["prompts"] = [
                    "the %s %s again, what did we change in %s.rs last time?" % (comp, sym[1], comp),
                    "Is the %s regression for %s back? It %s this morning" % (area, comp, sym[2]),
                    "remind me how we %s the %s %s in %s" % (self.syn("fixed"), comp, self.syn("bug"), area),
                ]
            elif kind == "library":
                lib, alt, why = libs.pop() if libs else self.r.choice(LIBS)
                f["lib"] = lib
                f["ask"] = "For the %s in %s, should we use %s or %s?" % (comp, area, lib, alt)
                f["look"] = "Let me check how %s is built first." % file
                f["answer"] = ("We decided on %s instead of %s for the %s, because of %s. "
                               "I noted it in %s." % (lib, alt, comp, why, file))
                f["prompts"] = [
                    "why did we pick %s for the %s again?" % (lib, comp),
                    "%s %s %s: what was the reason we %s it over %s?" % (area, comp, lib, self.syn("decided"), alt),
                    "remind me which crate the %s uses instead of %s" % (comp, alt),
                ]
            elif kind == "config":
                key, value = self.r.choice(SETTINGS)
                value = str(self.r.randint(2, 99) * 10 ** self.r.randint(1, 3) + self.r.randint(1, 9))
                key = "%s_%s" % (comp, key)
                f["ask"] = "What should %s be for the %s in production?" % (key, comp)
                f["look"] = "Reading config/production.toml and %s." % file
                f["answer"] = ("Set %s = %s in config/production.toml: the %s in %s needs it %s "
                               "the upstream limit." % (key, value, comp, area, "because of"))
                f["prompts"] = [
                    "what %s did we give %s in production?" % (self.syn("value"), key),
                    "is %s still %s for the %s?" % (key.replace("_", " "), value, comp),
                    "the %s production config: which %s did we choose and why" % (comp, self.syn("value")),
                ]
            else:
                cmd = "cargo xtask regen-%s --area %s" % (comp, area)
                f["ask"] = "How do I regenerate the %s golden files for %s?" % (comp, area)
                f["look"] = "Looking at xtask and %s." % file
                f["answer"] = ("Run `%s`; it rewrites tests/golden/%s/*.json, then review the diff. "
                               "The %s golden files must be regenerated after every schema change." % (cmd, comp, comp))
                f["prompts"] = [
                    "what was the command to rebuild the %s golden files?" % comp,
                    "I changed the schema, how do I regen the %s goldens in %s" % (comp, area),
                    "the xtask for %s golden json, remind me" % comp,
                ]
            facts.append(f)
        return facts

    def unrelated(self, n, other_facts, mine):
        out = []
        for i in range(n):
            cls = ("novel", "shared-word", "other-project", "near-miss")[i % 4]
            if cls == "novel":
                topic = self.r.sample(NOVEL_TOPICS, 2)
                text = self.r.choice([
                    "add %s support to the %s %s and write a test for it",
                    "can you set up %s with %s for the build and fix the failing check",
                    "the %s request to %s fails with a timeout error, please %s it",
                ])
                text = text % (topic[0], topic[1], self.r.choice(COMMON)) if text.count("%s") == 3 else text % tuple(topic)
                out.append(("novel", text))
            elif cls == "shared-word":
                t = self.r.choice(FILLER_TOPICS)
                text = self.r.choice([
                    "the %s test is failing in the build, can you check the error output",
                    "update the %s component so the page loads faster",
                    "write docs for the %s config option and its default value",
                ]) % t
                out.append(("shared-word", text))
            elif cls == "other-project":
                f = other_facts[(i // 4) % len(other_facts)]
                out.append(("other-project", f["prompts"][self.r.randrange(len(f["prompts"]))]))
            else:
                # The area of a planted fact (shared by a few facts), with another task.
                area = self.r.choice(mine)["area"]
                t = self.r.choice(FILLER_TOPICS)
                text = self.r.choice([
                    "add a %s banner to the %s page",
                    "rename the %s %s setting and update the docs",
                    "the %s screen needs a %s, can you sketch one",
                ]) % ((t, area) if self.r.random() < 0.5 else (area, t))
                out.append(("near-miss", text))
        return out

    def run(self):
        facts = self.make_facts(self.a.facts)
        n_other = max(4, self.a.facts // 8)
        other, mine = facts[:n_other], facts[n_other:]
        for f in other:
            f["session_id"] = self.plant("ledger", f)
            f["project"] = "ledger"
        for f in mine:
            f["session_id"] = self.plant("shopfront", f)
            f["project"] = "shopfront"
        for i in range(self.a.filler):
            project = "shopfront" if i % 4 else "ledger"
            self.filler_session(project, self.r.randint(3, 40))
        for _ in range(self.a.marathons):
            self.filler_session("shopfront", 250, big=True)

        prompts = []
        window = 0
        unrelated = self.unrelated(2 * len(mine), other, mine)
        self.r.shuffle(unrelated)  # every class in both splits
        for i, f in enumerate(mine):
            split = "tune" if i % 2 == 0 else "heldout"
            window += 1
            picks = self.r.sample(range(3), 2)
            seq = [("continuing", "paraphrase", f["prompts"][p], f["session_id"]) for p in picks]
            for at, (cls, text) in ((1, unrelated[2 * i]), (3, unrelated[2 * i + 1])):
                seq.insert(at, ("unrelated", cls, text, None))
            for kind, c, text, sid in seq:
                prompts.append({"id": "p%03d" % len(prompts), "split": split, "kind": kind, "class": c,
                                "project": "shopfront", "prompt": text, "session_id": sid,
                                "window": "w%03d" % window, "fact": f["kind"]})
        labels = {"now": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"), "projects": self.cwds,
                  "sessions_dir": self.sessions_dir, "prompts": prompts}
        with open(os.path.join(self.root, "labels.json"), "w", encoding="utf-8") as f:
            json.dump(labels, f, indent=1, ensure_ascii=False)
        return labels


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--facts", type=int, default=72)
    p.add_argument("--filler", type=int, default=160)
    p.add_argument("--marathons", type=int, default=3)
    args = p.parse_args(argv)
    if args.facts > len(COMPONENTS):
        p.error("at most %d facts" % len(COMPONENTS))
    labels = Eval(args).run()
    kinds = {}
    for q in labels["prompts"]:
        kinds[(q["split"], q["kind"])] = kinds.get((q["split"], q["kind"]), 0) + 1
    print(json.dumps({"prompts": len(labels["prompts"]), "by_split": {"%s/%s" % k: v for k, v in sorted(kinds.items())}}))


if __name__ == "__main__":
    main()
