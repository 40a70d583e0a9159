#!/usr/bin/env python3
"""Write the labelled evaluation set of the recall hint (`sessions_hint`, docs/recall.md): the
HARD set, whose continuing prompts use other words than the earlier session, as people do.

    python3 scripts/gen-hint-eval.py --out DIR [--seed 7] [--facts 72] [--filler 160]
    python3 scripts/gen-hint-eval.py --measure DIR     # word overlap of any set written before

DIR/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl holds Pi sessions (version 3) of two projects,
DIR/projects/<name> (created, each its own git repository, so each is its own project). Among
realistic filler sessions that share the common words of coding work (and a few marathon
sessions of several MB), each planted session records earlier work: a distinct fact (a bug fixed
in a named file, a library chosen over another, a config value, a regeneration command), said by
the user and the assistant (asked, looked up, answered, followed up) amid filler turns. The
filler speaks everyday English beyond the common words of coding work (GENERAL), so a prompt's
ordinary words are known to the index, as in a real history. Other sessions mention the same
components in passing (docs, renames, benchmarks), so a component's name alone does not single
its fact out.
DIR/labels.json lists the prompts:

  {"now": RFC 3339, "projects": {name: cwd}, "sessions_dir", "prompts": [{"id",
   "split": "tune"|"heldout", "kind": "continuing"|"unrelated", "class", "project", "prompt",
   "session_id"|null, "window", "fact"}]}

Continuing prompts (`session_id`: the session that holds the fact) are typed as people type
(lowercase, no punctuation, short, now and then a typo in a common word) and use other words
than the planted session, each class in its own way:
  synonym  the fact restated with synonyms (deadlocked -> hangs / got stuck; fixed -> sorted
           out / patched; golden files -> snapshots) and the component's own name;
  form     other grammatical forms and word order (thumbnailer -> thumbnailing / thumbnails,
           deadlocked -> deadlock, regenerate -> regenerating);
  detail   a detail asked about rather than the fact restated ("what value did we end up with
           for the poller lease time"), the component named one way or another;
  terse    two to five words, often one distinctive word of the fact, often in another form.
Unrelated prompts expect no hint:
  novel          topics the corpus never saw, in its common words;
  shared-word    one filler topic of the corpus;
  common-only    only words the corpus and the planted facts share ("the overnight job failed
                 again", "regenerate the golden files after a schema change");
  same-word      one distinctive word of a planted fact (its component), another task;
  same-word-again  later in the window of each same-word prompt, another task on the same
                 component (two prompts of other work on one component: a hint taking them for a
                 continuation is counted; drawn from a random stream of their own and appended
                 after the other prompts, so the sessions and the 378 prompts before them are
                 byte for byte those of the set without them);
  near-miss      the area of a planted fact (billing, media...), another task;
  other-project  continuations of facts planted in the *other* project (must not cross).
Facts (and so their prompts) alternate between a tuning split and a held-out split, which the
bar must not be tuned on; each split has its own unrelated prompts, every class in turn.
`window` groups the prompts asked in one context window (a fact's three prompts and three
unrelated ones, interleaved).

After writing, the set's word overlap is printed and kept in DIR/overlap.json: per class, the
share of a continuing prompt's content words (the hint's: tokens minus stop words, src/recall/
hint.rs) that occur in its planted fact's own turns, in its whole session, and among the
session's *distinctive* words (in at most 3% of all sessions), exactly and after a crude suffix
fold — the evidence the set is hard (`--measure DIR` gives them for any set, e.g. one the
previous generator wrote). Same --seed, same bytes. Python 3.9+, standard library only.
"""
import argparse
import datetime as dt
import json
import os
import random
import re
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

# The everyday words of coding chat beyond COMMON (people's synonyms among them): a real history
# holds them all, in many sessions, so a prompt's ordinary words are known to the index and
# common in it, never its rarest words. Words of the planted facts are left out (FACT_WORDS).
GENERAL_SOURCE = """
broke broken breaks hangs hung stuck froze frozen locks eats ram growing ballooned loses lost skips
end counts everything twice duplicated totals falls nothing blows blank panics wrong serves old
outdated stuff cuts accented mangles ascii stalls busy slow peak penny pennies tries forever gives
produces spits unreadable gz archives puts newest reversed order refuses good zip codes postal real
mails people messages everyone root cause covers touch actually repair patch patched sorted nightly
looks didnt whats live box special number settle settled land landed chose choose choice made option
rather reasoning library dependency vs ended wrote written alternative folder expected redo redoing
refresh rebuild date tweak model edit outputs around prod setting put different needed section
logging shorter rename move own port delete unused bump version package plan idea quick small big
deploy merge branch commit review refactor cleanup variable loop async await disk network latency
throughput spawn panic unwrap trait impl generic lifetime borrow closure iterator vector array
filter print trace span metric gauge histogram alert wrapper helper util utils script shell bash
env environment docker container image local remote staging prod dev team user users customer
customers account accounts email order orders payment payments product products item items report
summary total number numbers date dates week month year hour minute timezone utc offset locale
text name names title label description message messages entry entries record records row rows
null empty missing invalid valid broken weird odd strange flaky slowdown spike memory cpu usage
screen sketch ratio new smaller crash sort already swap decide flags thread threads high right uses
two shows biggest window many past without theres non fixtures snapshots workers shards job named
ran found finished green built decided moved noted every diff looking reading needs sets keeps never
used size money batches cleared buffer rate float bytes pool returned results start sent happened
length character byte single system speed exact max batch worker queue period processing
""".split()

