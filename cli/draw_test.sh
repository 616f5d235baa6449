#!/usr/bin/env bash
# Pictures of a schedule (docs/DRAW.md): every bundled example is scheduled
# and drawn by scripts/draw.py (Gantt chart, reservation table, steady
# state) with Python warnings as errors; each picture must exist, be a
# well-formed non-trivial SVG, and come out byte-identical when drawn
# again; nothing may reach stderr. `tilesched export --dot` is checked
# against the graph (one node per op, one arrow per edge, dashed exactly
# the loop-carried data edges, dotted exactly the order edges) and rendered
# by Graphviz's dot when it is installed; bad input exits 2 with one line
# and writes no file. Exit 77 (skipped) when /usr/bin/python3 lacks
# matplotlib.
# usage: draw_test.sh TILESCHED DRAW_PY EXAMPLES_DIR BAD_GRAPHS_DIR
set -u
bin=$1 draw=$2 examples=$3 bad=$4
py=/usr/bin/python3
[[ -x $py ]] && "$py" -c 'import matplotlib, numpy' 2>/dev/null ||
  { echo "SKIP: $py with matplotlib not available"; exit 77; }
source "$(dirname "$0")/test_lib.sh"

# Checks that $1 is a well-formed SVG of at least 5000 bytes.
check_svg() {
  local size
  size=$(stat -c %s "$1" 2>/dev/null || echo 0)
  ((size >= 5000)) || { fail "$1: missing or only $size bytes"; return; }
  "$py" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot()
sys.exit(0 if r.tag.endswith("svg") else 1)' "$1" || fail "$1: not a well-formed SVG"
}

# --help gives every default itself (the binary's search order, the format).
"$py" "$draw" --help 2>&1 | tr -s ' \n' '  ' >"$work/help" || fail "draw.py --help failed"
grep -q 'build/release/cli/tilesched of this checkout' "$work/help" ||
  fail "draw.py --help does not say where the binary comes from: $(cat "$work/help")"
grep -q 'default: svg' "$work/help" || fail "draw.py --help gives no default format"
grep -q 'usage text' "$work/help" && fail "draw.py --help points at a usage text it does not show"

