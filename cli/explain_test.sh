#!/usr/bin/env bash
# `tilesched explain` end to end (docs/EXPLAIN.md): the binding bound at the
# MII, a proven minimal core above it, a schedule that is not the least,
# text and JSON, draw.py --explain, refusals; and zero-latency cycles
# (docs/DECISIONS.md): scheduled by every generator but serial (auto falls
# back to cost-based), refused at once by all when the cycle's ops share a
# singleton slot.
# usage: explain_test.sh TILESCHED_BINARY DRAW_PY
bin=$1
draw=$2
source "$(dirname "$0")/test_lib.sh"

# a holds x for 2 cycles, b for 1; a -> b and b -> a one iteration later
# pin b one cycle after a at II 3 (the MII), where b meets a's second cycle
# on x: the optimum is 4. c is unrelated.
cat >"$work/pinned.loop.json" <<'JSON'
{
  "format": "tilesched.loop/1", "name": "pinned",
  "target": {"name": "xy", "slots": [{"name": "x"}, {"name": "y"}]},
  "ops": [
    {"id": "a", "kind": "generic", "latency": 1, "resources": [{"slot": "x", "duration": 2}]},
    {"id": "b", "kind": "generic", "latency": 1, "resources": [{"slot": "x", "duration": 1}]},
    {"id": "c", "kind": "generic", "latency": 1, "resources": [{"slot": "y", "duration": 1}]}
  ],
  "edges": [
    {"from": "a", "to": "b", "latency": 1},
    {"from": "b", "to": "a", "latency": 2, "distance": 1},
    {"from": "b", "to": "c", "latency": 1}
  ]
}
JSON
expect 0 "$bin" explain --help
expect 0 "$bin" explain "$work/pinned.loop.json" --json -o "$work/pinned.explain.json"
/usr/bin/python3 - "$work/pinned.explain.json" <<'PY' || fail "explain --json: wrong core"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "tilesched.explain/1", d
assert d["ii"] == 4 and d["mii"]["max"] == 3, d
assert d["verdict"] == "core" and d["minimal"] is True, d
assert d["ops"] == ["a", "b"], d
assert [e["index"] for e in d["edges"]] == [0, 1], d
assert d["resources"] == ["x"], d
PY
expect 0 "$bin" explain "$work/pinned.loop.json"
grep -q "^core: no II below 4 is legal" "$work/out" || fail "explain: text verdict: $(cat "$work/out")"
grep -q "edge: b -> a (data, latency 2, distance 1)" "$work/out" || fail "explain: text edges"

# A schedule at II 6 is not the least; the example GEMM is at a bound or core.
expect 0 "$bin" schedule "$work/pinned.loop.json" --generator cost-based -o "$work/pinned.schedule.json"
/usr/bin/python3 - "$work/pinned.schedule.json" "$work/pinned6.schedule.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["ii"] = 6
for op in s["ops"]:
    op.pop("stage", None); op.pop("order", None)
s.pop("pipes", None); s.pop("mutexes", None)
json.dump(s, open(sys.argv[2], "w"))
PY
expect 0 "$bin" explain "$work/pinned.loop.json" "$work/pinned6.schedule.json"
grep -q "^lower-feasible: II [45] is legal too: II 6 is not the least" "$work/out" || fail "explain: lower-feasible: $(cat "$work/out")"
grep -Eq "^  witness at II [45] \(op@start; --json gives it as a schedule\): a@[0-9]+ b@[0-9]+ " "$work/out" ||
  fail "explain: lower-feasible gives no witness schedule: $(cat "$work/out")"
# The witness in the JSON is a schedule of its own, legal at the lower II.
expect 0 "$bin" explain "$work/pinned.loop.json" "$work/pinned6.schedule.json" --json -o "$work/lower.json"
/usr/bin/python3 - "$work/lower.json" "$work/witness.json" <<'PY' || fail "explain --json: witness: $(head -c 400 "$work/lower.json")"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["witness"]
assert d["verdict"] == "lower-feasible" and w["format"] == "tilesched.schedule/1", d
assert w["ii"] == d["lower_ii"] < 6 and w["feasible"], w
json.dump(w, open(sys.argv[2], "w"))
PY
expect 0 "$bin" verify "$work/pinned.loop.json" "$work/witness.json"
grep -q '^legal: ' "$work/out" || fail "verify of the witness: $(cat "$work/out")"
expect 0 "$bin" explain "$work/pinned.loop.json" --time-limit 0
grep -q "^open:" "$work/out" || fail "explain: no time should leave it open: $(cat "$work/out")"