FILLER_LIBS = ["serde", "tokio", "clap", "anyhow", "tracing", "react", "vite", "jest", "pytest",
               "express", "lodash", "axios", "zod", "prisma", "redis", "postgres", "nginx"]

# Fact material. Each component: its name (as the planted session says it), its area (shared by
# a few facts), and the other forms people call it by (never the name itself).
COMPONENTS = [
    ("thumbnailer", "media", ["thumbnails", "thumbnailing", "thumbnail"]),
    ("invoicer", "billing", ["invoices", "invoicing", "invoice"]),
    ("geocoder", "maps", ["geocoding", "geocode", "geocodes"]),
    ("transcoder", "media", ["transcoding", "transcode", "transcodes"]),
    ("deduplicator", "catalog", ["dedup", "deduplication", "deduplicating"]),
    ("tokenizer", "search", ["tokenizing", "tokens", "tokenization"]),
    ("scheduler", "jobs", ["scheduling", "schedules", "schedule"]),
    ("throttler", "api", ["throttling", "throttle", "throttled"]),
    ("reconciler", "ledger", ["reconciliation", "reconciling", "reconcile"]),
    ("notifier", "alerts", ["notifications", "notify", "notifying"]),
    ("importer", "catalog", ["imports", "importing", "import"]),
    ("exporter", "reports", ["exports", "exporting", "export"]),
    ("sanitizer", "forms", ["sanitizing", "sanitization", "sanitize"]),
    ("watermarker", "media", ["watermarks", "watermarking", "watermark"]),
    ("compressor", "storage", ["compression", "compressing", "compress"]),
    ("uploader", "storage", ["uploads", "uploading", "upload"]),
    ("crawler", "search", ["crawling", "crawls", "crawl"]),
    ("renderer", "emails", ["rendering", "render", "renders"]),
    ("validator", "forms", ["validation", "validating", "validate"]),
    ("aggregator", "reports", ["aggregation", "aggregates", "aggregating"]),
    ("translator", "i18n", ["translations", "translating", "translate"]),
    ("resizer", "media", ["resizing", "resize", "resized"]),
    ("encryptor", "vault", ["encryption", "encrypting", "encrypt"]),
    ("archiver", "storage", ["archiving", "archives", "archive"]),
    ("dispatcher", "jobs", ["dispatching", "dispatch", "dispatches"]),
    ("classifier", "catalog", ["classification", "classifying", "classify"]),
    ("estimator", "shipping", ["estimates", "estimating", "estimate"]),
    ("stocker", "warehouse", ["stocking", "stock", "restocking"]),
    ("pricer", "catalog", ["pricing", "prices", "price"]),
    ("refunder", "billing", ["refunds", "refunding", "refund"]),
    ("subscriber", "alerts", ["subscriptions", "subscribing", "subscribe"]),
    ("matcher", "search", ["matching", "matches", "match"]),
    ("splitter", "billing", ["splitting", "splits", "split"]),
    ("merger", "catalog", ["merging", "merges", "merge"]),
    ("tagger", "catalog", ["tagging", "tags", "tag"]),
    ("courier", "shipping", ["couriers", "couriered", "couriering"]),
    ("sealer", "vault", ["sealing", "seals", "seal"]),
    ("replayer", "events", ["replays", "replaying", "replay"]),
    ("rotator", "vault", ["rotation", "rotating", "rotate"]),
    ("summarizer", "reports", ["summaries", "summarizing", "summary"]),
    ("stitcher", "media", ["stitching", "stitches", "stitch"]),
    ("chunker", "storage", ["chunking", "chunks", "chunk"]),
    ("ranker", "search", ["ranking", "ranks", "rank"]),
    ("parser", "imports", ["parsing", "parse", "parses"]),
    ("normalizer", "imports", ["normalization", "normalizing", "normalize"]),
    ("emitter", "events", ["emitting", "emits", "emit"]),
    ("poller", "events", ["polling", "polls", "poll"]),
    ("sweeper", "jobs", ["sweeping", "sweeps", "sweep"]),
    ("forecaster", "warehouse", ["forecasting", "forecasts", "forecast"]),
    ("labeler", "shipping", ["labels", "labeling", "label"]),
    ("slugger", "catalog", ["slugs", "slugging", "slug"]),
    ("mailer", "emails", ["mailing", "mails", "mail"]),
    ("digester", "emails", ["digests", "digesting", "digest"]),
    ("counter", "analytics", ["counting", "counts", "count"]),
    ("sampler", "analytics", ["sampling", "samples", "sample"]),
    ("bucketer", "analytics", ["buckets", "bucketing", "bucket"]),
    ("hasher", "vault", ["hashing", "hashes", "hash"]),
    ("signer", "vault", ["signing", "signatures", "sign"]),
    ("verifier", "vault", ["verification", "verifying", "verify"]),
    ("prefetcher", "storage", ["prefetching", "prefetch", "prefetches"]),
    ("debouncer", "forms", ["debouncing", "debounce", "debounced"]),
    ("paginator", "api", ["paginating", "paginate", "paginated"]),
    ("serializer", "api", ["serialization", "serializing", "serialize"]),
    ("proxier", "api", ["proxying", "proxy", "proxies"]),
    ("migrator", "imports", ["migrating", "migrate", "migrations"]),
    ("cropper", "media", ["cropping", "crops", "crop"]),
    ("packer", "warehouse", ["packing", "packs", "pack"]),
    ("palletizer", "warehouse", ["pallets", "palletizing", "palletize"]),
    ("taxer", "billing", ["taxes", "taxing", "tax"]),
    ("discounter", "billing", ["discounts", "discounting", "discount"]),
    ("speller", "search", ["spelling", "spellcheck", "spell"]),
    ("stemmer", "search", ["stemming", "stems", "stem"]),
    ("limiter", "api", ["limiting", "limits", "limit"]),
    ("janitor", "jobs", ["janitors", "janitorial", "cleanup"]),
    ("watcher", "events", ["watching", "watches", "watch"]),
    ("collector", "analytics", ["collection", "collecting", "collect"]),
    ("templater", "reports", ["templates", "templating", "template"]),
    ("planner", "shipping", ["planning", "plans", "plan"]),
    ("auditor", "ledger", ["auditing", "audits", "audit"]),
    ("settler", "ledger", ["settlement", "settling", "settle"]),
]

