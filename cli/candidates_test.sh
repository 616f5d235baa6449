#!/usr/bin/env bash
# End-to-end checks of `tilesched candidates` (docs/TTGIR.md, "Candidates")
# on the committed pointer matmul at num_stages 3: the directory holds one
# export per accepted candidate and the manifests (TSV and JSON) list every
# candidate in rank order, ranked by predicted time; the stage vectors are
# distinct; Triton's own is among them; every export, rewritten into the
# dump with scripts/ttgir_schedule_text.py and imported again, carries the
# candidate's stages; same input, byte-identical output; refusals are one
# line with exit status 2 and no directory.
# usage: candidates_test.sh TILESCHED SCRIPTS_DIR TTGIR_TESTDATA_DIR EXAMPLES_DIR
set -u
bin=$1 scripts=$2 testdata=$3 examples=$4
py=/usr/bin/python3
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
matmul=$testdata/matmul_STAGES3_BM128_BN128_BK64_W8.triton-scheduled.ttgir
opts=(--max-cap 3 --time-limit 1)

expect 0 "$bin" import --from ttgir "$matmul" -q -o "$work/mm.loop.json"
expect 0 "$bin" candidates "$work/mm.loop.json" -o "$work/c" "${opts[@]}"
grep -q "^tilesched candidates: [0-9]* distinct stage assignments, [0-9]* refused by the export, in $work/c$" \
  "$work/err" || fail "summary line: $(cat "$work/err")"

"$py" - "$work/c" "$work/mm.loop.json" "$scripts" "$matmul" "$bin" "$work" <<'PY' || fail "the list"
import json, os, subprocess, sys
d, graph, scripts, dump, tool, work = sys.argv[1:]
sys.path.insert(0, scripts)
import ttgir_schedule_text as t
doc = json.load(open(os.path.join(d, "candidates.json")))
assert doc["format"] == "tilesched.candidates/1", doc["format"]
cands = doc["candidates"]
assert [c["rank"] for c in cands] == list(range(1, len(cands) + 1))
fits = [c["sm_cycles"] for c in cands if c["sm_cycles"] is not None]
assert fits == sorted(fits), fits
assert any("triton" in c["found_by"] for c in cands), "no Triton's own"
finders = [f for c in cands for f in c["found_by"]]
assert len(finders) == len(set(finders)), "a finder counted twice"
for g in ("serial", "cost-based", "cost-based-seed", "ims", "sms", "exact"):
    for cap in (1, 2, 3):
        assert f"{g}/cap{cap}" in finders, f"{g}/cap{cap} missing"
tsv = open(os.path.join(d, "candidates.tsv")).read().splitlines()
assert len(tsv) == len(cands) + 1 and tsv[0].startswith("rank\tfile\tsource"), tsv[0]
files = sorted(f for f in os.listdir(d) if f.endswith(".json") and f != "candidates.json")
assert files == sorted(c["file"] for c in cands if c["file"]), (files, cands)
text = open(dump).read()
seen = set()
for c in cands:
    if not c["file"]:
        assert c["refused"], c
        continue
    e = json.load(open(os.path.join(d, c["file"])))
    assert e["format"] == "tilesched.triton/1" and e["source"] == c["source"]
    stages = tuple(op["stage"] for op in e["ops"])
    assert stages not in seen, f"{c['file']} repeats a stage vector"
    seen.add(stages)
    assert max(stages) + 1 == c["stages"], c
    # rewritten into the dump and imported again: the same stages
    out = os.path.join(work, "re.ttgir")
    open(out, "w").write(t.apply_schedule(text, e))
    g = os.path.join(work, "re.loop.json")
    subprocess.run([tool, "import", "--from", "ttgir", out, "-q", "-o", g], check=True)
    back = {o["source_position"]: o["triton_stage"] for o in json.load(open(g))["ops"]}
    for op in e["ops"]:
        assert back[op["position"]] == op["stage"], (c["file"], op)
PY

# Deterministic without the oracle (whose answers depend on its wall-clock
# limit): the same directory again, byte for byte; --generators keeps to
# the ones named (and --time-limit, which only exact reads, is not given).
heur=(--max-cap 3 --generators serial,cost-based,cost-based-seed,ims,sms)
expect 0 "$bin" candidates "$work/mm.loop.json" -o "$work/h1" "${heur[@]}" -q
[[ ! -s "$work/err" ]] || fail "-q: $(cat "$work/err")"
expect 0 "$bin" candidates "$work/mm.loop.json" -o "$work/h2" "${heur[@]}" -q
diff -r "$work/h1" "$work/h2" >/dev/null || fail "a second run differs"
grep -q "exact/" "$work/h1/candidates.tsv" && fail "--generators without exact ran exact"
grep -q "exact/cap1" "$work/c/candidates.tsv" || fail "the default runs exact"

# A flattened persistent loop (scf.if ops in the body): an assignment the
# export cannot write (the ops of one scf.if in two stages) or refuses is
# listed, refused, with no file; the command goes on.
flat=$(ls "$testdata"/flat/*.triton-scheduled.ttgir | head -1)
expect 0 "$bin" import --from ttgir "$flat" -q -o "$work/fl.loop.json"
expect 0 "$bin" candidates "$work/fl.loop.json" -o "$work/fl" "${heur[@]}" -q
"$py" - "$work/fl/candidates.json" <<'PY' || fail "the flattened loop's list"
import json, sys
cands = json.load(open(sys.argv[1]))["candidates"]
assert cands and any("triton" in c["found_by"] for c in cands)
for c in cands:
    assert (c["file"] is None) == (c["refused"] is not None), c
PY

# --- Refusals: exit 2, one line, no directory.
plain=$(ls "$examples"/*.loop.json | head -1)
expect 2 "$bin" candidates "$plain" -o "$work/never"
one_line "a graph not on hopper"
grep -q "the price needs the hopper target" "$work/err" || fail "not hopper: $(cat "$work/err")"
expect 2 "$bin" candidates "$work/mm.loop.json"
one_line "no -o"
expect 2 "$bin" candidates "$work/mm.loop.json" -o "$work/never" --max-cap 33
one_line "--max-cap 33"
expect 2 "$bin" candidates "$work/mm.loop.json" -o "$work/never" --warps 0
one_line "--warps 0"
expect 2 "$bin" candidates "$work/missing.json" -o "$work/never"
one_line "a missing graph"
expect 2 "$bin" candidates "$work/mm.loop.json" -o "$work/never" --generators sms,auto
one_line "--generators sms,auto"
grep -q "'auto' is not one of" "$work/err" || fail "--generators auto: $(cat "$work/err")"
"$py" -c 'import json,sys; g=json.load(open(sys.argv[1])); [o.pop("source_position") for o in g["ops"]]; json.dump(g, open(sys.argv[2], "w"))' \
  "$work/mm.loop.json" "$work/plain_hopper.json"
expect 2 "$bin" candidates "$work/plain_hopper.json" -o "$work/never"
one_line "a hopper graph not from TTGIR"
grep -q "was not imported from TTGIR" "$work/err" || fail "not from TTGIR: $(cat "$work/err")"
[[ ! -e "$work/never" ]] || fail "a refusal left a directory"

finish candidates_test