# The drawing: the explanation replaces the critical recurrence.
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  expect 0 /usr/bin/python3 "$draw" "$work/pinned.loop.json" "$work/pinned.schedule.json" --out "$work/pics" \
    --tilesched "$bin" --explain "$work/pinned.explain.json"
  grep -q "why not II 3: core; x" "$work/out" || fail "draw --explain: no explanation line: $(cat "$work/out")"
  grep -q "why not II 3" "$work/pics/pinned.gantt.svg" || fail "draw --explain: legend missing"
  expect 2 /usr/bin/python3 "$draw" "$work/pinned.loop.json" "$work/pinned6.schedule.json" --out "$work/pics" \
    --tilesched "$bin" --explain "$work/pinned.explain.json"
  grep -q "\$.ii: the explanation is of II 4, the schedule's is 6" "$work/err" || fail "draw --explain: II mismatch not refused"
else
  echo "note: matplotlib missing; draw --explain skipped"
fi

# Refusals: one line, exit 2.
expect 2 "$bin" explain "$work/pinned.loop.json" --generator greedy
expect 2 "$bin" explain "$work/pinned.loop.json" --time-limit -1
expect 2 "$bin" explain "$work/nope.loop.json"
sed 's/"name": "pinned"/"name": "other"/' "$work/pinned.loop.json" >"$work/other.loop.json"
expect 2 "$bin" explain "$work/other.loop.json" "$work/pinned.schedule.json"
grep -q '\$.graph' "$work/err" || fail "explain: a schedule of another graph is not refused at \$.graph"

# Zero-latency cycles: a <-> b with latency 0 both ways start together.
zero_cycle() {  # SLOT_OF_B OUT
  cat >"$2" <<JSON
{
  "format": "tilesched.loop/1", "name": "zero-cycle",
  "target": {"name": "xy", "slots": [{"name": "x"}, {"name": "y"}]},
  "ops": [
    {"id": "a", "kind": "generic", "latency": 2, "resources": [{"slot": "x", "duration": 1}]},
    {"id": "b", "kind": "generic", "latency": 2, "resources": [{"slot": "$1", "duration": 1}]}
  ],
  "edges": [{"from": "a", "to": "b", "latency": 0}, {"from": "b", "to": "a", "latency": 0}]
}
JSON
}
zero_cycle y "$work/zero.loop.json"
zero_cycle x "$work/zero-shared.loop.json"
expect 1 "$bin" schedule "$work/zero.loop.json" --generator serial
grep -q "no legal schedule (dependence-cycle)" "$work/err" || fail "zero cycle: serial"
expect 0 "$bin" schedule "$work/zero.loop.json" -o "$work/zero.schedule.json"
grep -q '"generator": "cost-based"' "$work/zero.schedule.json" || fail "zero cycle: auto did not fall back to cost-based"
grep -q "cannot order a zero-distance cycle, so cost-based" "$work/zero.schedule.json" || fail "zero cycle: selection does not say why"
for gen in cost-based cost-based-seed ims sms exact; do
  expect 0 "$bin" schedule "$work/zero.loop.json" --generator "$gen" -o "$work/zero.$gen.json"
  expect 0 "$bin" verify "$work/zero.loop.json" "$work/zero.$gen.json"
  expect 1 "$bin" schedule "$work/zero-shared.loop.json" --generator "$gen" -o "$work/zero-shared.$gen.json"
  grep -q "no legal schedule (dependence-cycle)" "$work/err" || fail "zero cycle on one slot: $gen: $(cat "$work/err")"
  grep -q "ops a and b start in the same cycle at every II" "$work/zero-shared.$gen.json" || fail "zero cycle on one slot: $gen does not say why"
done

finish "explain end-to-end"