for graph in "$examples"/*.loop.json; do
  name=$(basename "$graph" .loop.json)
  expect 0 "$bin" schedule "$graph" -o "$work/$name.schedule.json"
  expect 0 "$py" -W error "$draw" "$graph" "$work/$name.schedule.json" --out "$work/pics" \
    --tilesched "$bin"
  [[ -s $work/err ]] && fail "$name: draw.py wrote to stderr: $(head -c 300 "$work/err")"
  for kind in gantt mrt steady; do
    check_svg "$work/pics/$name.$kind.svg"
  done
  # Deterministic: the same inputs give the same bytes.
  expect 0 "$py" -W error "$draw" "$graph" "$work/$name.schedule.json" --out "$work/again" \
    --tilesched "$bin"
  for kind in gantt mrt steady; do
    cmp -s "$work/pics/$name.$kind.svg" "$work/again/$name.$kind.svg" ||
      fail "$name.$kind.svg differs between two runs"
  done

  # DOT export against the graph's own numbers (tilesched.resolved/1).
  expect 0 "$bin" export "$graph" --dot -o "$work/$name.dot"
  expect 0 "$bin" export "$graph" --resolved -o "$work/$name.resolved.json"
  "$py" - "$work/$name.dot" "$work/$name.resolved.json" <<'EOF' || fail "$name.dot: structure"
import json, re, sys
dot = open(sys.argv[1], encoding="utf-8").read().splitlines()
g = json.load(open(sys.argv[2], encoding="utf-8"))
assert dot[0].startswith("digraph ") and dot[-1] == "}", "not one digraph"
nodes = [l for l in dot if re.match(r"  n\d+ \[label=", l)]
arrows = [re.match(r"  n(\d+) -> n(\d+) \[label=\"lat (\d+)(?:\\ndist (\d+))?\", style=(\w+)\];$", l)
          for l in dot if " -> " in l]
assert len(nodes) == len(g["ops"]), f"{len(nodes)} nodes for {len(g['ops'])} ops"
assert len(arrows) == len(g["edges"]) and all(arrows), "edge lines malformed or miscounted"
ids = {op["id"]: i for i, op in enumerate(g["ops"])}
for m, e in zip(arrows, g["edges"]):
    want = "dotted" if e["kind"] == "order" else "dashed" if e["distance"] else "solid"
    got = (int(m[1]), int(m[2]), int(m[3]), int(m[4] or 0), m[5])
    assert got == (ids[e["from"]], ids[e["to"]], e["latency"], e["distance"], want), (got, e)
EOF
  if command -v dot >/dev/null; then
    expect 0 dot -Tsvg "$work/$name.dot" -o "$work/$name.dot.svg"
    [[ -s $work/err ]] && fail "$name.dot: dot warned: $(head -c 300 "$work/err")"
  fi
done
command -v dot >/dev/null || echo "note: Graphviz dot not installed, DOT files not rendered"

# The critical recurrence: gemm_mainloop's II equals its recurrence bound,
# met by the two MMAs' cycle with no slack.
expect 0 "$py" "$draw" "$examples/gemm_mainloop.loop.json" "$work/gemm_mainloop.schedule.json" \
  --out "$work/pics" --tilesched "$bin"
grep -qx 'gemm_mainloop: critical recurrence mma0 -> mma1 -> mma0 (latency 32, distance 1, slack 0 at II 32)' \
  "$work/out" || fail "gemm_mainloop: critical recurrence not found: $(cat "$work/out")"

# Agent lanes: ops that carry "agent" get one lane per agent (the same
# schedule without agents, whatever the generator wrote, draws one lane).
"$py" - "$work/attention_forward.schedule.json" "$work/agents.schedule.json" \
  "$work/no_agents.schedule.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
for op in s["ops"]:
    op["agent"] = "producer" if op["id"].startswith(("load", "wait")) else "consumer"
json.dump(s, open(sys.argv[2], "w", encoding="utf-8"))
for op in s["ops"]:
    del op["agent"]
for pipe in s.get("pipes", []):
    pipe.pop("producer_agent", None)
    pipe.pop("consumer_agent", None)
json.dump(s, open(sys.argv[3], "w", encoding="utf-8"))
EOF
expect 0 "$py" -W error "$draw" "$examples/attention_forward.loop.json" \
  "$work/no_agents.schedule.json" --out "$work/no_agents" --tilesched "$bin"
grep -q 'agent lanes' "$work/out" && fail "agent lanes reported for a schedule without agents"
expect 0 "$py" -W error "$draw" "$examples/attention_forward.loop.json" "$work/agents.schedule.json" \
  --out "$work/agents" --tilesched "$bin"
[[ -s $work/err ]] && fail "agents: draw.py wrote to stderr: $(head -c 300 "$work/err")"
grep -qx 'attention_forward: agent lanes consumer, producer' "$work/out" ||
  fail "agent lanes not reported: $(cat "$work/out")"
check_svg "$work/agents/attention_forward.gantt.svg"
cmp -s "$work/agents/attention_forward.gantt.svg" "$work/no_agents/attention_forward.gantt.svg" &&
  fail "the Gantt chart with agents is the one without"

# PNG as well, for one example.
graph=$examples/gemm_mainloop.loop.json
expect 0 "$py" -W error "$draw" "$graph" "$work/gemm_mainloop.schedule.json" --out "$work/png" \
  --format png --tilesched "$bin"
for kind in gantt mrt steady; do
  [[ $(head -c 4 "$work/png/gemm_mainloop.$kind.png" | od -An -c | tr -d ' ') == 211PNG ]] ||
    fail "gemm_mainloop.$kind.png is not a PNG"
done

# Bad input: exit 2, one line, no file.
expect 2 "$py" "$draw" "$graph" "$graph" --out "$work/bad" --tilesched "$bin"
[[ $(wc -l <"$work/err") == 1 ]] || fail "draw.py on a graph as schedule: not one line"
expect 2 "$py" "$draw" "$bad/unknown_field.loop.json" "$work/gemm_mainloop.schedule.json" \
  --out "$work/bad" --tilesched "$bin"
[[ -e $work/bad ]] && fail "draw.py wrote output for bad input"
expect 2 "$py" "$draw" "$examples/spec_example.loop.json" "$work/gemm_mainloop.schedule.json" \
  --out "$work/bad" --tilesched "$bin"
# The labels: every steady-state bar row names its op; a pooled reservation
# table cell names its holders beside the count ("mma0 1/2", not "1/2").
expect 0 "$py" - "$draw" "$bin" "$examples/gemm_mainloop.loop.json" \
  "$work/gemm_mainloop.schedule.json" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("draw", sys.argv[1])
draw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(draw)
import matplotlib
matplotlib.use("Agg")
import matplotlib.patches as patches
import matplotlib.pyplot as plt
g = draw.load_graph(draw.find_tilesched(sys.argv[2]), sys.argv[3])
s = draw.load_schedule(sys.argv[4], g)
steady = {t.get_text().strip() for t in draw.draw_steady(plt, patches, g, s).axes[0].texts}
missing = [op["id"] for op in g["ops"] if op["id"] not in steady]
assert not missing, f"steady state: no label for {missing}"
cells = [t.get_text() for t in draw.draw_mrt(plt, g, s).axes[0].texts if "/" in t.get_text()]
assert cells, "reservation table: no pooled cell"
bare = [c for c in cells if c.split(" ")[0].count("/") == 1 and " " not in c]
assert not bare, f"reservation table: pooled cells without their ops: {bare}"
PY
# A schedule of another graph with the same op ids: refused at $.graph, by
# draw.py and by verify alike.
sed 's/"graph": "[^"]*"/"graph": "another"/' "$work/gemm_mainloop.schedule.json" >"$work/renamed.json"
expect 2 "$py" "$draw" "$examples/gemm_mainloop.loop.json" "$work/renamed.json" --out "$work/bad" \
  --tilesched "$bin"
grep -q 'renamed.json: \$.graph: the schedule is of graph "another"' "$work/err" ||
  fail "draw.py on a renamed schedule: $(cat "$work/err")"
expect 2 "$bin" verify "$examples/gemm_mainloop.loop.json" "$work/renamed.json"
grep -q 'renamed.json: \$.graph: the schedule is of graph "another"' "$work/err" ||
  fail "verify on a renamed schedule: $(cat "$work/err")"
[[ -e $work/bad ]] && fail "draw.py wrote output for a renamed schedule"
expect 0 "$bin" export --help
grep -q -- "--dot" "$work/out" || fail "export --help does not list --dot"
expect 2 "$bin" export "$graph"
expect 2 "$bin" export "$graph" --dot --resolved
for f in "$bad"/*.json; do
  expect 2 "$bin" export "$f" --dot -o "$work/bad.dot"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "export $f: not one line on stderr"
  [[ -e $work/bad.dot ]] && { fail "export $f wrote a file"; rm -f "$work/bad.dot"; }
done
# On the hopper target a unit of schedule time is 16 SM cycles: the axes say so.
cat >"$work/hopper.loop.json" <<'JSON'
{"format": "tilesched.loop/1", "name": "hopper units", "target": "hopper",
 "ops": [{"id": "l", "kind": "tiled_tma_load"}, {"id": "m", "kind": "wgmma"}],
 "edges": [{"from": "l", "to": "m"}]}
JSON
expect 0 "$bin" schedule "$work/hopper.loop.json" -g serial -o "$work/hopper.schedule.json"
expect 0 "$py" -W error "$draw" "$work/hopper.loop.json" "$work/hopper.schedule.json" \
  --out "$work/hpics" --tilesched "$bin"
grep -q 'unit (16 SM cycles)' "$work/hpics/hopper units.gantt.svg" 2>/dev/null ||
  grep -rlq 'unit (16 SM cycles)' "$work/hpics" || fail "hopper: the Gantt axis does not name its unit"

finish draw_test
