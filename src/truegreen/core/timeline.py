"""The HTML timeline of a run: one lane per process, one bar per test, in one file.

Self-contained: the data and the script are inside the page, nothing is fetched when it is
viewed. Hovering a bar shows the test and its phases; unfinished tests are marked; the
slowest fixture setups are listed beside the timeline.
"""

from __future__ import annotations

import json
from typing import Any

from truegreen.core import events
from truegreen.core.metrics import Stream


def timeline_data(streams: list[Stream]) -> dict[str, Any]:
    """Lanes of bars: ``{"lanes": [{"name", "bars": [{test, start, end, phases, ...}]}]}``."""
    times = [r["t"] for s in streams for r in s.records if isinstance(r.get("t"), (int, float))]
    origin = min(times) if times else 0.0
    lanes = []
    fixtures: list[dict[str, Any]] = []
    for stream in streams:
        bars: dict[str, dict[str, Any]] = {}
        last = origin
        for record in stream.records:
            raw = record.get("t")
            t = float(raw) if isinstance(raw, (int, float)) else last
            last = max(last, t)
            event = record.get(events.EVENT)
            if event == events.TEST_START:
                bars[record["test"]] = {"test": record["test"], "start": t - origin, "end": None,
                                        "phases": [], "fixtures": []}  # fmt: skip
            elif (
                event in (events.PHASE, events.FIXTURE, events.TEST_END)
                and record.get("test") in bars
            ):
                bar = bars[record["test"]]
                if event == events.PHASE:
                    bar["phases"].append(
                        [record["phase"], record["outcome"], round(record["duration"], 4)]
                    )
                elif event == events.FIXTURE:
                    bar["fixtures"].append([record["fixture"], round(record["duration"], 4)])
                    fixtures.append({"fixture": record["fixture"], "test": record["test"],
                                     "seconds": record["duration"]})  # fmt: skip
                else:
                    bar["end"] = t - origin
        if not bars:
            continue
        for bar in bars.values():
            bar["unfinished"] = bar["end"] is None
            if bar["end"] is None:
                bar["end"] = last - origin
        lanes.append({"name": stream.path.name, "bars": list(bars.values())})
    fixtures.sort(key=lambda f: -f["seconds"])
    total = (max(times) - origin) if times else 0.0
    return {"total": total, "lanes": lanes, "slow_fixtures": fixtures[:15]}


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>truegreen timeline</title>
<style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
.lane{position:relative;height:22px;margin:2px 0 2px 180px;background:#f3f3f3}
.lane-name{position:absolute;left:-180px;width:174px;overflow:hidden;white-space:nowrap}
.bar{position:absolute;top:2px;height:18px;background:#4a8;border-right:1px solid #fff;
min-width:1px;box-sizing:border-box}
.bar.failed{background:#d44}.bar.skipped{background:#bbb}
.bar.unfinished{background:repeating-linear-gradient(45deg,#e90,#e90 4px,#fc6 4px,#fc6 8px)}
#tip{position:fixed;display:none;background:#222;color:#fff;padding:6px 8px;border-radius:4px;
white-space:pre;pointer-events:none;max-width:60em}
table{border-collapse:collapse;margin-top:16px}td,th{padding:2px 10px;text-align:left}
</style></head><body>
<h1>truegreen timeline</h1>
<p id="summary"></p>
<div id="lanes"></div>
<h2>Slowest fixture setups</h2>
<table id="fixtures"><tr><th>fixture</th><th>seconds</th><th>test</th></tr></table>
<div id="tip"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
var data = JSON.parse(document.getElementById("data").textContent);
var total = data.total > 0 ? data.total : 1;
var lanes = document.getElementById("lanes");
var tip = document.getElementById("tip");
var count = 0, unfinished = 0;
data.lanes.forEach(function (lane) {
  var row = document.createElement("div");
  row.className = "lane";
  var name = document.createElement("div");
  name.className = "lane-name";
  name.textContent = lane.name;
  row.appendChild(name);
  lane.bars.forEach(function (bar) {
    var el = document.createElement("div");
    var outcome = "passed";
    bar.phases.forEach(function (p) { if (p[1] !== "passed") { outcome = p[1]; } });
    el.className = "bar " + outcome + (bar.unfinished ? " unfinished" : "");
    el.style.left = (100 * bar.start / total) + "%";
    el.style.width = (100 * Math.max(bar.end - bar.start, 0) / total) + "%";
    var lines = [bar.test + (bar.unfinished ? "  (never finished)" : "")];
    bar.phases.forEach(function (p) { lines.push(p[0] + ": " + p[1] + " " + p[2] + "s"); });
    bar.fixtures.forEach(function (f) { lines.push("fixture " + f[0] + ": " + f[1] + "s"); });
    el.dataset.tip = lines.join("\\n");
    el.addEventListener("mousemove", function (e) {
      tip.textContent = el.dataset.tip;
      tip.style.display = "block";
      tip.style.left = (e.clientX + 12) + "px";
      tip.style.top = (e.clientY + 12) + "px";
    });
    el.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    row.appendChild(el);
    count += 1;
    if (bar.unfinished) { unfinished += 1; }
  });
  lanes.appendChild(row);
});
document.getElementById("summary").textContent = count + " tests in " + data.lanes.length +
  " processes over " + total.toFixed(2) + "s" + (unfinished ? "; " + unfinished +
  " never finished (striped)" : "");
var table = document.getElementById("fixtures");
data.slow_fixtures.forEach(function (f) {
  var tr = document.createElement("tr");
  [f.fixture, f.seconds.toFixed(3), f.test].forEach(function (text) {
    var td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
  });
  table.appendChild(tr);
});
</script></body></html>
"""


def render(streams: list[Stream]) -> str:
    """The page. The data sits in a JSON script block; ``</`` is escaped so no test name can
    end the block early."""
    payload = json.dumps(timeline_data(streams)).replace("</", "<\\/")
    return _PAGE.replace("__DATA__", payload)
