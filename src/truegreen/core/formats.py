"""The version of every JSON document truegreen prints or keeps, one constant per kind.

Writers write the constant named here and readers compare with it; docs/formats.md's table
is generated from :data:`DOCUMENTS`. Every document keys its version ``"format"`` but the
event stream, which keys it ``"v"`` (its version lives with its schema, in core/events.py).
The keys stay as released: renaming one would break every reader for no gain.
"""

from __future__ import annotations

from truegreen.core import events

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
)  # fmt: skip
