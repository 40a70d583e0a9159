#!/usr/bin/env python3
"""Write the natural-question set of `sessions search` (issue 42, CONTRACT §10.7).

    python3 scripts/gen-questions.py --out DIR [--seed 42]

DIR/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl holds ~270 Pi sessions (version 3) of five
projects, DIR/projects/<name> (each its own git repository, so each is its own project scope;
HOME=DIR is what both pi-context and deja-vu read). Two projects are coding work (`shopfront`,
`platform`), three are personal-assistant chat (`household`, `journal`, `trips`): long multi-turn
conversations about people, places, plans, books, pets and jobs, where the same people come back
in many sessions and projects. Facts are planted in them, said by the user in some and ONLY by
the assistant in others (the user's turn asks in other words). Around them:
  - distractor sessions full of the questions' own stop and question words ("what did it look
    like?", "when did you decide?", "how did it go?") and their common words (weekend, trip, new,
    research, switch, set);
  - near misses: the fact's person in sessions about something else, the fact's topic words in
    another person's session, a book's title words in a session about something else;
  - the coding projects share the common words of the personal ones and the other way round, so
    over the whole store another project's session competes on common words.

DIR/questions.json:

  {"now", "projects": {name: cwd}, "questions": [{"id", "split": "tune"|"heldout", "class",
   "said_by": "user"|"assistant"|null, "fact", "project", "question", "answers": [session_id...]}]}

Questions are typed as a person asks them, in full sentences, and each has a class saying how it
relates to the words of the session that answers it:
  plain         most content words as the session has them, amid stop and question words
  word-form     other forms of the session's words (retries/retried, enroll/enrolled)
  synonym       other words for the same thing (relocate/moved, unwind/destress, pick/went with)
  abbreviation  a short or other spelling (GF/girlfriend, k8s/kubernetes, e-mail/email, de-stress)
  detail        a detail of the fact asked about rather than the fact restated
  quoted-title  a title in quotes the session names without quotes or with other words around it
  unanswerable  nothing in the store answers it (answers: []), made of the store's common words
Each question also says how hard it is for words alone: `overlap_answer` and `overlap_session`, the
share of its content words (stop and question words left out) found as-is in the answer's own
turns and anywhere in its best answering session, and `rivals_project` / `rivals_all`, how many
sessions that do not answer it hold as large a share of its content words (in its project, in
the whole store).
Facts alternate between the tuning and the held-out split (all of a fact's questions in one);
unanswerable questions alternate too. DIR/sessions.json maps every session id to its file, project
and kind (for the evaluator, which maps a tool's hits to ids). Same --seed, same bytes.
Python 3.9+, standard library only.
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
CODING = ["shopfront", "platform"]
PERSONAL = ["household", "journal", "trips"]
PROJECTS = CODING + PERSONAL

PEOPLE = """Caroline Melanie Jon Gina Priya Tomasz Aiko Deborah Rafael Nadia Evan Joanna Audrey Calvin
Dave Maria Tim Andrew Lena Oscar Hannah Marcus Ines Felix""".split()
# Names asked about but never in the store.
ABSENT_PEOPLE = "Brandon Yusuf Greta Imogen Lionel Beatriz Dmitri Wren".split()

# -- filler: what every conversation is mostly made of -------------------------------------------

CHAT = [
    "What did it look like?", "How did it go in the end?", "When did you get back?", "Who else was there?",
    "What did you think of it?", "Did you decide anything yet?", "Where did you find that?",
    "That sounds like a lot for one week.", "I think we should talk about it on the weekend.",
    "Can you remind me later?", "What was the name of that place again?", "Why did they change it?",
    "I did some research but nothing stood out.", "It was a long day and I am tired.",
    "We should plan something new for the weekend.", "What do you think I should do?",
    "Honestly I have no idea what happened there.", "Let me know what you think.",
    "Did I tell you about the weather last week?", "How long did it take?",
    "I need to sort out the laundry and the groceries first.", "The traffic was terrible again this morning.",
    "Is there anything else I should add to the list?", "When did we talk about that?",
    "What should I bring to the dinner?", "I was thinking about switching things up a bit.",
    "It is a new thing for me, so I am still learning.", "I looked at a few options but did not pick one.",
    "How much did it cost in the end?", "Where are you going for the holidays?",
]
CHAT_NOUNS = """coffee groceries laundry weather traffic meeting dinner lunch weekend morning evening
holiday train bus bike garden kitchen couch movie show podcast playlist market bakery park gym
office email phone laptop budget rent bills neighbours birthday party plan list trip visit
class book story photo picture news paper letter card present idea question""".split()
CHAT_VERBS = """did said thought looked went made took found asked told saw wanted tried planned
decided switched moved changed started finished called checked booked picked""".split()

ASSISTANT_CHAT = [
    "That sounds like a good plan.", "Happy to help with that.", "Here is what I would do first.",
    "I can keep a note of it if you like.", "Let me know how it goes.", "That makes sense.",
    "Good question; it depends on what you want from it.", "I would not worry about it too much.",
    "Do you want me to put it on the list?", "We can look at it again next week.",
    "It might help to write the options down side by side.", "That is a lot to juggle in one week.",
]

CODE_COMMON = """the a of to in and for with on by from at is are was be this that it not but if then
so we you will should could can need use call function method type value result error return file
path line test tests build release debug flag option command output input config settings default
check fix change update bug issue problem work code module struct field string list map key cache
request response server client handler route page view component state data query table column row
index log warning timeout run failing fails passes now again still just also first last add write
support set docs time why reason pick instead decide decided switch switched new plan look""".split()
CODE_TOPICS = """navbar footer breadcrumb pagination checkout cart wishlist coupon newsletter sitemap
favicon spinner tooltip modal carousel dropdown sidebar banner webhook healthcheck dashboard
analytics onboarding signup password cookie middleware cors migration fixture linter formatter
dockerfile makefile readme changelog workflow pipeline artifact coverage snapshot mock benchmark
profiling mutex channel semaphore batching pooling""".split()


class Writer:
    """One Pi session file: header, then entries chained by id/parentId."""

    def __init__(self, rnd, path, session_id, cwd, start):
        self.r = rnd
        self.f = open(path, "w", encoding="utf-8")
        self.t = start
        self.leaf = None
        self.text = []
        self.f.write(json.dumps({"type": "session", "version": 3, "id": session_id,
                                 "timestamp": self.iso(), "cwd": cwd}, ensure_ascii=False) + "\n")

    def iso(self):
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (self.t.microsecond // 1000)

    def entry(self, kind, fields):
        self.t += dt.timedelta(seconds=self.r.uniform(5, 240))
        eid = "%08x" % self.r.getrandbits(32)
        obj = {"type": kind, "id": eid, "parentId": self.leaf, "timestamp": self.iso()}
        obj.update(fields)
        self.f.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.leaf = eid

    def message(self, msg):
        msg["timestamp"] = int(self.t.timestamp() * 1000)
        self.entry("message", {"message": msg})

    def user(self, text):
        self.text.append(text)
        self.message({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(self, text, calls=()):
        self.text.append(text)
        content = [{"type": "text", "text": text}] + [
            {"type": "toolCall", "id": "call_%06x" % self.r.getrandbits(24), "name": n, "arguments": a}
            for n, a in calls]
        self.message({"role": "assistant", "content": content, "api": "anthropic-messages",
                      "provider": "anthropic", "model": "claude-sonnet-4-5",
                      "stopReason": "toolUse" if calls else "stop"})
        return [b for b in content if b["type"] == "toolCall"]

    def result(self, call, text):
        self.text.append(text)
        self.message({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                      "content": [{"type": "text", "text": text}], "isError": False})

    def name(self, text):
        self.text.append(text)
        self.entry("session_info", {"name": text})

    def close(self):
        self.f.close()


# -- the facts ---------------------------------------------------------------------------------
# Each kind returns {"user": [...], "assistant": [...]} plant turns for who says it, and its
# questions as (class, text). In an assistant-only plant the user's turn asks in other words and
# only the assistant says the fact's words.

RESEARCH = [("adoption agencies", "agencies", "adoption"), ("pottery studios", "studios", "pottery"),
            ("solar panel installers", "installers", "solar"), ("bilingual preschools", "preschools", "school"),
            ("marathon training plans", "plans", "marathon"), ("rescue shelters", "shelters", "rescue"),
            ("sailing courses", "courses", "sailing"), ("coworking spaces", "spaces", "coworking"),
            ("language exchanges", "exchanges", "language"), ("hiking clubs", "clubs", "hiking"),
            ("foster programs", "programs", "foster"), ("violin teachers", "teachers", "violin")]
TITLES = [("The Night Circus", "night circus", "Celia", "book"), ("Project Hail Mary", "hail mary", "Rocky", "book"),
          ("Klara and the Sun", "klara", "Josie", "book"), ("Piranesi", "piranesi", "the Other", "book"),
          ("The Overstory", "overstory", "Patricia", "book"), ("Station Eleven", "station eleven", "Kirsten", "book"),
          ("Sea of Tranquility", "tranquility", "Olive", "book"), ("A Gentleman in Moscow", "gentleman in moscow", "the Count", "book"),
          ("The Remains of the Day", "remains of the day", "Stevens", "book"), ("Past Lives", "past lives", "Nora", "film"),
          ("Perfect Days", "perfect days", "Hirayama", "film"), ("Drive My Car", "drive my car", "Misaki", "film"),
          ("The Left Hand of Darkness", "left hand of darkness", "Estraven", "book"), ("Aftersun", "aftersun", "Calum", "film"),
          ("Tomorrow, and Tomorrow, and Tomorrow", "tomorrow and tomorrow", "Sadie", "book"),
          ("The Goldfinch", "goldfinch", "Boris", "book")]
OPINIONS = ["the ending felt rushed but the middle was wonderful", "it was slow for a hundred pages and then I could not stop",
            "it made me cry on the train", "I found it clever but cold", "the writing is gorgeous and the plot thin",
            "it is the best thing I have read this year", "I kept waiting for something to happen"]
# (session form, question form, context template using {w})
VARIANTS = [
    ("destress", "de-stress", "{P} says {act} is the only thing that helps her {w} after a long shift",
     "How does {P} {w} after work?"),
    ("de-stress", "destress", "{P} told me {act} is how she tries to {w} on Sundays",
     "what does {P} do to {w}?"),
    ("GF", "girlfriend", "my {w} {P} finally got me into {act}, we go every Thursday",
     "what hobby did my {w} get me into?"),
    ("bday", "birthday", "{P}'s {w} dinner is at {place} on the 14th, I still need a card",
     "Where is {P}'s {w} dinner?"),
    ("appt", "appointment", "my dentist {w} with Dr {P} moved to Thursday at 8:40",
     "when is my dentist {w}?"),
    ("email", "e-mail", "{P} sent an {w} about the school fundraiser, they need volunteers for {act}",
     "what was {P}'s {w} about?"),
    ("NYC", "New York", "{P} is flying to {w} in March for the {act} conference",
     "when is {P} going to {w}?"),
    ("PT", "physical therapy", "{P} has {w} twice a week for her knee after the {act} accident",
     "how often does {P} go to {w}?"),
    ("mom", "mother", "{P}'s {w} is moving in with them after the surgery in {place}",
     "who is moving in with {P}?"),
    ("BF", "boyfriend", "{P}'s {w} proposed at {place} during the {act} trip",
     "where did {P}'s {w} propose?"),
    ("vet", "veterinarian", "the {w} said {P}'s cat needs a special diet for her kidneys",
     "what did the {w} say about {P}'s cat?"),
    ("favourite", "favorite", "{P}'s {w} place to eat is {place}, she goes every Friday",
     "what is {P}'s {w} restaurant?"),
]
ACTIVITIES = ["open water swimming", "bouldering", "knitting", "birdwatching", "pottery", "salsa dancing",
              "long walks with the dog", "baking sourdough", "yoga", "trail running", "chess", "gardening"]
PLACES = ["Lisbon", "Kyoto", "Oaxaca", "Tallinn", "Porto", "Valencia", "Ljubljana", "Hobart", "Bergen",
          "Marrakesh", "Cork", "Trieste", "Quebec", "Tbilisi", "Seville", "Krakow"]
RESTAURANTS = ["Luigi's", "the Blue Door", "Saffron House", "the Anchor", "Casa Verde", "the Copper Pot",
               "Mama Ngozi's", "the Old Mill", "Pho Real", "the Salt Shed"]
EVENTS = ["her cousin's wedding", "a food festival", "a photography workshop", "a half marathon",
          "a yoga retreat", "a chess tournament", "her grandmother's ninetieth", "a design conference"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]
PETS = [("puppy", "dog", "beagle"), ("kitten", "cat", "tabby"), ("bunny", "rabbit", "lop"),
        ("pup", "dog", "greyhound"), ("kitty", "cat", "ragdoll"), ("parakeet", "bird", "budgie")]
PET_NAMES = ["Biscuit", "Pickles", "Mochi", "Juniper", "Waffles", "Pepper", "Clementine", "Noodle", "Ziggy",
             "Marzipan", "Olive", "Turnip"]
JOBS = [("Harbor Labs", "data analyst"), ("Greenleaf", "nurse practitioner"), ("Orbital", "product designer"),
        ("Tidewater Bank", "risk manager"), ("the city library", "archivist"), ("Brightpath", "school counsellor"),
        ("Foxglove Studio", "illustrator"), ("Northwind", "logistics planner"), ("Kestrel Health", "paramedic"),
        ("Oakridge", "site engineer")]
CLASSES = [("ceramics", "wheel throwing"), ("watercolour", "painting"), ("Spanish", "conversation"),
           ("woodworking", "joinery"), ("improv", "comedy"), ("first aid", "lifesaving"), ("photography", "darkroom"),
           ("Italian cooking", "pasta making"), ("jazz piano", "piano"), ("bookbinding", "craft")]
GIFTS = [("a ceramic glaze kit", "glaze kit", "45 euros", "pottery"), ("a field guide to mushrooms", "field guide", "28 euros", "foraging"),
         ("a beginner's film camera", "film camera", "120 euros", "photography"), ("noise cancelling headphones", "headphones", "199 euros", "podcasts"),
         ("a sourdough starter set", "starter set", "35 euros", "baking"), ("a star map print", "star map", "60 euros", "astronomy"),
         ("a chess clock", "chess clock", "40 euros", "chess"), ("a hammock", "hammock", "75 euros", "camping"),
         ("a watercolour travel set", "travel set", "52 euros", "painting"), ("a bird feeder camera", "feeder camera", "89 euros", "birdwatching")]
SUBSTITUTES = [("buttermilk", "milk with a spoon of lemon juice", "pancakes"), ("eggs", "a flax egg, one spoon of ground flax in three of water", "muffins"),
               ("shallots", "half a red onion and a little garlic", "risotto"), ("cream", "whole milk with melted butter", "carbonara"),
               ("breadcrumbs", "crushed crackers or rolled oats", "meatballs"), ("fish sauce", "soy sauce with a squeeze of lime", "curry"),
               ("white wine", "stock with a splash of vinegar", "mussels"), ("brown sugar", "white sugar with a little molasses", "cookies"),
               ("sour cream", "greek yogurt", "chili"), ("self-raising flour", "plain flour with baking powder", "scones")]
INJURIES = [("sprained her ankle", "hurt her ankle", "ankle", "bouldering"), ("broke her wrist", "injured her wrist", "wrist", "ice skating"),
            ("tore a calf muscle", "hurt her leg", "calf", "trail running"), ("cracked a rib", "hurt her ribs", "rib", "mountain biking"),
            ("dislocated her shoulder", "hurt her shoulder", "shoulder", "climbing"), ("pulled her back", "hurt her back", "back", "moving boxes")]

SWITCHES = [("retry backoff", "retries", "retried", "linear delays", "exponential backoff with jitter capped at 30 s"),
            ("session store", "sessions", "session", "signed cookies", "redis with a 12 hour ttl"),
            ("image cdn", "images", "image", "cloudfront", "bunny with webp conversion"),
            ("log format", "logging", "logs", "plain text lines", "json lines with a request id"),
            ("test runner", "tests", "testing", "jest", "vitest in threads mode"),
            ("job queue", "queued", "queueing", "rabbitmq", "sqs with a dead letter queue"),
            ("search backend", "searching", "searches", "elasticsearch", "postgres full text with trigram indexes"),
            ("feature flags", "flagged", "flagging", "env vars", "unleash"),
            ("payment provider", "payments", "paying", "braintree", "stripe checkout"),
            ("email sender", "emails", "emailing", "smtp through postfix", "postmark with templates"),
            ("deploy pipeline", "deploys", "deploying", "jenkins", "github actions with environments"),
            ("password hashing", "hashes", "hashed", "bcrypt", "argon2id with 64 MB memory")]
BUGS = [("cart total", "doubled the shipping fee", "charged shipping twice", "the discount hook ran before and after tax",
         "src/cart/totals.ts"),
        ("invoice pdf", "cut off long addresses", "truncated the address", "the template used a fixed height box",
         "templates/invoice.html"),
        ("search page", "showed stale prices", "served old prices", "the cache key ignored the currency", "src/search/cache.ts"),
        ("signup form", "rejected valid postcodes", "refused real zip codes", "the regex only allowed digits",
         "src/forms/postcode.ts"),
        ("nightly export", "dropped the last row", "lost the final line", "the writer was not flushed before close",
         "jobs/export.py"),
        ("order emails", "went out twice", "were sent two times", "the worker acknowledged after a timeout retry",
         "workers/mailer.py"),
        ("stock sync", "drifted by one hour", "was an hour off", "timestamps were parsed as local time",
         "jobs/stock_sync.py"),
        ("thumbnail service", "leaked memory", "kept growing until killed", "decoded frames were never released",
         "services/thumbs/main.go"),
        ("checkout button", "froze on slow phones", "hung on old devices", "a sync layout read inside the scroll handler",
         "src/checkout/button.tsx"),
        ("refund job", "rounded cents wrong", "lost a cent", "amounts were floats", "jobs/refunds.py")]
CONFIGS = [("max_connections", "connection limit", "db", "database", "180"), ("pool_timeout_ms", "pool timeout", "db", "database", "8500"),
           ("worker_concurrency", "worker count", "queue", "queue", "24"), ("cache_ttl_seconds", "cache lifetime", "redis", "redis", "5400"),
           ("max_upload_mb", "upload limit", "api", "api", "375"), ("rate_limit_per_min", "rate limit", "gateway", "gateway", "600"),
           ("grace_period_s", "grace period", "k8s", "kubernetes", "95"), ("replica_count", "number of replicas", "k8s", "kubernetes", "6"),
           ("batch_size", "batch size", "etl", "etl", "1500"), ("lease_seconds", "lease time", "scheduler", "scheduler", "45")]
LIBS = [("zod", "yup", "inferred types without a second schema"), ("pnpm", "npm", "disk space and strict hoisting"),
        ("drizzle", "prisma", "no generated client and plain SQL"), ("playwright", "cypress", "real webkit coverage"),
        ("tanstack query", "redux", "cache invalidation for free"), ("vite", "webpack", "dev server start under a second"),
        ("sqlx", "diesel", "compile time checked queries without a DSL"), ("tokio", "async-std", "the ecosystem around it"),
        ("litestream", "nightly dumps", "point in time restore"), ("caddy", "nginx", "automatic certificates")]
CODE_ABBR = [("k8s", "kubernetes", "the {w} liveness probe kept killing the api pod during migrations",
              "why did {w} keep killing the api pod?"),
             ("kubernetes", "k8s", "the {w} cronjob for the sitemap never ran because the schedule was in local time",
              "why did the {w} sitemap cronjob never run?"),
             ("repo", "repository", "we split the {w} so the design system lives on its own with its own releases",
              "why did we split the {w}?"),
             ("auth", "authentication", "the {w} middleware now checks the token audience before the expiry",
              "what does the {w} middleware check first now?"),
             ("env vars", "environment variables", "the staging {w} were loaded after the defaults so they never applied",
              "why didn't the staging {w} apply?"),
             ("prod", "production", "the {w} database ran out of disk because the wal archive was never pruned",
              "why did the {w} database run out of disk?"),
             ("deps", "dependencies", "we pinned all the {w} after the left-pad style outage of the date library",
              "why did we pin the {w}?"),
             ("perf", "performance", "the {w} regression on the product page came from an n+1 query in the reviews",
              "what caused the {w} regression on the product page?"),
             ("PR", "pull request", "the {w} that broke the build was the one that bumped the typescript target",
              "which {w} broke the build?"),
             ("config", "configuration", "the {w} loader now rejects unknown keys instead of ignoring them",
              "what does the {w} loader do with unknown keys now?")]
INCIDENTS = [("checkout", "the payment webhook secret expired", "Tuesday"), ("the search page", "a runaway reindex job filled the disk", "Friday"),
             ("the login page", "a certificate on the auth proxy expired", "Monday"), ("image uploads", "the bucket policy was overwritten by terraform", "Wednesday"),
             ("the admin dashboard", "a migration locked the orders table", "Thursday"), ("order emails", "the mail provider suspended our api key", "Sunday")]
PROCEDURES = [("database credentials", "make rotate-db-creds ENV=prod", "rotate"), ("signing keys", "scripts/rotate-keys.sh --all", "rotate"),
              ("search index", "cargo run --bin reindex -- --full", "rebuild"), ("staging data", "make seed-staging FROM=snapshot", "refresh"),
              ("translation files", "npm run i18n:extract && npm run i18n:push", "regenerate"), ("cdn cache", "scripts/purge-cdn.sh '/*'", "purge")]


class Facts:
    """The fact kinds: each draws its slots and returns its plant and questions."""

    def __init__(self, rnd):
        self.r = rnd
        self.pools = {}

    def take(self, name, pool):
        left = self.pools.setdefault(name, [])
        if not left:
            left.extend(pool)
            self.r.shuffle(left)
        return left.pop()

    def person(self):
        return self.r.choice(PEOPLE)

    # personal ----------------------------------------------------------------------------------

    def research(self):
        P = self.person()
        topic, head, key = self.take("research", RESEARCH)
        n = self.r.randint(3, 9)
        day = self.r.choice(["Monday", "Tuesday", "Thursday", "Friday"])
        words = self.r.choice(["spent the whole weekend looking into", "has been reading up on", "spent hours comparing"])
        return {
            "user": ["%s %s %s. She has a shortlist of %d and wants to call them on %s." % (P, words, topic, n, day)],
            "assistant_ask": "What do you remember about %s's plans from when we talked on Sunday?" % P,
            "assistant": ["You told me %s %s %s and has a shortlist of %d she wants to call on %s." % (P, words, topic, n, day)],
            "questions": [
                ("synonym", "What did %s research?" % P),
                ("detail", "How many %s are on %s's shortlist?" % (head, P)),
                ("word-form", "When is %s calling the %s?" % (P, head)),
                ("synonym", "Was %s investigating %s options?" % (P, key)),
            ]}

    def opinion(self):
        title, short, character, medium = self.take("titles", TITLES)
        opinion = self.r.choice(OPINIONS)
        mention = self.r.choice(["finally finished %s last night" % short, "got through the %s %s on the weekend" % (short, medium),
                                 "watched %s with Jon" % short if medium == "film" else "read %s on the train" % short])
        return {
            "user": ["I %s. Honestly %s. I loved %s though." % (mention, opinion, character)],
            "assistant_ask": "I need something for the flight, what was that %s you kept telling me to try?" % medium,
            "assistant": ["It was %s. You said %s, and that %s was the best part." % (short, opinion, character)],
            "questions": [
                ("quoted-title", 'what did I think of "%s"?' % title),
                ("quoted-title", 'who was my favourite character in "%s"?' % title),
                ("quoted-title", 'did I like the %s "%s" or not?' % (medium, title)),
            ]}

    def variant(self):
        spoken, asked, plant, question = self.take("variants", VARIANTS)
        P = self.person()
        act = self.r.choice(ACTIVITIES)
        place = self.r.choice(RESTAURANTS)
        said = plant.format(P=P, w=spoken, act=act, place=place)
        said = said[0].upper() + said[1:]
        return {
            "user": [said + "."],
            "assistant_ask": "Can you keep track of the %s stuff I mentioned earlier?" % P,
            "assistant": ["Noted: %s." % said],
            "questions": [("abbreviation", question.format(P=P, w=asked)),
                          ("plain", question.format(P=P, w=spoken))][: 1 + (self.r.random() < 0.35)]}

    def trip(self):
        P = self.person()
        place = self.take("places", PLACES)
        event = self.r.choice(EVENTS)
        month = self.r.choice(MONTHS)
        return {
            "user": ["%s is off to %s in %s for %s, and she asked if I could water her plants." % (P, place, month, event)],
            "assistant_ask": "Could you help me draft a message to %s about the plants while she is away?" % P,
            "assistant": ["Sure: \"Hi %s, happy to look after the plants while you are in %s for %s in %s!\"" % (P, place, event, month)],
            "questions": [
                ("plain", "When is %s going to %s?" % (P, place)),
                ("detail", "Where is %s travelling in %s?" % (P, month)),
                ("synonym", "Why is %s heading to %s?" % (P, place)),
            ]}

    def pet(self):
        P = self.person()
        young, animal, breed = self.r.choice(PETS)
        pet_name = self.take("pets", PET_NAMES)
        return {
            "user": ["%s adopted a little %s %s from the shelter on Saturday and named him %s." % (P, breed, animal, pet_name)],
            "assistant_ask": "What was the news from %s this weekend? I want to send her a card." % P,
            "assistant": ["%s adopted a %s %s from the shelter and called him %s, so a card with a %s on it would be sweet." % (P, breed, animal, pet_name, animal)],
            "questions": [
                ("synonym", "What's the name of %s's new %s?" % (P, young)),
                ("detail", "Where did %s get %s?" % (P, pet_name)),
                ("word-form", "What breed is the %s %s adopts?" % (animal, P)),
            ]}

    def job(self):
        P = self.person()
        company, role = self.take("jobs", JOBS)
        return {
            "user": ["Big news, %s starts at %s next month as a %s, she handed in her notice today." % (P, company, role)],
            "assistant_ask": "%s called with news about work, remind me to congratulate her. What should I say?" % P,
            "assistant": ["Something like: \"Congratulations on the %s role at %s, %s, they are lucky to have you!\"" % (role, company, P)],
            "questions": [
                ("synonym", "Where does %s work now?" % P),
                ("detail", "What is %s's new position?" % P),
                ("word-form", "When did %s resign?" % P),
            ]}

    def enrol(self):
        P = self.person()
        subject, other = self.take("classes", CLASSES)
        return {
            "user": ["%s enrolled in a %s class at the community centre, Tuesday evenings, %s is next term." % (P, subject, other)],
            "assistant_ask": "What was %s signing up for again? I want to join her." % P,
            "assistant": ["She enrolled in %s at the community centre on Tuesday evenings; %s comes next term." % (subject, other)],
            "questions": [
                ("word-form", "What class did %s enroll in?" % P),
                ("abbreviation", "Which night is %s's %s class at the community center?" % (P, subject)),
            ]}

    def gift(self):
        P = self.person()
        gift, head, price, hobby = self.take("gifts", GIFTS)
        shop = self.r.choice(["the market on Elm Street", "a shop in the old town", "the museum shop", "an online shop"])
        return {
            "user": ["For %s's birthday I'm getting her %s, she's really into %s lately. Found it at %s for %s." % (P, gift, hobby, shop, price)],
            "assistant_ask": "%s's birthday is coming up and she's been into %s. Any ideas?" % (P, hobby),
            "assistant": ["%s would suit her. %s has one for about %s." % (gift[0].upper() + gift[1:], shop[0].upper() + shop[1:], price)],
            "questions": [
                ("synonym", "What present did we pick for %s?" % P),
                ("detail", "How much was the %s?" % head),
                ("plain", "What gift for %s's birthday?" % P),
            ]}

    def substitute(self):
        missing, use, dish = self.take("subs", SUBSTITUTES)
        return {
            "user": ["Making %s tonight, no %s in the house, so I'm using %s." % (dish, missing, use)],
            "assistant_ask": "I'm making %s tonight and I just realised I have none of the %s. Help?" % (dish, missing),
            "assistant": ["Use %s; it works fine in most recipes." % use],
            "questions": [
                ("plain", "What can I use instead of %s?" % missing),
                ("synonym", "what did I swap for the %s in the %s?" % (missing, dish)),
            ]}

    def move(self):
        P = self.person()
        place = self.take("places", PLACES)
        rel = self.r.choice(["her partner", "her sister", "the kids", "her husband"])
        return {
            "user": ["%s and %s finally moved to %s last week, into a flat near the harbour." % (P, rel, place)],
            "assistant_ask": "I keep forgetting where %s lives now, can you remind me before I post the parcel?" % P,
            "assistant": ["She moved to %s with %s last week, into a flat near the harbour." % (place, rel)],
            "questions": [
                ("synonym", "Which city did %s relocate to?" % P),
                ("synonym", "Where is %s's new apartment?" % P),
                ("word-form", "Who is %s moving with?" % P),
            ]}

    def injury(self):
        P = self.person()
        did, hurt, part, how = self.take("injuries", INJURIES)
        return {
            "user": ["%s %s %s on Saturday, she is off work for three weeks." % (P, did, how)],
            "assistant_ask": "%s is stuck at home for a few weeks. What happened again, so I can ask after it?" % P,
            "assistant": ["She %s %s on Saturday and is off work for three weeks." % (did, how)],
            "questions": [
                ("synonym", "How did %s %s?" % (P, hurt)),
                ("detail", "How long is %s off work?" % P),
            ]}

    # coding ------------------------------------------------------------------------------------

    def switch(self):
        thing, form1, form2, old, new = self.take("switches", SWITCHES)
        return {
            "user": ["We're switching the %s from %s to %s, the old one made every incident worse." % (thing, old, new)],
            "assistant_ask": "The incidents keep getting worse when the upstream is flaky. What should we change?",
            "assistant": ["I changed the %s: %s replaced %s, and the tests cover the %s path." % (thing, new, old, form1)],
            "questions": [
                ("plain", "when did we decide to switch the %s?" % thing),
                ("word-form", "what did we change about how %s work?" % form1),
                ("detail", "what did the %s use before %s?" % (thing, new.split()[0])),
            ]}

    def bug(self):
        comp, symptom, symptom2, cause, path = self.take("bugs", BUGS)
        return {
            "user": ["The %s %s again after the deploy, customers are complaining. Can you look?" % (comp, symptom)],
            "assistant_ask": "Customers are complaining about the %s since the deploy. Can you look?" % comp,
            "assistant": ["Found it in %s: %s, so the %s %s. Fixed and added a regression test." % (path, cause, comp, symptom)],
            "questions": [
                ("synonym", "why the %s %s?" % (comp, symptom2)),
                ("detail", "which file had the %s fix?" % comp),
                ("plain", "what was the cause of the %s bug?" % comp),
            ]}

    def config(self):
        key, words, short, long_, value = self.take("configs", CONFIGS)
        return {
            "user": ["Let's set %s to %s in prod for the %s, the old value was far too low." % (key, value, short)],
            "assistant_ask": "The %s keeps hitting its limit at peak. What would you set?" % short,
            "assistant": ["I set %s = %s in config/prod.toml for the %s; the old value was far too low." % (key, value, short)],
            "questions": [
                ("synonym", "what did we set the %s %s to in production?" % (long_, words)),
                ("plain", "what value did we give %s?" % key.replace("_", " ")),
            ]}

    def library(self):
        lib, alt, why = self.take("libs", LIBS)
        return {
            "user": ["Decision: we go with %s over %s, mostly for %s." % (lib, alt, why)],
            "assistant_ask": "We need to settle the library question before the sprint. What do you recommend?",
            "assistant": ["I'd go with %s over %s, mostly for %s. I wrote it up in docs/decisions.md." % (lib, alt, why)],
            "questions": [
                ("synonym", "why did we pick %s?" % lib),
                ("detail", "what did we choose instead of %s?" % alt),
            ]}

    def code_variant(self):
        spoken, asked, plant, question = self.take("code_abbr", CODE_ABBR)
        said = plant.format(w=spoken)
        return {
            "user": ["Heads up: " + said + "."],
            "assistant_ask": "Something odd happened on the cluster last night, can you dig through the logs?",
            "assistant": ["From the logs: " + said + ". I've patched it."],
            "questions": [("abbreviation", question.format(w=asked))]}

    def incident(self):
        what, cause, day = self.take("incidents", INCIDENTS)
        return {
            "user": ["The outage of %s on %s: %s. Writing the postmortem now." % (what, day, cause)],
            "assistant_ask": "Can you draft the postmortem for %s's incident from the timeline?" % day,
            "assistant": ["Draft: on %s %s went down because %s; alerts fired after twelve minutes." % (day, what, cause)],
            "questions": [
                ("synonym", "what took %s down on %s?" % (what, day)),
                ("word-form", "why was %s failing?" % what),
            ]}

    def procedure(self):
        thing, cmd, verb = self.take("procedures", PROCEDURES)
        form = {"rotate": "rotation", "rebuild": "rebuilding", "refresh": "refreshing",
                "regenerate": "regeneration", "purge": "purging"}[verb]
        return {
            "user": ["Note to self: to %s the %s run `%s` and check the dashboard after." % (verb, thing, cmd)],
            "assistant_ask": "How do we do the %s chore we always forget?" % thing.split()[-1],
            "assistant": ["To %s the %s, run `%s`, then check the dashboard." % (verb, thing, cmd)],
            "questions": [
                ("plain", "how do I %s the %s?" % (verb, thing)),
                ("word-form", "what's the command for %s %s?" % (thing, form)),
            ]}


PERSONAL_KINDS = ["research", "opinion", "variant", "trip", "pet", "job", "enrol", "gift", "substitute", "move", "injury"]
CODING_KINDS = ["switch", "bug", "config", "library", "code_variant", "incident", "procedure"]
# Said only by the assistant in this share of facts (kinds where the assistant naturally answers
# are always so: a suggestion, a fix found, a substitute).
ASSISTANT_SHARE = 0.4
ALWAYS_ASSISTANT = {"gift", "substitute", "bug"}

UNANSWERABLE = [
    "What did {A} research?", "When is {A} going to {place}?", "What's the name of {A}'s new puppy?",
    'what did I think of "{title}"?', "Where does {A} work now?", "How did {P} hurt her knee?",
    "What class did {P} sign up for at the library?", "when did we decide to switch the websocket heartbeat?",
    "what did we set the kafka partition count to?", "why did we pick graphql?", "how do I rotate the ssh host keys?",
    "what took the mobile app down on Saturday?", "Where did {P} go scuba diving?", "What did {P} think of the opera?",
    "which file had the wishlist fix?", "What can I use instead of tahini?", "What did {A} say about the {w} dinner?",
]
ABSENT_TITLES = ["Dune", "The Hobbit", "Middlemarch", "Oppenheimer", "Anatomy of a Fall", "Lessons in Chemistry",
                 "The Seven Husbands of Evelyn Hugo", "Babel"]


class Set:
    def __init__(self, args):
        self.a = args
        self.r = random.Random(args.seed)
        self.root = os.path.abspath(args.out)
        self.sessions_dir = os.path.join(self.root, ".pi", "agent", "sessions")
        self.cwds = {}
        for name in PROJECTS:
            cwd = os.path.join(self.root, "projects", name)
            os.makedirs(cwd, exist_ok=True)
            subprocess.run(["git", "init", "-q", cwd], check=True)
            self.cwds[name] = cwd
        self.facts = Facts(self.r)
        self.sessions = []
        self.words_of = {}

    # -- text ------------------------------------------------------------------------------------

    def chat_line(self):
        pick = self.r.random()
        if pick < 0.45:
            return self.r.choice(CHAT)
        if pick < 0.8:
            return "%s %s the %s %s." % (self.r.choice(PEOPLE + ["We", "I", "She"]), self.r.choice(CHAT_VERBS),
                                        self.r.choice(CHAT_NOUNS), self.r.choice(["yesterday", "on the weekend", "last week",
                                                                                   "this morning", "again", "for the kids"]))
        return "%s %s %s about the %s." % (self.r.choice(["I", "We", "Maybe we", "Then we"]), self.r.choice(CHAT_VERBS),
                                          self.r.choice(["nothing", "a lot", "something new", "it twice"]), self.r.choice(CHAT_NOUNS))

    def chat_paragraph(self, lo=1, hi=4):
        return " ".join(self.chat_line() for _ in range(self.r.randint(lo, hi)))

    def code_words(self, n):
        return " ".join(self.r.choice(CODE_COMMON) if self.r.random() < 0.8 else self.r.choice(CODE_TOPICS)
                        for _ in range(n))

    def code_paragraph(self, lo=1, hi=4):
        return " ".join(self.code_words(self.r.randint(6, 16)).capitalize() + "." for _ in range(self.r.randint(lo, hi)))

    def code_output(self, lines):
        paths = ["src/%s/%s.ts" % (self.r.choice(CODE_TOPICS), self.r.choice(CODE_TOPICS)) for _ in range(4)]
        return "\n".join("%s:%d: %s" % (self.r.choice(paths), self.r.randint(1, 900), self.code_words(8))
                         for _ in range(lines))

    # -- sessions --------------------------------------------------------------------------------

    def open_session(self, project, kind):
        start = NOW - dt.timedelta(days=self.r.uniform(1, 200), minutes=self.r.randint(0, 600))
        sid = str(uuid.UUID(int=self.r.getrandbits(128), version=4))
        cwd = self.cwds[project]
        directory = os.path.join(self.sessions_dir, "--" + cwd.strip("/").replace("/", "-") + "--")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, start.strftime("%Y-%m-%dT%H-%M-%S-000Z") + "_" + sid + ".jsonl")
        self.sessions.append({"id": sid, "path": path, "project": project, "kind": kind})
        return sid, Writer(self.r, path, sid, cwd, start)

    def filler_turn(self, w, project):
        if project in CODING:
            w.user(self.code_paragraph(1, 3) + (" " + self.r.choice(CHAT) if self.r.random() < 0.3 else ""))
            calls = w.assistant(self.code_paragraph(1, 3),
                                [("bash", {"command": "npm test -- " + self.r.choice(CODE_TOPICS)})]
                                if self.r.random() < 0.5 else [])
            for call in calls:
                w.result(call, self.code_output(self.r.randint(3, 25)))
            if calls:
                w.assistant(self.code_paragraph(1, 2))
        else:
            w.user(self.chat_paragraph(1, 4))
            w.assistant(self.r.choice(ASSISTANT_CHAT) + " " + self.chat_paragraph(0, 2))

    def conversation(self, project, kind, plants, turns):
        """A session of `turns` filler turns with each plant (a list of (role, text) turns) at a random place."""
        sid, w = self.open_session(project, kind)
        if self.r.random() < 0.4:
            w.name(self.chat_line() if project in PERSONAL else " ".join(self.r.sample(CODE_TOPICS, 3)))
        at = sorted(self.r.sample(range(turns + 1), len(plants)))
        k = 0
        for t in range(turns + 1):
            while k < len(plants) and at[k] == t:
                for role, text in plants[k]:
                    if role == "user":
                        w.user(text)
                    else:
                        w.assistant(text)
                k += 1
            if t < turns:
                self.filler_turn(w, project)
        text = "\n".join(w.text)
        self.words_of[sid] = set(re.findall(r"[a-z0-9]+", text.lower()))
        w.close()
        return sid, text

    def plant_turns(self, fact):
        if fact["said_by"] == "user":
            ack = self.r.choice(["Got it, I'll remember that.", "Noted.", "Oh nice, thanks for telling me.",
                                 "Okay. Anything you want me to do about it?", "Understood."])
            return [("user", fact["user"][0]), ("assistant", ack)]
        return [("user", fact["assistant_ask"]), ("assistant", fact["assistant"][0])]

    def make_facts(self):
        facts = []
        for i in range(self.a.facts):
            coding = i % 3 == 0
            kind = (CODING_KINDS if coding else PERSONAL_KINDS)[(i // 3 if coding else i) % len(CODING_KINDS if coding else PERSONAL_KINDS)]
            f = getattr(self.facts, kind)()
            f["kind"] = kind
            f["id"] = "f%03d" % i
            f["project"] = self.r.choice(CODING if coding else PERSONAL)
            f["said_by"] = "assistant" if kind in ALWAYS_ASSISTANT or self.r.random() < ASSISTANT_SHARE else "user"
            f["split"] = "tune" if i % 2 == 0 else "heldout"
            facts.append(f)
        return facts

    def run(self):
        facts = self.make_facts()
        # Facts go 1-3 to a session of their project, like the days of a long conversation.
        by_project = {}
        for f in facts:
            by_project.setdefault(f["project"], []).append(f)
        for project, fs in sorted(by_project.items()):
            self.r.shuffle(fs)
            i = 0
            while i < len(fs):
                n = self.r.choice([1, 1, 2, 2, 3])
                group = fs[i:i + n]
                i += n
                sid, _ = self.conversation(project, "fact", [self.plant_turns(f) for f in group],
                                           self.r.randint(8, 30))
                for f in group:
                    f["answers"] = [sid]
        # A tenth of the facts told again in a later session (both answer).
        for f in self.r.sample(facts, len(facts) // 10):
            again = dict(f, said_by="user" if f["said_by"] == "assistant" else "assistant")
            sid, _ = self.conversation(f["project"], "fact-again", [self.plant_turns(again)], self.r.randint(6, 20))
            f["answers"].append(sid)
        self.distractors(facts)
        questions = self.questions(facts)
        facts_by_id = {f["id"]: f for f in facts}
        for q in questions:
            self.hardness(q, facts_by_id.get(q["fact"]))
        out = {"now": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"), "projects": self.cwds, "questions": questions}
        with open(os.path.join(self.root, "questions.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
        with open(os.path.join(self.root, "sessions.json"), "w", encoding="utf-8") as f:
            json.dump({"sessions_dir": self.sessions_dir, "sessions": self.sessions}, f, indent=1, ensure_ascii=False)
        return out

    def hardness(self, q, fact):
        """How lexically hard a question is: the share of its content words found as-is in the
        answer's own turns and anywhere in its best answering session, and its rivals: sessions
        that do not answer it but hold as many of its content words (in its project, anywhere)."""
        words = set(content_words(q["question"]))
        cover = lambda sid: len(words & self.words_of[sid]) / max(1, len(words))
        best = max((cover(s) for s in q["answers"]), default=0.0)
        project = {s["id"]: s["project"] for s in self.sessions}
        rivals = [s for s in self.words_of if s not in q["answers"] and words and cover(s) >= best]
        q["overlap_session"] = round(best, 3) if q["answers"] else None
        if fact:
            turns = fact["user"] if fact["said_by"] == "user" else [fact["assistant_ask"]] + fact["assistant"]
            have = set(re.findall(r"[a-z0-9]+", " ".join(turns).lower()))
            q["overlap_answer"] = round(len(words & have) / max(1, len(words)), 3)
        else:
            q["overlap_answer"] = None
        q["rivals_project"] = sum(1 for s in rivals if project[s] == q["project"]) if q["answers"] else None
        q["rivals_all"] = len(rivals) if q["answers"] else None

    def echo(self, fact):
        """A turn in another context holding a question's words but not its answer: the fact's
        person (if any) and up to two of the question's other content words."""
        cls, text = self.r.choice(fact["questions"])
        person = next((p for p in PEOPLE if re.search(r"\b%s\b" % p, text)), None)
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9'-]*", text.replace("'s", ""))
                 if w.lower() not in STOP and w != person]
        self.r.shuffle(words)
        a, b = (words + ["plan", "weekend"])[:2]
        who = person or self.r.choice(["Someone", "The new intern", "My neighbour", "Our lead"])
        lines = self.r.choice([
            [("user", "%s asked about the %s again, and something about %s. What did it look like when you checked?" % (who, a, b)),
             ("assistant", "I have nothing new on that yet. How did it go on your side?")],
            [("user", "Not the same thing at all, but %s mentioned %s at lunch." % (who, a)),
             ("assistant", "When did we last talk about %s? I don't think we decided anything." % b)],
            [("user", "What did you think of the %s idea?" % a),
             ("assistant", "%s brought up %s too, but nobody wrote anything down. What did it look like to you?" % (who, b))],
        ])
        return lines

    def distractors(self, facts):
        """Sessions of the questions' stop, question and common words (chatter), and near misses:
        echoes of half the facts' questions (their person and words, other context), most in
        another project, so that over the whole store other projects compete on common words."""
        echoes = {p: [] for p in PROJECTS}
        for f in self.r.sample(facts, len(facts) // 2):
            other = f["project"] if self.r.random() < 0.3 else self.r.choice([p for p in PROJECTS if p != f["project"]])
            echoes[other].append(self.echo(f))
        n = self.a.chatter + self.a.near_miss
        for i in range(n):
            project = PROJECTS[i % len(PROJECTS)]
            kind = "chatter" if i < self.a.chatter else "near-miss"
            plants = []
            while echoes[project] and len(plants) < (1 if kind == "chatter" else 3):
                plants.append(echoes[project].pop())
            self.conversation(project, kind, plants, self.r.randint(8, 30))
        for project, left in sorted(echoes.items()):
            for i in range(0, len(left), 3):
                self.conversation(project, "near-miss", left[i:i + 3], self.r.randint(8, 30))

    def questions(self, facts):
        out = []
        for f in facts:
            for cls, text in f["questions"]:
                out.append({"split": f["split"], "class": cls, "said_by": f["said_by"], "fact": f["id"],
                            "kind": f["kind"], "project": f["project"], "question": text, "answers": list(f["answers"])})
        n_none = max(len(out) // 8, 60)
        for i in range(n_none):
            template = UNANSWERABLE[i % len(UNANSWERABLE)]
            text = template.format(A=self.r.choice(ABSENT_PEOPLE), P=self.r.choice(PEOPLE), place=self.r.choice(["Reykjavik", "Nairobi", "Hanoi"]),
                                   title=self.r.choice(ABSENT_TITLES), w=self.r.choice(["birthday", "anniversary"]))
            coding = any(w in template for w in ("switch", "kafka", "graphql", "rotate", "mobile app", "wishlist"))
            out.append({"split": "tune" if i % 2 == 0 else "heldout", "class": "unanswerable", "said_by": None,
                        "fact": None, "kind": None, "project": self.r.choice(CODING if coding else PERSONAL),
                        "question": text, "answers": []})
        for i, q in enumerate(out):
            q["id"] = "q%04d" % i
        return [dict([("id", q.pop("id"))] + list(q.items())) for q in out]


STOP = set("""a an the of to in on at for by with from and or but if so as is are was were be been being am do does did
done have has had having i me my we our you your she her he him his it its they them their this that these those what
when where who whom which why how whats wheres whos hows didnt dont not no yes can could would should will shall may
might must about again still just also there here then than too very s t into over out up down off my i'm""".split())


def content_words(text):
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--facts", type=int, default=216)
    p.add_argument("--chatter", type=int, default=50)
    p.add_argument("--near-miss", type=int, default=70)
    args = p.parse_args(argv)
    out = Set(args).run()
    qs = out["questions"]
    by = {}
    for q in qs:
        by[q["class"]] = by.get(q["class"], 0) + 1
    sessions = sum(1 for _ in open(os.path.join(args.out, "sessions.json")) if '"id":' in _)
    print(json.dumps({"questions": len(qs), "sessions": sessions, "by_class": dict(sorted(by.items())),
                      "assistant_only": sum(1 for q in qs if q["said_by"] == "assistant"),
                      "tune": sum(1 for q in qs if q["split"] == "tune")}))


if __name__ == "__main__":
    main()
