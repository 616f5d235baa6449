#!/usr/bin/env bash
# End-to-end checks of what issue 53 ("a user's third day") found accepted
# that is wrong, or asked for and ignored: each is refused (exit 2, one
# line naming the file or option and the problem, no output file) or
# honoured. predict and export --to triton check a stage assignment against
# the graph's rules and Triton's lowering; an undefined TTGIR layout alias
# and a region cut short are refused where they are; stages and candidates
# refuse a loop Triton already lowered; stages marks an II the exact
# generator did not prove; every option the table of cli/option_rules.cc
# says nothing reads is refused, and --help prints that table.
# usage: third_day_test.sh TILESCHED TTGIR_TESTDATA_DIR
set -u
bin=$(realpath "$1") testdata=$2
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
refused() {  # WHAT PATTERN: the last command exited 2 (checked by expect), one line matching PATTERN
  one_line "$1"
  grep -qE -- "$2" "$work/err" || fail "$1: the message does not match '$2': $(cat "$work/err")"
  [[ -e $work/never ]] && fail "$1: an output file was written" && rm -rf "$work/never"
}
matmul=$testdata/matmul_STAGES3_BM128_BN128_BK64_W8
expect 0 "$bin" import --from ttgir "$matmul.input.ttgir" -q -o "$work/mm.json"
expect 0 "$bin" import --from ttgir "$matmul.input.ttgir" --no-triton-rules -q -o "$work/mm_free.json"

# --- predict and export read a stage assignment: one that breaks the
# graph's rules (IMS at --max-stages 3 on the unconstrained graph, priced
# against the graph with Triton's rules) is refused, and so, on the
# unconstrained graph itself, is one Triton's pipeliner would lower to wrong
# results (the export's refusal).
expect 0 "$bin" schedule "$work/mm_free.json" -g ims --max-stages 3 -q -o "$work/ims3.json"
expect 0 "$bin" verify "$work/mm_free.json" "$work/ims3.json"
expect 1 "$bin" verify "$work/mm.json" "$work/ims3.json"
grep -q 'L5-groups' "$work/out" || fail "verify: the IMS schedule should break L5 on the graph with rules"
expect 2 "$bin" predict "$work/mm.json" "$work/ims3.json" -o "$work/never"
refused "predict: a schedule breaking L5" "^tilesched predict: .*ims3.json: the stage assignment breaks the rules of graph .*L5-groups"
expect 2 "$bin" export "$work/mm.json" "$work/ims3.json" --to triton -o "$work/never"
refused "export: a schedule breaking L5" "ims3.json: the stage assignment breaks the rules .*L5-groups"
expect 2 "$bin" export "$work/mm_free.json" "$work/ims3.json" --to triton -o "$work/never"
refused "export: the buffer rule" "a buffer must be read in the stage that writes it"
expect 2 "$bin" predict "$work/mm_free.json" "$work/ims3.json" -o "$work/never"
refused "predict: what export refuses" "^tilesched predict: .*ims3.json: .*a buffer must be read in the stage that writes it"
# A schedule export accepts is still priced.
expect 0 "$bin" schedule "$work/mm.json" -g ims --max-stages 3 -q -o "$work/ims3_rules.json"
expect 0 "$bin" predict "$work/mm.json" "$work/ims3_rules.json" --json -o "$work/p.json"

# --- TTGIR: a layout alias used but never defined is refused where it is
# used, not read as no layout; a region cut short says where it opened.
grep -v '^#blocked1 = ' "$matmul.input.ttgir" >"$work/no_alias.ttgir"
line=$(grep -n '#blocked1' "$work/no_alias.ttgir" | head -1 | cut -d: -f1)
expect 2 "$bin" import --from ttgir "$work/no_alias.ttgir" -o "$work/never"
refused "an undefined alias" "no_alias.ttgir:$line: the alias '#blocked1' is used but not defined"
open=$(grep -n 'scf.for' "$matmul.input.ttgir" | head -1 | cut -d: -f1)
{ head -n $((open + 3)) "$matmul.input.ttgir"; grep '^#loc' "$matmul.input.ttgir"; } >"$work/cut.ttgir"
expect 2 "$bin" import --from ttgir "$work/cut.ttgir" -o "$work/never"
refused "a region cut short" "cut.ttgir:$open: the region opened here is not closed before the alias '#loc"

