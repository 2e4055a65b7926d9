"""The version of every JSON document truegreen prints or keeps, one constant per kind.

Writers write the constant named here and readers compare with it; docs/formats.md's table
is generated from :data:`DOCUMENTS`. Every document keys its version ``"format"`` but the
event stream, which keys it ``"v"`` (its version lives with its schema, in core/events.py).
The keys stay as released: renaming one would break every reader for no gain.

The shard manifest's schema is here too (:data:`MANIFEST_FIELDS`), in the event schema's terms
(:class:`events.Field`): core/manifests.py validates every manifest with it, and the manifest
table of docs/sharding.md is generated from it.
"""

from __future__ import annotations

from truegreen.core import events
from truegreen.core.events import BOOL, INT, LISTS_MAP, OBJECT, STR, STRING_MAP, STRINGS, Field

FORMAT_KEY = "format"

SHARD_MANIFEST = 1
SHARDS_VERIFY = 1
SHARDS_PLAN = 1
METRICS = 2  # 2: parallel_efficiency over the tests' wall clock, null for one process
ABLATE = 1
ABLATE_DISCOVER = 1
LEAKS = 1
FLAKES = 1
DOCTOR = 1
PLATFORMS = 1
DOCS_CHECK = 1
COLLECT_GATE = 1
AUDIT = 1
ENV_INVENTORY = 1
DIFF = 1
REPRO = 1
# Files the command and the plugin in a pytest it starts pass between them (core/protocol.py);
# internal, so not in the table of documents a user reads.
UNITS = 1
COLLECT_RECORD = 1

# (what the document is, its version's key, the version)
DOCUMENTS: tuple[tuple[str, str, int], ...] = (
    ("the event stream, one file per process (`--truegreen-metrics`)", events.VERSION_KEY,
     events.VERSION),
    ("a shard manifest, `shard-K-of-N.json` (`--truegreen-manifest`)", FORMAT_KEY,
     SHARD_MANIFEST),
    ("`truegreen shards verify --format json`", FORMAT_KEY, SHARDS_VERIFY),
    ("`truegreen shards plan --format json`", FORMAT_KEY, SHARDS_PLAN),
    ("`truegreen metrics --format json`", FORMAT_KEY, METRICS),
    ("`truegreen ablate --format json`", FORMAT_KEY, ABLATE),
    ("`truegreen ablate --discover --format json`", FORMAT_KEY, ABLATE_DISCOVER),
    ("`truegreen leaks --format json`", FORMAT_KEY, LEAKS),
    ("`truegreen flakes --format json`", FORMAT_KEY, FLAKES),
    ("`truegreen doctor --format json`", FORMAT_KEY, DOCTOR),
    ("`truegreen platforms --format json`", FORMAT_KEY, PLATFORMS),
    ("`truegreen docs-check --format json`", FORMAT_KEY, DOCS_CHECK),
    ("`truegreen collect-gate --format json`", FORMAT_KEY, COLLECT_GATE),
    ("`truegreen audit --format json` and `--list-rules --format json`", FORMAT_KEY, AUDIT),
    ("`truegreen env-inventory --format json`", FORMAT_KEY, ENV_INVENTORY),
    ("`truegreen diff --format json`", FORMAT_KEY, DIFF),
    ("`truegreen repro --format json`", FORMAT_KEY, REPRO),
)  # fmt: skip

# A test's outcome in a shard manifest, and those that make a shard red.
OUTCOMES = ("passed", "failed", "skipped", "error", "xfailed", "xpassed")
RED_OUTCOMES = ("failed", "error")
SHARD_MODES = ("digest", "duration", "external")