# A symptom: as the planted session says it; in other words (no word of it); in other forms.
SYMPTOMS = [
    ("deadlocked", ["hangs", "got stuck", "froze up", "locks up"], ["deadlock", "deadlocking"]),
    ("leaked memory", ["eats all the ram", "keeps growing", "ballooned"], ["memory leak", "leaking memory"]),
    ("dropped the last record", ["loses the final row", "skips the tail end"],
     ["dropping the last records", "last record dropped"]),
    ("double-counted", ["counts everything twice", "duplicated the totals"], ["double counting", "double counts"]),
    ("crashed on empty input", ["falls over with nothing in it", "blows up on blank data",
                                "panics when theres nothing to do"], ["crashing on empty inputs", "crash with an empty input"]),
    ("drifted by one hour", ["is an hour off", "shows the wrong hour"], ["drifting an hour", "hour drift"]),
    ("returned stale results", ["serves old data", "shows outdated stuff"], ["stale result", "returning stale"]),
    ("truncated unicode names", ["cuts off accented names", "mangles non ascii names"],
     ["truncating unicode", "unicode truncation"]),
    ("timed out under load", ["stalls when busy", "is too slow at peak"], ["timing out under heavy load", "timeouts under load"]),
    ("rounded cents wrong", ["loses a penny", "gets the pennies wrong"], ["cent rounding", "rounding the cents"]),
    ("ignored the retry budget", ["tries forever", "never gives up"], ["retried past the budget", "retrying without a budget"]),
    ("wrote corrupt gzip", ["produces broken archives", "spits out unreadable gz files"],
     ["corrupted gzip", "gzip corruption"]),
    ("sorted descending", ["puts newest last", "has the order reversed"], ["descending sort", "sorting descending"]),
    ("rejected valid postcodes", ["refuses good zip codes", "fails real postal codes"],
     ["rejecting valid postcode", "postcode rejection"]),
    ("sent duplicate emails", ["mails people twice", "messages everyone two times"],
     ["duplicated emails", "sending duplicates"]),
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

# A setting: its key's suffix (the planted session writes `<component>_<key>`) and what people
# call it.
SETTINGS = [
    ("max_batch_size", ["batch limit", "biggest batch", "batch size"]),
    ("pool_timeout_ms", ["pool wait", "connection pool timeout", "pool timeout"]),
    ("retry_ceiling", ["max retries", "retry cap", "number of retries"]),
    ("shard_count", ["number of shards", "how many shards", "shards"]),
    ("cache_ttl_seconds", ["cache expiry", "cache lifetime", "ttl"]),
    ("worker_threads", ["thread count", "number of workers", "workers"]),
    ("chunk_bytes", ["chunk size", "chunk length"]),
    ("grace_period_s", ["grace time", "grace window"]),
    ("queue_depth", ["queue length", "queue size", "max queue"]),
    ("sample_rate", ["sampling rate", "sampling ratio"]),
    ("max_upload_mb", ["upload limit", "biggest upload", "max upload size"]),
    ("lease_seconds", ["lease length", "lease time", "lease duration"]),
]

# Words of the planted facts: never drawn as filler words (they stay the facts' own).
FACT_WORDS = set()
for _name, _area, _forms in COMPONENTS:
    FACT_WORDS.update([_name, _area] + _forms)
for _lib in LIBS:
    FACT_WORDS.update(re.findall(r"[a-z0-9]+", " ".join(_lib[:2])))
FACT_WORDS.update("""
deadlocked leaked double counted crashed drifted stale truncated unicode timed cents budget corrupt
gzip descending rejected postcodes duplicate golden goldens regen regenerate regenerated xtask
overnight upstream""".split())
GENERAL = [w for w in GENERAL_SOURCE if w not in FACT_WORDS]

NOVEL_TOPICS = """
kubernetes helm terraform ansible graphql websocket oauth saml ldap kafka rabbitmq grpc protobuf
webassembly wasm tailwind bootstrap svelte angular flutter kotlin swift android ios bluetooth
opengl vulkan shader physics audio midi synth calendar chess sudoku blockchain mining weather
telescope recipe garden fitness
""".split()

# Typos people make in common words (never in a fact's distinctive words).
TYPOS = {
    "the": "teh", "what": "waht", "which": "whcih", "with": "wiht", "that": "taht", "again": "agian",
    "last": "lsat", "how": "hwo", "did": "ddi", "from": "form", "about": "abuot", "because": "becuase",
    "should": "shoudl", "there": "tehre", "when": "wehn", "fix": "fxi", "why": "wyh", "was": "wsa",
}

# The hint's stop words (src/recall/hint.rs, STOP_WORDS), for the overlap figures.
STOP_WORDS = set("""
about above after again against all also am an and any are as at back be because been before
being below between both but by can change changed could did do does doing done down during each
earlier else etc even ever few find for from further get go going got had has have having he help
her here hers him his how if in into is it its itself just know last let like look make me mean
might more most much must my need no nor not now of off ok okay on once one only or other our
ours out over own please previous previously recall remember remind same see she should show so
some still such sure take tell than thank thanks that the their theirs them then there these they
thing things think this those through time times to today too try under until up us use very want
was we were what when where which while who whom why will with would yes yesterday yet you your
yours
""".split())

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


CONTINUING = ("synonym", "form", "detail", "terse")
UNRELATED = ("novel", "shared-word", "common-only", "same-word", "near-miss", "other-project")


class Eval:
    def __init__(self, args):
        self.a = args
        self.r = random.Random(args.seed)
        self.same_word = {}
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
            if pick < 0.62:
                out.append(self.r.choice(COMMON))
            elif pick < 0.77:
                out.append(self.r.choice(GENERAL))
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

    def typed(self, text):
        """As people type a prompt: lowercase, no punctuation, now and then a typo in a common word."""
        text = re.sub(r"[^a-z0-9 ]+", "", text.lower().replace("-", " ").replace("_", " "))
        words = text.split()
        if self.r.random() < 0.2:
            common = [i for i, w in enumerate(words) if w in TYPOS]
            if common:
                i = self.r.choice(common)
                words[i] = TYPOS[words[i]]
        return " ".join(words)

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

    def mention_turn(self, w, fact):
        """Another task that names a planted fact's component in passing (a decoy)."""
        name = fact["component"] if self.r.random() < 0.6 else self.r.choice(fact["forms"])
        topic = self.r.choice(FILLER_TOPICS)
        w.user(self.r.choice([
            "Also the %s docs need a %s section, can you draft it?",
            "Rename the %s helper next to the %s code so it reads better.",
            "Add a %s benchmark next to the %s one in the bench folder.",
        ]) % ((name, topic) if self.r.random() < 0.5 else (topic, name)) + " " + self.sentence())
        w.assistant("Done: the %s part now has the %s change. %s" % (name, topic, self.paragraph(1, 2)))

    def filler_session(self, project, turns, big=False, decoys=()):
        sid, w = self.open_session(project, self.r.uniform(0.5, 120))
        if self.r.random() < 0.5:
            w.name(" ".join(self.r.sample(FILLER_TOPICS, 3)))
        at = {self.r.randrange(turns): f for f in decoys}
        for i in range(turns):
            self.filler_turn(w, big)
            if i in at:
                self.mention_turn(w, at[i])
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
        w.user(fact["follow"][0])
        w.assistant(fact["follow"][1])
        for _ in range(after):
            self.filler_turn(w)
        w.close()
        return sid

    # -- facts -------------------------------------------------------------------------------

    def make_facts(self, n):
        comps = self.r.sample(COMPONENTS, n)
        libs = self.r.sample(LIBS, len(LIBS))
        facts = []
        for i, (comp, area, forms) in enumerate(comps):
            kind = ("bug", "library", "config", "bug", "procedure")[i % 5]
            file = "src/%s/%s.rs" % (area, comp)
            f = {"kind": kind, "component": comp, "area": area, "forms": forms, "file": file}
            if kind == "bug":
                f["symptom"] = self.r.choice(SYMPTOMS)
                cause = self.r.choice(CAUSES)
                f["ask"] = "The %s in %s %s when the %s job ran overnight. Can you find out why?" % (
                    comp, area, f["symptom"][0], area)
                f["look"] = "Let me read %s." % file
                f["answer"] = ("Found it: in %s %s, so the %s %s. I fixed it and added a regression test "
                               "named %s_regression." % (file, cause, comp, f["symptom"][0], comp))
                f["follow"] = ("Good. Is the %s job green now?" % area,
                               "Yes: %s_regression passes and the overnight %s job finished. The %s fix is "
                               "in %s." % (comp, area, comp, file))
            elif kind == "library":
                f["lib"], f["alt"], why = libs.pop() if libs else self.r.choice(LIBS)
                f["ask"] = "For the %s in %s, should we use %s or %s?" % (comp, area, f["lib"], f["alt"])
                f["look"] = "Let me check how %s is built first." % file
                f["answer"] = ("We decided on %s instead of %s for the %s, because of %s. "
                               "I noted it in %s." % (f["lib"], f["alt"], comp, why, file))
                f["follow"] = ("OK, add it then.", "Added %s to Cargo.toml and moved the %s over to it; the %s "
                               "tests pass." % (f["lib"], comp, area))
            elif kind == "config":
                key, f["names"] = self.r.choice(SETTINGS)
                value = self.r.randint(2, 99) * 10 ** self.r.randint(1, 3) + self.r.randint(1, 9)
                f["value"] = value
                key = "%s_%s" % (comp, key)
                f["ask"] = "What should %s be for the %s in production?" % (key, comp)
                f["look"] = "Reading config/production.toml and %s." % file
                f["answer"] = ("Set %s = %d in config/production.toml: the %s in %s needs it because of "
                               "the upstream limit." % (key, value, comp, area))
                f["follow"] = ("Is that the same in staging?", "No, staging keeps the default; only production "
                               "sets %s." % key)
            else:
                cmd = "cargo xtask regen-%s --area %s" % (comp, area)
                f["ask"] = "How do I regenerate the %s golden files for %s?" % (comp, area)
                f["look"] = "Looking at xtask and %s." % file
                f["answer"] = ("Run `%s`; it rewrites tests/golden/%s/*.json, then review the diff. "
                               "The %s golden files must be regenerated after every schema change." % (cmd, comp, comp))
                f["follow"] = ("And where does the diff go?", "Review it under tests/golden/%s/ and commit it "
                               "with the schema change." % comp)
            facts.append(f)
        return facts

    # -- continuing prompts ------------------------------------------------------------------

    def form(self, f):
        return self.r.choice(f["forms"])

    def either(self, f):
        """The component by its name (as people type an identifier, mostly) or another form."""
        return f["component"] if self.r.random() < 0.7 else self.form(f)

    def continuing(self, f, cls):
        """A prompt continuing fact `f`, in class `cls`'s way. About half the templates keep two
        words of the fact (its component and its area, library or setting), the others one."""
        c = self.r.choice
        comp, area = f["component"], f["area"]
        if f["kind"] == "bug":
            other = c(f["symptom"][1])
            forms = c(f["symptom"][2])
            text = {
                "synonym": lambda: c([
                    "the %s %s again what did we do about that" % (comp, other),
                    "%s %s on the %s run did we not sort that out already" % (comp, other, area),
                    "looks like the %s %s %s how did we patch it before" % (area, comp, other),
                    "didnt we repair the %s when it %s" % (comp, other),
                ]),
                "form": lambda: c([
                    "%s %s again how did we fix it" % (self.form(f), forms),
                    "is the %s in %s %s back" % (forms, area, self.form(f)),
                    "%s with %s what was the fix" % (forms, self.form(f)),
                ]),
                "detail": lambda: c([
                    "what was the root cause when the %s %s" % (self.either(f), other),
                    "which test covers the %s %s problem" % (area, self.either(f)),
                    "where in the code was the %s bug" % self.either(f),
                    "what did the %s fix in %s actually touch" % (comp, area),
                    "which test did we add after the %s %s" % (self.either(f), forms),
                ]),
                "terse": lambda: c([
                    "%s %s again" % (self.either(f), other),
                    "%s broke again" % self.form(f),
                    "%s %s problem again" % (area, self.either(f)),
                    "%s regression" % self.either(f),
                    "%s %s" % (comp, forms),
                ]),
            }
        elif f["kind"] == "library":
            lib, alt = f["lib"], f["alt"]
            text = {
                "synonym": lambda: c([
                    "why did we go with %s rather than the other option" % lib,
                    "what made us choose %s for the %s" % (lib, comp),
                    "the %s dependency choice what was the reasoning" % comp,
                    "why %s and not %s in the end" % (lib, alt),
                ]),
                "form": lambda: c([
                    "why %s for %s" % (lib, self.form(f)),
                    "%s library pick what did we land on" % self.form(f),
                    "the crate we chose for %s %s and why" % (area, self.form(f)),
                ]),
                "detail": lambda: c([
                    "which crate did we end up using for %s" % self.either(f),
                    "what was wrong with %s for the %s" % (alt, self.either(f)),
                    "did we write down why %s uses that library" % self.either(f),
                    "is %s still on %s or did we swap it" % (self.either(f), lib),
                ]),
                "terse": lambda: c([
                    "%s crate choice" % self.either(f),
                    "%s why" % lib,
                    "%s vs %s" % (lib, alt),
                    "%s %s or not" % (comp, lib),
                ]),
            }
        elif f["kind"] == "config":
            name = c(f["names"])
            approx = "%d" % round(f["value"], -len(str(f["value"])) + 1)
            text = {
                "synonym": lambda: c([
                    "what number did we settle on for %s %s in prod" % (comp, name),
                    "%s %s in prod what did we set it to" % (comp, name),
                    "the %s needed a special %s on the live box right" % (comp, name),
                    "what %s does the %s %s run with in production" % (name, area, comp),
                ]),
                "form": lambda: c([
                    "what did we end up with for the %s %s" % (self.form(f), name),
                    "is %s %s still around %s" % (self.form(f), name, approx),
                    "prod %s for %s %s what is it" % (name, area, self.form(f)),
                ]),
                "detail": lambda: c([
                    "what value did we end up with for the %s %s" % (self.either(f), name),
                    "why did %s need a different %s in prod" % (self.either(f), name),
                    "where did we put the %s %s setting" % (self.either(f), name),
                    "why is %s %s set so high in production" % (area, self.either(f)),
                ]),
                "terse": lambda: c([
                    "%s %s" % (self.either(f), name),
                    "%s prod setting" % self.either(f),
                    "%s %s value" % (self.form(f), name),
                ]),
            }
        else:
            text = {
                "synonym": lambda: c([
                    "how do i refresh the %s snapshots after a model tweak" % comp,
                    "whats the command to redo the expected outputs for %s" % comp,
                    "%s fixtures are out of date how do i rebuild them" % comp,
                    "the %s %s test outputs need redoing after the schema edit" % (area, comp),
                ]),
                "form": lambda: c([
                    "regenerating %s goldens what was the command" % self.form(f),
                    "how to regen %s golden output" % self.form(f),
                    "the %s golden outputs need regenerating how" % self.form(f),
                ]),
                "detail": lambda: c([
                    "which folder do the %s expected files live in" % self.either(f),
                    "after redoing the %s outputs what do i check" % self.either(f),
                    "whats the xtask for %s again" % self.either(f),
                    "where do the %s golden json files go" % self.either(f),
                ]),
                "terse": lambda: c([
                    "%s goldens" % self.either(f),
                    "redo %s %s fixtures" % (area, self.either(f)),
                    "%s expected outputs" % self.form(f),
                ]),
            }
        return self.typed(text[cls]())

    # -- unrelated prompts -------------------------------------------------------------------

    def unrelated(self, cls, other_facts, mine, i):
        c = self.r.choice
        if cls == "novel":
            topic = self.r.sample(NOVEL_TOPICS, 2)
            text = c([
                "add %s support to the %s module and write a test for it",
                "can you set up %s with %s for the build and fix the failing check",
                "the %s request to %s fails with a timeout error",
            ]) % tuple(topic)
        elif cls == "shared-word":
            text = c([
                "the %s test is failing in the build can you check the error output",
                "update the %s component so the page loads faster",
                "write docs for the %s config option and its default value",
            ]) % c(FILLER_TOPICS)
        elif cls == "common-only":
            text = c([
                "the overnight job failed again can you find out why",
                "what value did we set in production for the upstream limit",
                "which crate did we decide on for the json output",
                "how do i regenerate the golden files after a schema change",
                "is the regression test from last week failing again",
                "we added a regression test for a bug once where was it",
                "the production config needs a new value for the timeout",
                "review the diff of the json files before the release",
                "why did the nightly job run slow this morning",
                "which library should we use for the new report",
                "the regression test named in the changelog is flaky can you look",
                "what should the default be for the new setting in production",
            ])
        elif cls == "same-word":
            f = c(mine)
            name = self.either(f)
            tasks = self.same_word_tasks(f, name, c(FILLER_TOPICS))
            chosen = c(tasks)
            text = self.typed(chosen)
            self.same_word[text] = (f, tasks.index(chosen))
            return text
        elif cls == "near-miss":
            area = c(mine)["area"]
            t = c(FILLER_TOPICS)
            text = c([
                "add a %s banner to the %s page",
                "rename the %s %s setting and update the docs",
                "the %s screen needs a %s can you sketch one",
            ]) % ((t, area) if self.r.random() < 0.5 else (area, t))
        else:
            f = other_facts[i % len(other_facts)]
            return self.continuing(f, c(CONTINUING))
        return self.typed(text)

    @staticmethod
    def same_word_tasks(f, name, topic):
        """Other work on a planted fact's component. Never the tasks of the decoy turns
        (mention_turn): those continue a session."""
        return [
            "split the %s tests into smaller files" % f["component"],
            "can you add logging to the %s %s" % (name, topic),
            "port the %s code to the new error type" % name,
            "delete the unused flags in %s" % f["component"],
            "bump the version of the %s package" % name,
        ]

    def same_word_again(self, prompts):
        """For each same-word prompt, a second one later in its window: another task on the same
        component (a person doing other work on it twice, which no hint should take for a
        continuation). Drawn from a random stream of their own and appended after the set's other
        prompts, so adding them left every earlier prompt (and session) as it was."""
        r = random.Random(self.a.seed * 1000 + 1)
        again = []
        for q in [q for q in prompts if q["class"] == "same-word"]:
            f, used = self.same_word[q["prompt"]]
            name = f["component"] if r.random() < 0.7 else r.choice(f["forms"])
            tasks = self.same_word_tasks(f, name, r.choice(FILLER_TOPICS))
            text = r.choice([t for j, t in enumerate(tasks) if j != used])
            text = re.sub(r"[^a-z0-9 ]+", "", text.lower().replace("-", " ").replace("_", " "))
            again.append(dict(q, id="p%03d" % (len(prompts) + len(again)), **{"class": "same-word-again"},
                              prompt=" ".join(text.split())))
        return again

    # -- the set -----------------------------------------------------------------------------

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
            decoys = self.r.sample(facts, self.r.choice((0, 1, 1, 2)))
            self.filler_session(project, self.r.randint(3, 40), decoys=decoys)
        for _ in range(self.a.marathons):
            self.filler_session("shopfront", 250, big=True, decoys=self.r.sample(facts, 3))

        # Each fact: three of the four continuing classes (the one left out rotates).
        plan = [[c for c in CONTINUING if c != CONTINUING[(i // 2) % len(CONTINUING)]] for i in range(len(mine))]
        # Unrelated prompts: each split its own, every class in turn, shuffled over its windows.
        unrelated, made = {}, 0
        for split, first in (("tune", 0), ("heldout", 1)):
            n = sum(len(p) for p in plan[first::2])
            unrelated[split] = [(UNRELATED[j % len(UNRELATED)], None) for j in range(n)]
            for j, (cls, _) in enumerate(unrelated[split]):
                unrelated[split][j] = (cls, self.unrelated(cls, other, mine, made))
                made += 1
            self.r.shuffle(unrelated[split])
        prompts = []
        for i, f in enumerate(mine):
            split = "tune" if i % 2 == 0 else "heldout"
            seq = [("continuing", cls, self.continuing(f, cls), f["session_id"]) for cls in plan[i]]
            self.r.shuffle(seq)
            for at in (1, 3, 5):
                cls, text = unrelated[split].pop()
                seq.insert(at, ("unrelated", cls, text, None))
            for kind, cls, text, sid in seq:
                prompts.append({"id": "p%03d" % len(prompts), "split": split, "kind": kind, "class": cls,
                                "project": "shopfront", "prompt": text, "session_id": sid,
                                "window": "w%03d" % (i + 1), "fact": f["kind"]})
        prompts += self.same_word_again(prompts)
        labels = {"now": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"), "projects": self.cwds,
                  "sessions_dir": self.sessions_dir, "prompts": prompts}
        with open(os.path.join(self.root, "labels.json"), "w", encoding="utf-8") as f:
            json.dump(labels, f, indent=1, ensure_ascii=False)
        return labels


# -- word overlap ------------------------------------------------------------------------------

def tokens(text):
    """The index's tokens, near enough: runs of letters and digits, lowercased."""
    return re.findall(r"[a-z0-9]+", text.lower())


def content_words(text):
    """The hint's content words (src/recall/hint.rs): no stop word, no one character, no number
    of fewer than three digits."""
    out = []
    for t in tokens(text):
        if len(t) < 2 or t in STOP_WORDS or (t.isdigit() and len(t) < 3) or t in out:
            continue
        out.append(t)
    return out


def fold(word):
    """A crude suffix fold, twice (thumbnails, thumbnailing, thumbnailer -> thumbnail; renderer,
    render -> rend; retried -> retry): what a stemmer could recover, for the figures only."""
    for _ in range(2):
        for suffix, repl in (("ations", ""), ("ation", ""), ("ings", ""), ("ing", ""), ("ied", "y"),
                             ("ies", "y"), ("ers", ""), ("er", ""), ("ors", ""), ("or", ""), ("ion", ""),
                             ("ed", ""), ("es", ""), ("s", "")):
            if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 4:
                word = word[: len(word) - len(suffix)] + repl
                break
        word = word[:-1] + "y" if word.endswith("i") else word
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def session_text(path):
    """A Pi session file's indexed text (messages' text, tool calls' arguments, names), and the
    planted fact's own turns: the user's ask, the assistant's look with its `read` call (no
    filler turn reads a file) and the assistant's answer after the read's result."""
    parts, messages = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            msg = entry.get("message") or {}
            text = []
            for block in msg.get("content") or []:
                if block.get("type") == "text":
                    text.append(block["text"])
                elif block.get("type") == "toolCall":
                    text.append(block["name"] + " " + json.dumps(block["arguments"]))
            if entry.get("type") == "session_info":
                text.append(entry.get("name", ""))
            parts.extend(text)
            if msg:
                reads = any(b.get("type") == "toolCall" and b.get("name") == "read" for b in msg["content"])
                messages.append((msg["role"], reads, "\n".join(text)))
    fact = []
    for i, (role, reads, text) in enumerate(messages):
        if role == "assistant" and reads:
            asked = [t for r, _, t in messages[:i] if r == "user"]
            answer = [t for r, _, t in messages[i + 1:] if r == "assistant"]
            fact = asked[-1:] + [text] + answer[:1]
            break
    return "\n".join(parts), "\n".join(fact)


def measure(root, rare_share=0.03):
    """Per class of continuing prompt: the mean share of a prompt's content words that occur in
    its planted session (exactly; folded), the mean share that are distinctive words of that
    session (in at most `rare_share` of the sessions), and the share of prompts holding no
    distinctive word of it at all (exactly; folded)."""
    with open(os.path.join(root, "labels.json"), encoding="utf-8") as f:
        labels = json.load(f)
    words_of, docs, folded_docs = {}, {}, {}
    for d, _, files in sorted(os.walk(labels["sessions_dir"])):
        for name in sorted(files):
            if not name.endswith(".jsonl"):
                continue
            sid = name[:-len(".jsonl")].split("_", 1)[1]
            text, fact = session_text(os.path.join(d, name))
            words = set(tokens(text))
            folded = {fold(w) for w in words}
            words_of[sid] = (words, folded, set(tokens(fact)))
            for w in words:
                docs[w] = docs.get(w, 0) + 1
            for w in folded:
                folded_docs[w] = folded_docs.get(w, 0) + 1
    rare_at = max(1, int(rare_share * len(words_of)))
    per = {}
    for q in labels["prompts"]:
        if q["kind"] != "continuing":
            continue
        words = content_words(q["prompt"])
        exact, folded, fact = words_of[q["session_id"]]
        in_fact = [w for w in words if w in fact]
        in_fact_folded = [w for w in words if fold(w) in {fold(x) for x in fact}]
        shared = [w for w in words if w in exact]
        shared_folded = [w for w in words if fold(w) in folded]
        rare = [w for w in shared if docs[w] <= rare_at]
        rare_folded = [w for w in shared_folded if folded_docs[fold(w)] <= rare_at]
        n = max(1, len(words))
        row = per.setdefault(q["class"], {"prompts": 0, "words": 0, "in_fact": 0.0, "in_fact_folded": 0.0,
                                          "in_session": 0.0, "in_session_folded": 0.0,
                                          "distinctive": 0.0, "distinctive_folded": 0.0,
                                          "none_distinctive": 0, "none_distinctive_folded": 0})
        row["prompts"] += 1
        row["words"] += len(words)
        row["in_fact"] += len(in_fact) / n
        row["in_fact_folded"] += len(in_fact_folded) / n
        row["in_session"] += len(shared) / n
        row["in_session_folded"] += len(shared_folded) / n
        row["distinctive"] += len(rare) / n
        row["distinctive_folded"] += len(rare_folded) / n
        row["none_distinctive"] += not rare
        row["none_distinctive_folded"] += not rare_folded
    total = {"prompts": 0}
    for cls, row in per.items():
        for k, v in row.items():
            total[k] = total.get(k, 0) + v
    per["all"] = total
    out = {"sessions": len(words_of), "distinctive_at_most_sessions": rare_at, "classes": {}}
    for cls, row in sorted(per.items()):
        n = max(1, row["prompts"])
        out["classes"][cls] = {"prompts": row["prompts"], "content_words": round(row["words"] / n, 2)}
        out["classes"][cls].update({k: round(row[k] / n, 3) for k in row if k not in ("prompts", "words")})
    return out


def print_overlap(o):
    print("word overlap of continuing prompts (content words) with the planted fact's own turns and with its whole "
          "session (%d sessions; distinctive: in <= %d sessions; folded: crude suffix folding)"
          % (o["sessions"], o["distinctive_at_most_sessions"]))
    print("  %-11s %7s %6s %14s %14s %14s %14s" % ("class", "prompts", "words", "in fact turns", "in session",
                                                  "distinctive", "no distinctive"))
    for cls, r in o["classes"].items():
        print("  %-11s %7d %6.1f %6.0f%% (%3.0f%%) %6.0f%% (%3.0f%%) %6.0f%% (%3.0f%%) %6.0f%% (%3.0f%%)" % (
            cls, r["prompts"], r["content_words"], 100 * r["in_fact"], 100 * r["in_fact_folded"],
            100 * r["in_session"], 100 * r["in_session_folded"], 100 * r["distinctive"],
            100 * r["distinctive_folded"], 100 * r["none_distinctive"], 100 * r["none_distinctive_folded"]))
    print("  (in brackets: folded)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out")
    p.add_argument("--measure", metavar="DIR", help="only print the word overlap of the set in DIR")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--facts", type=int, default=72)
    p.add_argument("--filler", type=int, default=160)
    p.add_argument("--marathons", type=int, default=3)
    args = p.parse_args(argv)
    if args.measure:
        print_overlap(measure(args.measure))
        return
    if not args.out:
        p.error("--out or --measure is required")
    if args.facts > len(COMPONENTS):
        p.error("at most %d facts" % len(COMPONENTS))
    labels = Eval(args).run()
    kinds = {}
    for q in labels["prompts"]:
        key = "%s/%s/%s" % (q["split"], q["kind"], q["class"])
        kinds[key] = kinds.get(key, 0) + 1
    print(json.dumps({"prompts": len(labels["prompts"]), "by_split": dict(sorted(kinds.items()))}))
    overlap = measure(args.out)
    with open(os.path.join(args.out, "overlap.json"), "w", encoding="utf-8") as f:
        json.dump(overlap, f, indent=1)
    print_overlap(overlap)


if __name__ == "__main__":
    main()