# --- stages and candidates need the loop before Triton's pipeliner, not
# the lowered one (--loop 1 of a scheduled dump).
expect 0 "$bin" import --from ttgir "$matmul.triton-scheduled.ttgir" --loop 1 -q -o "$work/lowered.json"
expect 2 "$bin" stages "$work/lowered.json" -o "$work/never"
refused "stages: a lowered loop" "lowered.json: \\\$\\.ops\\[[0-9]+\\]: op .* is a ttg?n?g?\\.[a-z_]+: the loop is one Triton's pipeliner already lowered"
expect 2 "$bin" candidates "$work/lowered.json" -o "$work/never"
refused "candidates: a lowered loop" "the loop is one Triton's pipeliner already lowered"
expect 0 "$bin" import --from ttgir "$matmul.triton-scheduled.ttgir" -q -o "$work/scheduled.json"
expect 0 "$bin" stages "$work/scheduled.json" --max 2 -g serial

# --- stages -g exact with no time: the II is not proven, and says so.
expect 0 "$bin" stages "$work/mm.json" --max 2 -g exact --time-limit 0 --json -o "$work/exact.json"
/usr/bin/python3 - "$work/exact.json" <<'PY' || fail "stages -g exact --time-limit 0: the JSON marks no unproven II"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["stages"]
assert all(r["ii_proven_optimal"] is False for r in rows), rows
assert all(r["ii_lower_bound"] is not None and r["ii_lower_bound"] <= r["ii"] for r in rows), rows
PY
expect 0 "$bin" stages "$work/mm.json" --max 2 -g exact --time-limit 0
grep -qE '^ +1 +[0-9]+\* ' "$work/out" || fail "stages text: no * on an unproven II: $(cat "$work/out")"
grep -q '^\* not proven least: .*S 1 (lower bound [0-9]* cycles)' "$work/out" ||
  fail "stages text: no note of the unproven IIs: $(cat "$work/out")"
expect 0 "$bin" stages "$work/mm.json" --max 2 -g serial --json -o "$work/serial.json"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["stages"]; assert all(x["ii_proven_optimal"] is None for x in r), r' \
  "$work/serial.json" || fail "stages -g serial: a heuristic's II claims a proof"

# --- Options asked for and ignored: refused, one line naming the option.
expect 2 "$bin" schedule "$work/mm.json" -g ims --effort fast -o "$work/never"
refused "schedule -g ims --effort" "^tilesched schedule: --effort applies to --generator auto, cost-based only, not ims$"
expect 2 "$bin" schedule "$work/mm.json" -g cost-based-seed --effort fast -o "$work/never"
refused "schedule -g cost-based-seed --effort" "--effort applies to .* not cost-based-seed"
expect 0 "$bin" schedule "$work/mm.json" -g cost-based --effort fast -q -o "$work/fast.json"
expect 2 "$bin" predict "$work/mm.json" --triton 3 --persistent -o "$work/never"
refused "predict --persistent without --grid" "^tilesched predict: --persistent only works with --grid"
expect 2 "$bin" stages "$work/mm.json" --persistent -o "$work/never"
refused "stages --persistent without --grid" "^tilesched stages: --persistent only works with --grid"
expect 2 "$bin" export "$work/mm.json" --dot --skip-buffer-rule -o "$work/never"
refused "export --dot --skip-buffer-rule" "^tilesched export: --skip-buffer-rule only works with --to"
expect 2 "$bin" import --from ttgir "$matmul.input.ttgir" --list --loop 0 -o "$work/never"
refused "import --list --loop 0" "^tilesched import: --loop does nothing with --list"
expect 0 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial -q -o "$work/t.csv"
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial --estimate "$work/t.csv" \
  --resume
refused "sweep --estimate --resume" "^tilesched sweep: --resume does nothing with --estimate"
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial --estimate "$work/t.csv" \
  -o "$work/never"