# A shard manifest's fields, by format version. A manifest is written three times: as the
# session starts (the fields marked required, and where it runs), as collection ends (every field,
# `complete` false, no outcomes yet) and as the session ends (every field, `complete` true).
# A field not marked required may be missing until `complete` is true, and then must be there.
MANIFEST_FIELDS: dict[int, tuple[Field, ...]] = {
    1: (
        Field(FORMAT_KEY, INT, "the manifest's version, 1"),
        Field("k", INT, "the shard, from 1 to `n`", minimum=1),
        Field("n", INT, "the number of shards", minimum=1),
        Field("complete", BOOL, "whether the session ended (false: it crashed or was killed, "
              "or is still running)"),
        Field("mode", STR, "`digest`, `duration` or `external`", required=False,
              choices=SHARD_MODES),
        Field("collected", STRINGS, "every node id collected, before any selection",
              required=False),
        Field("collected_digest", STR, "the SHA-256 of `collected`, one id a line",
              required=False),
        Field("selection", OBJECT, "the command line's arguments (`args`), `-k` (`keyword`) "
              "and `-m` (`markexpr`)", required=False,
              fields=(Field("args", STRINGS), Field("keyword", STR), Field("markexpr", STR))),
        Field("eligible", STRINGS, "the collected node ids your selection kept (all but those "
              "`deselected` by pytest's own `-k`, `-m`, `--deselect`, `--lf`, ... or by "
              "truegreen's own runs): what the shards share out, whoever splits them",
              required=False),
        Field("selected", STRINGS, "the node ids this shard kept once every plugin had cut the "
              "collection: what it ran", required=False),
        Field("deselected", LISTS_MAP, "who deselected what: the module that reported the "
              "deselection (`_pytest.mark` for `-k`/`-m`, `_pytest.main` for `--deselect`, "
              "`pytest_split.plugin`, `conftest`, ...) to the node ids it deselected; "
              "truegreen's own shard cut is not listed", required=False),
        Field("units", STRING_MAP, "node id to its unit (the tests that stay in one shard)",
              required=False),
        Field("outcomes", STRING_MAP, "node id to " + ", ".join(f"`{o}`" for o in OUTCOMES)
              + "; every one a collected test", required=False, choices=OUTCOMES),
        Field("must_run", STRINGS, "the `must-run` patterns in effect", required=False),
        Field("exitstatus", INT, "pytest's exit status once the session ended: never 0 when an "
              "outcome is `failed` or `error` (but a guard may fail a session whose tests all "
              "passed)", null=True, required=False, minimum=0),
        Field("commit", STR, "the commit the run tested: `GITHUB_SHA` when set, else "
              "`git rev-parse HEAD` of the root directory; null outside a git checkout",
              null=True, required=False),
        Field("run_id", STR, "the CI run (`GITHUB_RUN_ID`); null outside GitHub Actions",
              null=True, required=False),
        Field("run_attempt", INT, "the run's attempt (`GITHUB_RUN_ATTEMPT`; a re-run job counts "
              "up); null outside GitHub Actions", null=True, required=False, minimum=1),
        Field("os", STR, "the operating system as the `platforms` marker names it: `linux`, "
              "`macos`, `windows` (another system: its `sys.platform`)", required=False),
        Field("arch", STR, "the CPU architecture as the marker's `arch` names it (`x86_64`, "
              "`arm64`, ...)", required=False),
        Field("python", STR, "the Python that ran the tests, e.g. `cpython-3.12.4`",
              required=False),
        Field("lane", STR, "the lane: the `lane` key (`TRUEGREEN_LANE`), else "
              "`<os>-<arch>-<python>`, e.g. `linux-x86_64-py3.12`", required=False),
        Field("platforms", LISTS_MAP, "node id of every collected test with a `platforms` "
              "marker to the marker's specs, then `arch=NAME` for each architecture it names",
              required=False),
    ),
}  # fmt: skip
# Fields added to format 1 after its release: a manifest written before has none of them, even
# once `complete` (so `shards verify` reads it, and refuses it only where it needs them); each
# is checked whenever it is there.
MANIFEST_LATER = frozenset({"commit", "run_id", "run_attempt", "os", "arch", "python", "lane",
                            "platforms"})  # fmt: skip
