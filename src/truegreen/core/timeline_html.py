"""The HTML timeline of a run, in one self-contained page.

The data and the script are inside the page; nothing is fetched when it is viewed (no CDN,
no font, no network), so it opens from a CI artifact as it is. A time axis above the lanes
(one per pytest process, named ``gw0``, ``controller``, ``session`` or the file a session
ran), each session's span in grey behind its tests, each test a bar coloured by its outcome
and split into its setup, call and teardown, a legend, hover with the test's id, phases and
fixture setups, a zoom; beside it the slowest tests, the costliest files and the slowest
fixture setups (hovering a slow test marks its bar).
"""

from __future__ import annotations

import json
from typing import Any

from truegreen.core.metrics import Stream, summarize
from truegreen.core.timeline import build

TOP = 12


def page_data(streams: list[Stream], run: str = "") -> dict[str, Any]:
    """What the page draws, as JSON."""
    timeline = build(streams)
    summary = summarize(streams)
    counts: dict[str, int] = {}
    lanes: list[dict[str, Any]] = []
    outcome_of: dict[str, str] = {}
    for lane in timeline.lanes:
        bars = []
        for bar in lane.bars:
            if not bar.unfinished:  # counted apart: its outcome was never known
                counts[bar.outcome] = counts.get(bar.outcome, 0) + 1
            outcome_of[bar.test] = "unfinished" if bar.unfinished else bar.outcome
            bars.append({
                "test": bar.test, "start": round(bar.start, 6), "end": round(bar.end, 6),
                "outcome": bar.outcome, "unfinished": bar.unfinished,
                "phases": [[w, o, round(s, 6), round(d, 6)] for w, o, s, d in bar.phases],
                "fixtures": [[n, c, round(s, 6), round(d, 6)] for n, c, s, d in bar.fixtures],
                "teardowns": [[n, c, round(s, 6), round(d, 6)] for n, c, s, d in bar.teardowns],
            })  # fmt: skip
        lanes.append({"name": lane.name, "kind": lane.kind, "pid": lane.pid,
                      "start": round(lane.start, 6), "end": round(lane.end, 6), "bars": bars,
                      "spawns": [[round(t, 6), p] for t, p in lane.spawns]})  # fmt: skip
    files: dict[str, int] = {}
    for test in summary.tests:
        path = test.split("::", 1)[0]
        files[path] = files.get(path, 0) + 1
    return {
        "run": run,
        "origin": timeline.origin,
        "total": round(timeline.total, 6),
        "lanes": lanes,
        "counts": counts,
        "unfinished": len(summary.unfinished),
        "slow_tests": [[t, round(s, 4), outcome_of.get(t, "passed")] for t, s in
                       sorted(summary.tests.items(), key=lambda i: -i[1])[:TOP]],
        "slow_files": [[f, round(s, 4), files.get(f, 0)] for f, s in
                       sorted(summary.files.items(), key=lambda i: -i[1])[:TOP]],
        "fixtures": _costliest(lanes, "fixtures")[:TOP],
        "teardowns": _costliest(lanes, "teardowns")[:TOP],
    }  # fmt: skip


def _costliest(lanes: list[dict[str, Any]], key: str) -> list[list[Any]]:
    """Per fixture and scope, from the bars' ``key`` (setups or teardowns): [name, scope,
    times, seconds, the slowest, its test], the costliest first."""
    by_fixture: dict[tuple[str, str], list[Any]] = {}  # -> [times, seconds, slowest, its test]
    for drawn in lanes:
        for bar in drawn["bars"]:
            for name, scope, _, seconds in bar[key]:
                entry = by_fixture.setdefault((name, scope), [0, 0.0, -1.0, ""])
                entry[0] += 1
                entry[1] += seconds
                if seconds > entry[2]:
                    entry[2], entry[3] = seconds, bar["test"]
    return sorted(
        ([name, scope, n, round(total, 6), round(slowest, 6), test]
         for (name, scope), (n, total, slowest, test) in by_fixture.items()),
        key=lambda f: -f[3],
    )  # fmt: skip


def render(streams: list[Stream], run: str = "") -> str:
    """The page. The data sits in a JSON script block; ``</`` is escaped so no test name can
    end the block early."""
    payload = json.dumps(page_data(streams, run)).replace("</", "<\\/")
    return _PAGE.replace("__DATA__", payload)


_PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>truegreen timeline</title>
<style>
:root{--passed:#2f9e5b;--failed:#d6402b;--error:#9c36b5;--skipped:#a9b1ba;--xfailed:#e2a03f;
--unfinished:#e8590c;--ink:#1f2328;--muted:#656d76;--line:#d8dee4;--band:#eef1f4;--label:150px;--lane:30px}
*{box-sizing:border-box}
body{font:13px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--ink);
background:#fff}
header{padding:16px 20px 8px;border-bottom:1px solid var(--line)}
h1{font-size:18px;margin:0 0 2px}h1 small{font-weight:400;color:var(--muted);font-size:13px}
#summary{color:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin-top:8px;align-items:center}
.key{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:14px;height:12px;border-radius:2px}
.sw-setup{background:var(--passed);opacity:.45}.sw-band{background:var(--band);
border:1px solid var(--line)}.sw-tick{width:2px;background:#444}
main{display:grid;grid-template-columns:minmax(0,1fr) 380px;gap:20px;padding:14px 20px}
@media (max-width:1000px){main{grid-template-columns:1fr}}
.tools{display:flex;gap:10px;align-items:center;margin-bottom:6px;color:var(--muted)}
#chart{display:grid;grid-template-columns:var(--label) minmax(0,1fr);border:1px solid
var(--line);border-radius:6px;overflow:hidden}
#labels{border-right:1px solid var(--line);background:#fafbfc}
.label,.axis-label{height:var(--lane);padding:0 8px;display:flex;align-items:center;
white-space:nowrap;overflow:hidden;text-overflow:ellipsis;border-bottom:1px solid #f0f2f4}
.axis-label{height:26px;color:var(--muted);font-size:11px}
.label .kind{color:var(--muted);font-size:11px;margin-left:6px}
#scroller{overflow-x:auto;position:relative}
#canvas{position:relative;min-width:100%;overflow:hidden}
#axis{position:relative;height:26px;border-bottom:1px solid var(--line)}
.tick{position:absolute;top:0;height:100%;border-left:1px solid var(--line)}
.tick span{position:absolute;left:3px;top:6px;font-size:11px;color:var(--muted);
white-space:nowrap}
.grid{position:absolute;top:26px;bottom:0;border-left:1px dashed #eceff2;pointer-events:none}
.lane{position:relative;height:var(--lane);border-bottom:1px solid #f0f2f4}
.band{position:absolute;top:3px;bottom:3px;background:var(--band);border-radius:3px}
.bar{position:absolute;top:6px;bottom:6px;min-width:2px;border-radius:2px;cursor:default;
overflow:hidden;background:var(--c)}
.bar.passed{--c:var(--passed)}.bar.failed{--c:var(--failed)}.bar.error{--c:var(--error)}
.bar.skipped{--c:var(--skipped)}.bar.xfailed{--c:var(--xfailed)}
.seg{position:absolute;top:0;bottom:0;background:var(--c)}
.bar[data-phased]{background:color-mix(in srgb,var(--c) 14%,#fff);
box-shadow:inset 0 0 0 1px var(--c)}
.seg.setup,.seg.teardown{opacity:.45}
.bar.unfinished{background:repeating-linear-gradient(45deg,var(--c),var(--c) 4px,#fff 4px,
#fff 7px);outline:1px solid var(--c)}
.bar:hover,.bar.hl{outline:2px solid var(--ink);z-index:2}
.spawn{position:absolute;top:1px;width:2px;height:5px;background:#444;opacity:.7}
#tip{position:fixed;display:none;background:#1f2328;color:#fff;padding:8px 10px;
border-radius:6px;pointer-events:none;max-width:640px;font-size:12px;z-index:10;
box-shadow:0 4px 14px rgba(0,0,0,.25)}
#tip b{display:block;word-break:break-all;margin-bottom:4px}
#tip table{border-collapse:collapse}#tip td{padding:0 10px 0 0;vertical-align:top}
#tip .dim{color:#b6bec8}
aside h2{font-size:14px;margin:0 0 6px}aside section{margin-bottom:18px}
aside table{width:100%;border-collapse:collapse;table-layout:fixed}
aside td{padding:3px 4px;border-bottom:1px solid #f0f2f4;overflow:hidden;
text-overflow:ellipsis;white-space:nowrap}
aside td.num{width:74px;text-align:right;font-variant-numeric:tabular-nums}
aside td.n{width:84px;text-align:right;color:var(--muted)}
aside tr.row:hover{background:#f6f8fa}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:6px;
vertical-align:middle;background:var(--c)}
.empty{color:var(--muted)}
</style></head><body>
<header>
<h1>truegreen timeline <small id="run"></small></h1>
<div id="summary"></div>
<div class="legend" id="legend"></div>
</header>
<main>
<section>
<div class="tools"><span>show</span>
<label><input type="radio" name="view" id="view-all" checked> the whole session</label>
<label><input type="radio" name="view" id="view-tests"> the tests only</label>
<label>zoom <input id="zoom" type="range" min="1" max="40" value="1"></label>
<span id="zoomed">1x</span><span>&middot; hover a bar for its test, phases and fixtures</span></div>
<div id="chart"><div id="labels"></div><div id="scroller"><div id="canvas">
<div id="axis"></div></div></div></div>
</section>
<aside>
<section><h2>Slowest tests</h2><table id="slow-tests"></table></section>
<section><h2>Costliest files</h2><table id="slow-files"></table></section>
<section><h2>Fixture setups</h2><table id="slow-fixtures"></table></section>
<section><h2>Fixture teardowns</h2><table id="slow-teardowns"></table></section>
</aside>
</main>
<div id="tip"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
var data = JSON.parse(document.getElementById("data").textContent);
var OUTCOMES = ["passed", "failed", "error", "skipped", "xfailed"];
// the span of time drawn: the whole session, or the tests only
var lo = 0, hi = data.total > 0 ? data.total : 1;
var firstTest = Infinity, lastTest = -Infinity;
data.lanes.forEach(function (lane) {
  lane.bars.forEach(function (bar) {
    firstTest = Math.min(firstTest, bar.start);
    lastTest = Math.max(lastTest, bar.end);
  });
});
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) { e.className = cls; }
  if (text !== undefined) { e.textContent = text; }
  return e;
}
function plural(n, word, many) { return n + " " + (n === 1 ? word : (many || word + "s")); }
function secs(s) {
  if (s === 0) { return "0 s"; }
  if (s < 0.001) { return (s * 1e6).toFixed(0) + " \u00b5s"; }
  if (s < 1) { return (s * 1000).toFixed(s < 0.01 ? 2 : 1) + " ms"; }
  if (s < 60) { return s.toFixed(2) + " s"; }
  return Math.floor(s / 60) + "m " + (s % 60).toFixed(0) + "s";
}
function round(s) {  // an axis label: 0.05 s is "50 ms", 2 s is "2 s"
  if (s === 0) { return "0 s"; }
  if (s < 1) { return Number((s * 1000).toPrecision(6)) + " ms"; }
  return Number(s.toPrecision(6)) + " s";
}
function pct(t) { return (100 * (t - lo) / (hi - lo)) + "%"; }
function len(d) { return (100 * d / (hi - lo)) + "%"; }

// header: what ran, where, for how long
var tests = data.unfinished;
OUTCOMES.forEach(function (o) { tests += data.counts[o] || 0; });
var parts = OUTCOMES.filter(function (o) { return data.counts[o]; })
  .map(function (o) { return data.counts[o] + " " + o; });
var names = data.lanes.map(function (l) { return l.name; });
document.getElementById("summary").textContent = plural(tests, "test") +
  (parts.length ? " (" + parts.join(", ") + ")" : "") + " in " +
  plural(data.lanes.length, "process", "processes") +
  (names.length && names.length <= 6 ? " (" + names.join(", ") + ")" : "") +
  " over " + secs(data.total) +
  (data.unfinished ? "; " + data.unfinished + " never finished (striped)" : "");
if (data.run) { document.getElementById("run").textContent = "run " + data.run; }

var legend = document.getElementById("legend");
function key(swatch, text) {
  var k = el("span", "key");
  k.appendChild(swatch);
  k.appendChild(document.createTextNode(text));
  legend.appendChild(k);
}
OUTCOMES.forEach(function (o) {
  var sw = el("span", "sw");
  sw.style.background = "var(--" + o + ")";
  key(sw, o);
});
var striped = el("span", "sw");
striped.style.background =
  "repeating-linear-gradient(45deg,#d6402b,#d6402b 3px,#fff 3px,#fff 5px)";
key(striped, "never finished");
key(el("span", "sw sw-setup"), "setup and teardown (lighter)");
key(el("span", "sw sw-band"), "the process's session (collection, cleanup)");
key(el("span", "sw sw-tick"), "a program started");

var labels = document.getElementById("labels");
var canvas = document.getElementById("canvas");
var axis = document.getElementById("axis");
var tip = document.getElementById("tip");
var byTest = {};
function showTip(e, rows, title) {
  tip.textContent = "";
  tip.appendChild(el("b", "", title));
  var table = el("table");
  rows.forEach(function (r) {
    var tr = el("tr");
    tr.appendChild(el("td", "dim", r[0]));
    tr.appendChild(el("td", "", r[1]));
    table.appendChild(tr);
  });
  tip.appendChild(table);
  tip.style.display = "block";
  var x = e.clientX + 14, y = e.clientY + 14;
  var w = tip.offsetWidth, h = tip.offsetHeight;
  if (x + w > window.innerWidth - 8) { x = Math.max(8, e.clientX - w - 14); }
  if (y + h > window.innerHeight - 8) { y = Math.max(8, e.clientY - h - 14); }
  tip.style.left = x + "px";
  tip.style.top = y + "px";
}
function hideTip() { tip.style.display = "none"; }
function hover(node, rows, title) {
  node.addEventListener("mousemove", function (e) {
    e.stopPropagation();
    showTip(e, rows, title);
  });
  node.addEventListener("mouseleave", hideTip);
}

// the lanes: one per process, its session in grey behind its tests
labels.appendChild(el("div", "axis-label", "process"));
var rows = [];
data.lanes.forEach(function (lane) {
  var label = el("div", "label");
  label.appendChild(document.createTextNode(lane.name));
  if (lane.kind !== lane.name) { label.appendChild(el("span", "kind", lane.kind)); }
  label.title = lane.name + " (pid " + lane.pid + ")";
  labels.appendChild(label);
  var row = el("div", "lane");
  var band = el("div", "band");
  hover(band, [["process", "pid " + lane.pid], ["session", secs(lane.end - lane.start)],
               ["tests", String(lane.bars.length)]], lane.name);
  row.appendChild(band);
  var placed = [[band, lane.start, lane.end - lane.start]];
  lane.bars.forEach(function (bar) {
    var b = el("div", "bar " + bar.outcome + (bar.unfinished ? " unfinished" : ""));
    var length = Math.max(bar.end - bar.start, 0);
    if (!bar.unfinished && length > 0 && bar.phases.length) { b.dataset.phased = "1"; }
    bar.phases.forEach(function (p) {
      if (bar.unfinished || length <= 0) { return; }
      var s = el("div", "seg " + p[0]);
      s.style.left = (100 * Math.max(p[2] - bar.start, 0) / length) + "%";
      s.style.width = (100 * p[3] / length) + "%";
      b.appendChild(s);
    });
    var lines = [["outcome", bar.outcome + (bar.unfinished ? ", never finished" : "")],
                 ["total", secs(length)], ["process", lane.name],
                 ["started", "at " + secs(bar.start)]];
    bar.phases.forEach(function (p) { lines.push([p[0], secs(p[3]) + "  " + p[1]]); });
    bar.fixtures.forEach(function (f) {
      lines.push(["fixture", f[0] + " (" + f[1] + ") " + secs(f[3])]);
    });
    bar.teardowns.forEach(function (f) {
      lines.push(["teardown", f[0] + " (" + f[1] + ") " + secs(f[3])]);
    });
    hover(b, lines, bar.test);
    b.setAttribute("aria-label", bar.test + ": " + lines.map(function (r) {
      return r[0] + " " + r[1];
    }).join("; "));  // what the hover shows, for a screen reader
    byTest[bar.test] = b;
    row.appendChild(b);
    placed.push([b, bar.start, length]);
  });
  lane.spawns.forEach(function (sp) {
    var t = el("div", "spawn");
    hover(t, [["at", secs(sp[0])], ["process", lane.name]], "started " + sp[1]);
    row.appendChild(t);
    placed.push([t, sp[0], null]);
  });
  canvas.appendChild(row);
  rows.push(placed);
});

// the time axis: a round step, about one tick per 110 pixels
function drawAxis() {
  axis.textContent = "";
  Array.prototype.slice.call(canvas.querySelectorAll(".grid")).forEach(function (g) {
    g.parentNode.removeChild(g);
  });
  var width = canvas.getBoundingClientRect().width || 800;
  var raw = (hi - lo) / Math.max(width / 110, 1);
  var power = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
  var step = [1, 2, 5, 10].map(function (m) { return m * power; })
    .filter(function (s) { return s >= raw; })[0];
  for (var t = Math.ceil(lo / step) * step; t <= hi + step / 1000; t += step) {
    var at = Math.round(t / step) * step;
    var tick = el("div", "tick");
    tick.style.left = pct(at);
    tick.appendChild(el("span", "", round(at)));
    axis.appendChild(tick);
    var grid = el("div", "grid");
    grid.style.left = pct(at);
    canvas.appendChild(grid);
  }
}
function draw() {
  rows.forEach(function (placed) {
    placed.forEach(function (p) {
      p[0].style.left = pct(p[1]);
      if (p[2] !== null) { p[0].style.width = len(Math.max(p[2], 0)); }
    });
  });
  drawAxis();
}
var zoom = document.getElementById("zoom");
zoom.addEventListener("input", function () {
  canvas.style.width = (100 * zoom.value) + "%";
  document.getElementById("zoomed").textContent = zoom.value + "x";
  drawAxis();
});
function view(testsOnly) {
  if (testsOnly && firstTest < lastTest) {
    var pad = (lastTest - firstTest) * 0.02;
    lo = Math.max(0, firstTest - pad);
    hi = lastTest + pad;
  } else {
    lo = 0;
    hi = data.total > 0 ? data.total : 1;
  }
  draw();
}
document.getElementById("view-all").addEventListener("change", function () { view(false); });
document.getElementById("view-tests").addEventListener("change", function () { view(true); });
if (firstTest === Infinity) { document.getElementById("view-tests").disabled = true; }
if (window.location.hash === "#tests" && firstTest < lastTest) {  // a link to the tests' view
  document.getElementById("view-tests").checked = true;
  view(true);
} else {
  draw();
}
window.addEventListener("resize", drawAxis);

// beside it: where the time went
function table(id, entries, empty) {
  var t = document.getElementById(id);
  if (!entries.length) {
    var none = el("tr");
    none.appendChild(el("td", "empty", empty));
    t.appendChild(none);
  }
  entries.forEach(function (r) {
    var tr = el("tr", "row");
    var name = el("td");
    if (r.outcome) {
      var dot = el("span", "dot");
      dot.style.setProperty("--c", "var(--" + r.outcome + ")");
      name.appendChild(dot);
    }
    name.appendChild(document.createTextNode(r.name));
    name.title = r.title || r.name;
    tr.appendChild(name);
    if (r.n !== undefined) { tr.appendChild(el("td", "n", r.n)); }
    tr.appendChild(el("td", "num", secs(r.seconds)));
    if (r.test && byTest[r.test]) {
      tr.addEventListener("mouseenter", function () { byTest[r.test].classList.add("hl"); });
      tr.addEventListener("mouseleave", function () { byTest[r.test].classList.remove("hl"); });
    }
    t.appendChild(tr);
  });
}
table("slow-tests", data.slow_tests.map(function (r) {
  return {name: r[0], seconds: r[1], outcome: r[2], test: r[0]};
}), "no tests");
table("slow-files", data.slow_files.map(function (r) {
  return {name: r[0], seconds: r[1], n: plural(r[2], "test")};
}), "no tests");
[["slow-fixtures", data.fixtures, "setup"], ["slow-teardowns", data.teardowns, "teardown"]]
    .forEach(function (t) {
  table(t[0], t[1].map(function (r) {
    return {name: r[0] + " (" + r[1] + ")", n: plural(r[2], t[2]), seconds: r[3],
            title: r[0] + ": " + plural(r[2], t[2]) + ", the slowest " + secs(r[4]) +
            " in " + r[5], test: r[5]};
  }), "no fixture " + t[2] + "s recorded");
});
</script></body></html>
"""