refused "sweep --estimate -o" "^tilesched sweep: --output does nothing with --estimate"
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial,ims --effort fast -o "$work/never"
refused "sweep --generators serial,ims --effort" "^tilesched sweep: --effort applies to --generator auto, cost-based only, not serial,ims$"
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --generators sms --arm-policy best-cost -o "$work/never"
refused "sweep --generators sms --arm-policy" "^tilesched sweep: --arm-policy applies to"
expect 2 "$bin" candidates "$work/mm.json" -g cost-based --time-limit 3 -o "$work/never"
refused "candidates -g cost-based --time-limit" "^tilesched candidates: --time-limit applies to --generator exact only, not cost-based$"
expect 2 "$bin" candidates "$work/mm.json" -g ims,sms --effort fast -o "$work/never"
refused "candidates -g ims,sms --effort" "--effort applies to --generator auto, cost-based only, not ims,sms"
expect 2 "$bin" explain "$work/mm.json" "$work/ims3_rules.json" -g ims -o "$work/never"
refused "explain SCHEDULE -g" "^tilesched explain: --generator does nothing with a SCHEDULE"
# stages and candidates take --effort (the cost-based generator reads it).
expect 0 "$bin" stages "$work/mm.json" --max 2 --effort fast
expect 2 "$bin" stages "$work/mm.json" --effort quick
refused "stages --effort quick" "^tilesched stages: --effort: unknown level 'quick'"
expect 0 "$bin" candidates "$work/mm.json" -g serial,cost-based --effort full --max-cap 2 -q -o "$work/cand"
# --help prints the same table the refusals read.
for c in schedule stages candidates predict export import sweep explain; do
  expect 0 "$bin" $c --help
  grep -q '^which options are read when (any other use is refused):$' "$work/out" || fail "$c --help: no table"
done
expect 0 "$bin" schedule --help
grep -q '^  --effort: read by --generator auto, cost-based only$' "$work/out" || fail "schedule --help: --effort's readers"
expect 0 "$bin" import --help
grep -q '^  --loop: not with --list$' "$work/out" || fail "import --help: --loop"

# --- candidates -o DIR writes one whole set: an earlier run's files go with
# it, a directory holding anything else, a file and - are refused.
expect 0 "$bin" candidates "$work/mm.json" -g serial -q -o "$work/cands"
touch "$work/cands/09.stale.json"
expect 0 "$bin" candidates "$work/mm.json" -g ims --max-cap 2 -q -o "$work/cands"
[[ -e $work/cands/09.stale.json ]] && fail "candidates: an earlier run's file is left beside the new set"
grep -q 'ims/cap2' "$work/cands/candidates.tsv" || fail "candidates: the new set is not in place"
[[ $(ls -A "$work" | grep -c '^\.cands') == 0 ]] || fail "candidates: a temporary directory is left: $(ls -A "$work")"
echo notes >"$work/cands/notes.txt"
expect 2 "$bin" candidates "$work/mm.json" -g serial -o "$work/cands"
one_line "candidates into a directory of other files"
grep -q "cands: holds 'notes.txt', which candidates did not write" "$work/err" || fail "candidates: $(cat "$work/err")"
grep -q 'ims/cap2' "$work/cands/candidates.tsv" || fail "candidates: a refused run changed the directory"
in_work() { (cd "$work" && "$@"); }  # so that a directory named - lands in $work
expect 2 in_work "$bin" candidates "$work/mm.json" -g serial -o -
refused "candidates -o -" "^tilesched candidates: -o -: candidates writes a directory"
[[ -e $work/- ]] && fail "candidates -o -: a directory named - was made"
expect 2 "$bin" candidates "$work/mm.json" -g serial -o "$work/mm.json"
refused "candidates -o FILE" "mm.json: exists and is not a directory"

# --- Messages that name the problem: a file where a directory should be,
# a directory that takes no new files, a directory given as a sweep's CSV.
expect 2 "$bin" schedule "$work/mm.json" -g serial -o "$work/mm.json/x"
refused "-o FILE/x" "^tilesched schedule: .*mm.json/x: .*mm.json is not a directory$"
if [[ -f /proc/version ]]; then
  expect 2 "$bin" schedule "$work/mm.json" -g serial -o /proc/version
  refused "-o /proc/version" "^tilesched schedule: /proc/version: directory /proc takes no new files"
fi
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial --estimate "$work/cands"
refused "sweep --estimate DIR" "^tilesched sweep: .*cands: is a directory, not a file$"
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial -o "$work/mm.json/t.csv"
refused "sweep -o FILE/x" "mm.json/t.csv: .*mm.json is not a directory$"

# --- A sweep row's cpu_ns is the generator call, not the materialization
# after it: serial's is its time_ns and its MII bounds (a few us at 16 ops),
# not ten times more (it was 41 us against 3 us).
expect 0 "$bin" sweep --families random_layered --ops 16 --seeds 1-40 --generators serial,ims --jobs 1 -q \
  -o "$work/cpu.csv"
/usr/bin/python3 - "$work/cpu.csv" <<'PY' || fail "sweep: cpu_ns times more than the generator call"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for g, most in (("serial", 5.0), ("ims", 2.0)):
    mine = [r for r in rows if r["generator"] == g]
    cpu, own = sum(int(r["cpu_ns"]) for r in mine), sum(int(r["time_ns"]) for r in mine)
    assert mine and cpu <= most * own, (g, cpu, own, cpu / own)
PY

# --- sweep --estimate: a small sweep's CPU time is not "0.00" hours, and a
# capped sweep is estimated from the uncapped timings, marked so.
expect 0 "$bin" sweep --families random_layered --ops 16 --seeds 1-40 --generators serial,ims --jobs 2 \
  --estimate "$work/cpu.csv"
grep -qE '^  serial +40 +[0-9]+\.[0-9]{2} s +0$' "$work/out" || fail "sweep --estimate: small CPU time: $(cat "$work/out")"
expect 0 "$bin" sweep --families random_layered --ops 16 --seeds 1-40 --generators serial,ims --jobs 2 \
  --max-stages 0,3 --estimate "$work/cpu.csv"
grep -qE '^  ims max_stages=3 \* +40 ' "$work/out" && grep -q "^  \* no timed row at its cap: its uncapped rows' times x (1 + cap)" "$work/out" ||
  fail "sweep --estimate --max-stages: $(cat "$work/out" "$work/err")"

# --- Triton's own schedule has one price: candidates' triton row is the
# stages row at its num_stages (attention, S = 3).
attention=$testdata/attention_STAGES3_BM128_BN64_HEAD128_W8.triton-scheduled.ttgir
expect 0 "$bin" import --from ttgir "$attention" -q -o "$work/att.json"
expect 0 "$bin" stages "$work/att.json" --max 3 -g serial --json -o "$work/att_stages.json"
expect 0 "$bin" candidates "$work/att.json" -g serial --max-cap 1 -q -o "$work/att_cands"
/usr/bin/python3 - "$work/att_stages.json" "$work/att_cands/candidates.json" <<'PY' || fail "candidates and stages price Triton's own differently"
import json, sys
stages, cands = (json.load(open(p)) for p in sys.argv[1:])
own = [c for c in cands["candidates"] if c["found_by"][0] == "triton"]
assert own, "no Triton's own"
row = stages["stages"][own[0]["stages"] - 1]
assert own[0]["sm_cycles"] == row["sm_cycles"], (own[0]["sm_cycles"], row["sm_cycles"])
PY

# --- Every II printed says its unit: units of 16 SM cycles and the SM
# cycles on the hopper target, cycles elsewhere; a slot's hold is
# occupancy-cycles, not "unit-cycles".
expect 0 "$bin" predict "$work/mm.json" "$work/ims3_rules.json"
grep -qE '^ttgir/.*: ims, II ([0-9]+) units \(([0-9]+) SM cycles\), 3 stages$' "$work/out" ||
  fail "predict: the II's unit: $(head -1 "$work/out")"
expect 0 "$bin" explain "$work/mm.json" "$work/ims3_rules.json" --time-limit 1
grep -qE '^ttgir/.*: II [0-9]+ units \([0-9]+ SM cycles\), the schedule ' "$work/out" &&
  grep -qE '^MII [0-9]+ units \([0-9]+ SM cycles\): ' "$work/out" || fail "explain on hopper: units: $(head -2 "$work/out")"
examples=$(dirname "$0")/../engine/examples
expect 0 "$bin" explain "$examples/gemm_mainloop.loop.json" --time-limit 1
grep -qE '^.*: II [0-9]+ cycles, the cost-based schedule$' "$work/out" || fail "explain: cycles: $(head -1 "$work/out")"
grep -q 'unit-cycles' "$work/out" && fail "explain: 'unit-cycles' has no unit a reader knows: $(cat "$work/out")"
expect 0 "$bin" verify "$work/mm.json" "$work/ims3_rules.json"
grep -qE '^legal: ttgir/.*, II [0-9]+ units \([0-9]+ SM cycles\), 3 stage\(s\), [0-9]+ ops$' "$work/out" ||
  fail "verify on hopper: the II's unit: $(cat "$work/out")"
head -1 "$work/att_cands/candidates.tsv" | grep -q $'\tii_units\tii_sm_cycles\t' ||
  fail "candidates.tsv: the II's units: $(head -1 "$work/att_cands/candidates.tsv")"

# --- The checkout: what scripts/run writes is ignored, and the scripts
# docs/TTGIR.md runs directly are executable.
src=$(dirname "$0")/..
[[ -x $src/scripts/triton_schedule.py ]] || fail "scripts/triton_schedule.py is not executable"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  for f in results/exact.csv results/exact.csv.json results/exact.csv.partial results/sweep.csv; do
    git -C "$src" check-ignore -q "$f" || fail ".gitignore: $f (written by scripts/run) is not ignored"
  done
fi

finish third_day_test
