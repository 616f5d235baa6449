#!/usr/bin/env bash
# End-to-end checks of the tilesched command line: exit statuses 0/1/2,
# one-line errors naming the file and JSON path, no output file on failure.
# usage: cli_test.sh TILESCHED EXAMPLES_DIR TESTDATA_DIR [HLS_DIR]
set -u
bin=$1 examples=$2 testdata=$3 hls=${4:-}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

expect 0 "$bin" --help
# The overview names every command, both importers, and what each --help
# then lists (-q/--quiet everywhere, -o/--output everywhere but merge).
grep -q -- '^  import --from ttgir ' "$work/out" || fail "--help does not list import --from ttgir"
grep -q -- '^  export GRAPH .*--to triton' "$work/out" || fail "--help does not list export --to triton"
for c in schedule verify generate import sweep compare merge replay export explain stages; do
  grep -q "^  $c " "$work/out" || fail "--help does not list $c"
  "$bin" "$c" --help | grep -q -- '-q \[ --quiet \]' || fail "$c --help lists no -q/--quiet"
  [[ $c == merge ]] || "$bin" "$c" --help | grep -q -- '-o \[ --output \]' ||
    fail "$c --help lists no -o/--output"
done
expect 0 "$bin" schedule --help
grep -q -- "--generator" "$work/out" || fail "schedule --help does not list --generator"
expect 0 "$bin" verify --help
expect 2 "$bin"
expect 2 "$bin" frobnicate
expect 2 "$bin" schedule
expect 2 "$bin" schedule "$examples/seed_worked_example.loop.json" --generator greedy
expect 2 "$bin" schedule "$examples/seed_worked_example.loop.json" --no-such-option
expect 2 "$bin" schedule "$work/does-not-exist.loop.json"

# Every bundled example schedules, and its schedule verifies.
for g in "$examples"/*.loop.json; do
  name=$(basename "$g" .loop.json)
  expect 0 "$bin" schedule "$g" -o "$work/$name.schedule.json"
  [[ -s $work/$name.schedule.json ]] || fail "$name: no schedule written"
  expect 0 "$bin" verify "$g" "$work/$name.schedule.json"
  grep -q '^legal' "$work/out" || fail "$name: verify did not say legal"
  expect 0 "$bin" schedule "$g"
  # Identical but for the generator's own timing.
  cmp -s <(grep -v '"time_ns"' "$work/out") <(grep -v '"time_ns"' "$work/$name.schedule.json") ||
    fail "$name: stdout and -o differ"
done
grep -Eq '"ii": ?16' "$work/seed_worked_example.schedule.json" ||
  fail "the seed worked example's serial II is not 16"
grep -q '"id": "Pipe_0", "producers": \["load_a0", "load_b0"\]' "$work/gemm_mainloop.schedule.json" ||
  fail "the GEMM schedule does not carry the TMA pipe"
grep -q '"id": "Mutex_0"' "$work/gemm_mainloop.schedule.json" ||
  fail "the GEMM schedule does not carry its mutexes"

# auto below the serial threshold: the serial schedule, and one line on
# stderr saying so (none under -q); --serial-threshold 0 pipelines it.
expect 0 "$bin" schedule "$examples/seed_worked_example.loop.json"
grep -q '"generator": "serial"' "$work/out" || fail "auto on 4 ops: not serial"
[[ $(wc -l <"$work/err") == 1 ]] && grep -q 'auto: op count 4 is below serial_threshold 8: the serial generator runs (--generator cost-based pipelines it)' "$work/err" ||
  fail "auto's serial choice not said: $(cat "$work/err")"
expect 0 "$bin" schedule "$examples/seed_worked_example.loop.json" -q
[[ -s $work/err ]] && fail "auto -q: stderr not empty: $(cat "$work/err")"
expect 0 "$bin" schedule "$examples/seed_worked_example.loop.json" --serial-threshold 0
grep -q '"generator": "cost-based"' "$work/out" || fail "--serial-threshold 0: not cost-based"
grep -q '"ii": 15' "$work/out" || fail "--serial-threshold 0: not the optimum 15"
[[ -s $work/err ]] && fail "auto choosing cost-based said something: $(cat "$work/err")"
expect 2 "$bin" schedule "$examples/seed_worked_example.loop.json" --serial-threshold -1
# --max-stages S: at most S stages, recorded in the options; out of range: exit 2.
expect 0 "$bin" schedule "$examples/gemm_mainloop.loop.json" --generator cost-based --max-stages 1
grep -q '"stage_count": 1' "$work/out" && grep -q '"max_stages": "1"' "$work/out" ||
  fail "--max-stages 1: $(grep -o '"stage_count": [0-9]*' "$work/out")"
expect 2 "$bin" schedule "$examples/gemm_mainloop.loop.json" --max-stages -1

# --emit region: the materialized region, MLIR-like, on stdout or -o.
grep -q -- "--emit" <("$bin" schedule --help) || fail "schedule --help does not list --emit"
expect 0 "$bin" schedule "$examples/gemm_mainloop.loop.json" --emit region
grep -q '^tileas.scheduled_region @gemm-mainloop-2k {ii = ' "$work/out" ||
  fail "--emit region: no region header"
grep -q 'tileas.pipe producers(@load_a0, @load_b0) consumer(@wait0)' "$work/out" ||
  fail "--emit region: no TMA pipe"
grep -q '%mma0 = tileas.wgmma(.*%Pipe_[0-9]*\[i-1\]' "$work/out" ||
  fail "--emit region: mma0 does not read the loop-carried accumulator"
grep -q '^  \^stage0:' "$work/out" || fail "--emit region: no stage block"
expect 0 "$bin" schedule "$examples/gemm_mainloop.loop.json" --emit region -o "$work/gemm.region.txt"
cmp -s "$work/out" "$work/gemm.region.txt" && fail "--emit region -o also wrote stdout"
grep -q 'tileas.pipe.produce' "$work/gemm.region.txt" || fail "--emit region -o: no region written"
expect 0 "$bin" schedule "$examples/gemm_mainloop.loop.json" --emit json
grep -q '"pipes": \[' "$work/out" || fail "--emit json: no pipes"
rm -f "$work/never.txt"
expect 2 "$bin" schedule "$examples/gemm_mainloop.loop.json" --emit mlir -o "$work/never.txt"
[[ -e $work/never.txt ]] && fail "--emit mlir: an output file was written"
grep -q -- "--emit: unknown output 'mlir'" "$work/err" || fail "--emit mlir: no one-line reason"
[[ $(wc -l <"$work/err") == 1 ]] || fail "--emit mlir: error is not one line"
for g in "$testdata"/infeasible/*.loop.json; do
  expect 1 "$bin" schedule "$g" --emit region
  grep -q 'no feasible schedule' "$work/out" || fail "$g: --emit region does not say infeasible"
  break
done

# A schedule whose carried values were tampered with: illegal, and named.
/usr/bin/python3 - "$work/gemm_mainloop.schedule.json" "$work/bad_pipes.schedule.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["pipes"][0]["depth"] = 7
json.dump(s, open(sys.argv[2], "w"))
PY
expect 1 "$bin" verify "$examples/gemm_mainloop.loop.json" "$work/bad_pipes.schedule.json"
grep -q 'materialization' "$work/out" || fail "verify did not name the materialization rule"

# An illegal schedule: move the read before the load's latency ends.
tamper_read_start "$work/seed_worked_example.schedule.json" "$work/tampered.schedule.json"
expect 1 "$bin" verify "$examples/seed_worked_example.loop.json" "$work/tampered.schedule.json"
grep -q 'L1-dependence' "$work/out" || fail "verify did not name L1 for the tampered schedule"

# Valid graphs without a legal serial schedule: exit 1, JSON says so.
for g in "$testdata"/infeasible/*.loop.json; do
  expect 1 "$bin" schedule "$g" -o "$work/infeasible.json"
  grep -Eq '"feasible": ?false' "$work/infeasible.json" || fail "$g: feasible is not false"
done

# Every malformed graph: exit 2, exactly one line naming the file and a
# JSON path, and no output file.
for g in "$testdata"/bad/*.loop.json; do
  rm -f "$work/never.json"
  expect 2 "$bin" schedule "$g" -o "$work/never.json"
  [[ -e $work/never.json ]] && fail "$g: an output file was written"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "$g: error is not one line: $(cat "$work/err")"
  grep -qF "$g: \$" "$work/err" || fail "$g: error does not name the file and path: $(cat "$work/err")"
done

# The exact oracle: every bundled example gets a proven optimum that verifies.
grep -q -- "--time-limit" <("$bin" schedule --help) || fail "schedule --help does not list --time-limit"
for g in "$examples"/*.loop.json; do
  name=$(basename "$g" .loop.json)
  expect 0 "$bin" schedule "$g" --generator exact -o "$work/$name.exact.json"
  grep -q '"proven_optimal": true' "$work/$name.exact.json" || fail "$name: exact is not proven optimal"
  grep -q '"generator": "exact"' "$work/$name.exact.json" || fail "$name: generator is not exact"
  expect 0 "$bin" verify "$g" "$work/$name.exact.json"
  grep -q '^legal' "$work/out" || fail "$name: verify did not accept the exact schedule"
done
grep -Eq '"ii": ?34' "$work/attention_forward.exact.json" || fail "attention_forward: exact II is not 34"
# Deterministic: a second run gives the same schedule (timings aside,
# also the per-II times in the diagnostics and the thread's measured CPU
# share, exact.cpu_share_pct, which follows the machine's load).
expect 0 "$bin" schedule "$examples/generic_dsp.loop.json" --generator exact
cmp -s <(grep -Ev '"time_ns"|_us"|_pct"|"diagnostics"| ms\)"' "$work/out") \
  <(grep -Ev '"time_ns"|_us"|_pct"|"diagnostics"| ms\)"' "$work/generic_dsp.exact.json") ||
  fail "generic_dsp: two exact runs differ"
grep -Eq '"lower_bound": ?34' "$work/attention_forward.exact.json" ||
  fail "attention_forward: exact lower bound is not 34"
# No solver time: the heuristic's schedule, the MII as the bound, not proven.
expect 0 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --time-limit 0
grep -q '"proven_optimal": false' "$work/out" || fail "--time-limit 0: claims a proof"
grep -Eq '"lower_bound": ?27' "$work/out" || fail "--time-limit 0: lower bound is not the MII 27"
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --time-limit -1
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --time-limit soon
# same_optimum NAME A B WHAT: schedules A and B have the same II and
# proven stage count.
same_optimum() {
  for key in '"ii"' '"stage_count"'; do
    [[ $(grep -E "^  $key" "$2") == $(grep -E "^  $key" "$3") ]] || fail "$1: $4 disagree on $key"
  done
}
# Both backends: the SMT one proves the same optima as the default SAT one
# (the II and the proven stage count), and the backend is recorded.
grep -q '"backend": "sat"' "$work/attention_forward.exact.json" || fail "exact: backend sat not recorded"
for g in "$examples"/*.loop.json; do
  name=$(basename "$g" .loop.json)
  expect 0 "$bin" schedule "$g" --generator exact --exact-backend smt -o "$work/$name.smt.json"
  grep -q '"proven_optimal": true' "$work/$name.smt.json" || fail "$name: smt is not proven optimal"
  same_optimum "$name" "$work/$name.smt.json" "$work/$name.exact.json" "the backends"
done
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --exact-backend maxsat
# The SAT backend's second encoding (--sat-encoding time) proves the same
# optima as the default one and is named in the options; an unknown
# encoding, or one given to the SMT backend, is refused.
for name in attention_forward gemm_mainloop; do
  expect 0 "$bin" schedule "$examples/$name.loop.json" --generator exact --sat-encoding time \
    -o "$work/$name.time.json"
  grep -q '"proven_optimal": true' "$work/$name.time.json" || fail "$name: time is not proven optimal"
  grep -q '"sat_encoding": "time"' "$work/$name.time.json" || fail "$name: sat_encoding not recorded"
  same_optimum "$name" "$work/$name.time.json" "$work/$name.exact.json" "the encodings"
done
if grep -q '"sat_encoding"' "$work/attention_forward.exact.json"; then fail "exact: the default encoding is named"; fi
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --sat-encoding cnf
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --exact-backend smt \
  --sat-encoding time
grep -q -- "--sat-encoding applies to --exact-backend sat only" "$work/err" ||
  fail "smt --sat-encoding: $(cat "$work/err")"
# --exact-start-sum (the SMT backend's tie-break by the sum of starts)
# keeps the proven optimum and is recorded; the SAT backend is refused it.
expect 0 "$bin" schedule "$examples/gemm_mainloop.loop.json" --generator exact --exact-backend smt \
  --exact-start-sum -o "$work/gemm_mainloop.sum.json"
grep -q '"minimise_start_sum": "true"' "$work/gemm_mainloop.sum.json" ||
  fail "exact: minimise_start_sum not recorded"
same_optimum gemm_mainloop "$work/gemm_mainloop.sum.json" "$work/gemm_mainloop.exact.json" "the start sum"
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator exact --exact-start-sum
grep -q -- "--exact-start-sum applies to --exact-backend smt only" "$work/err" ||
  fail "sat --exact-start-sum: $(cat "$work/err")"
expect 2 "$bin" schedule "$examples/attention_forward.loop.json" --generator cost-based --sat-encoding time
grep -q -- "--exact-backend" <("$bin" schedule --help) || fail "schedule --help does not list --exact-backend"

# The iterative and swing modulo schedulers: every bundled example
# schedules and verifies under both; ims's budget ratio is checked.
grep -q -- "--ims-budget-ratio" <("$bin" schedule --help) || fail "schedule --help does not list --ims-budget-ratio"
# An option the chosen generator does not read is refused, one line naming
# it; the same option with a generator that reads it passes.
expect 2 "$bin" schedule "$examples/seed_worked_example.loop.json" -g ims --arm-policy best-cost
grep -q -- '--arm-policy applies to --generator auto, cost-based, cost-based-seed only, not ims' \
  "$work/err" && [[ $(wc -l <"$work/err") == 1 ]] || fail "ims --arm-policy: $(cat "$work/err")"
for pair in "serial --time-limit 5" "cost-based --exact-backend smt" "exact --ii-cap 40" \
            "sms --ims-budget-ratio 2" "cost-based-seed --descent-budget-ratio 0" \
            "exact --serial-threshold 4" "serial --packing-repair off"; do
  # shellcheck disable=SC2086
  expect 2 "$bin" schedule "$examples/seed_worked_example.loop.json" -g $pair
done
expect 0 "$bin" schedule "$examples/seed_worked_example.loop.json" -g cost-based --arm-policy best-cost
expect 0 "$bin" schedule "$examples/seed_worked_example.loop.json" -g ims --ii-cap 40 --packing-repair all
for gen in ims sms; do
  for g in "$examples"/*.loop.json; do
    name=$(basename "$g" .loop.json)
    expect 0 "$bin" schedule "$g" --generator "$gen" -o "$work/$name.$gen.json"
    grep -q "\"generator\": \"$gen\"" "$work/$name.$gen.json" || fail "$name: generator is not $gen"
    expect 0 "$bin" verify "$g" "$work/$name.$gen.json"
    grep -q '^legal' "$work/out" || fail "$name: verify did not accept the $gen schedule"
  done
done
grep -Eq '"ii": ?15' "$work/seed_worked_example.ims.json" || fail "seed_worked_example: ims II is not 15"
expect 0 "$bin" schedule "$examples/generic_dsp.loop.json" --generator ims --ims-budget-ratio 0.5
grep -q '"serial_fallback"' "$work/out" || fail "--ims-budget-ratio 0.5: no serial fallback"
expect 2 "$bin" schedule "$examples/generic_dsp.loop.json" --generator ims --ims-budget-ratio 0
expect 2 "$bin" schedule "$examples/generic_dsp.loop.json" --generator ims --ims-budget-ratio nan
grep -q "ims" <("$bin" schedule "$examples/generic_dsp.loop.json" --generator greedy 2>&1) ||
  fail "an unknown generator's message does not list ims"
grep -q "sms" <("$bin" schedule "$examples/generic_dsp.loop.json" --generator greedy 2>&1) ||
  fail "an unknown generator's message does not list sms"

# Malformed schedules against a valid graph.
# (They are written against small.loop.json; its own schedule verifies.)
expect 0 "$bin" verify "$testdata/small.loop.json" "$testdata/small.schedule.json"
bad_schedules=0
for s in "$testdata"/bad_schedules/*.schedule.json; do
  expect 2 "$bin" verify "$testdata/small.loop.json" "$s"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "$s: error is not one line"
  grep -qF "$s: \$" "$work/err" || fail "$s: error does not name the file and path: $(cat "$work/err")"
  bad_schedules=$((bad_schedules + 1))
done
((bad_schedules >= 20)) || fail "only $bad_schedules malformed schedules found"

# generate: the family list, byte-identical output, one-line refusals.
expect 0 "$bin" generate --help
expect 0 "$bin" generate --list
(( $(grep -c $'\trandom\t' "$work/out") >= 6 )) || fail "generate --list: fewer than 6 random families"
(( $(grep -c $'\tstructured\t' "$work/out") >= 6 )) || fail "generate --list: fewer than 6 structured families"
grep -vqE $'^[a-z0-9_]+\t(random|structured)\t.+$' "$work/out" && fail "generate --list: a malformed line"
cut -f1 "$work/out" >"$work/families"
while read -r fam; do
  expect 0 "$bin" generate --family "$fam" --ops 40 --seed 3 -o "$work/$fam.a.loop.json"
  expect 0 "$bin" generate --family "$fam" --ops 40 --seed 3 -o "$work/$fam.b.loop.json"
  cmp -s "$work/$fam.a.loop.json" "$work/$fam.b.loop.json" || fail "generate $fam: not byte-identical"
  grep -q "\"name\": \"$fam/ops=40/seed=3/" "$work/$fam.a.loop.json" || fail "generate $fam: name does not record the family, size and seed"
  expect 0 "$bin" schedule "$work/$fam.a.loop.json" -o "$work/$fam.schedule.json"
  expect 0 "$bin" verify "$work/$fam.a.loop.json" "$work/$fam.schedule.json"
done <"$work/families"
expect 0 "$bin" generate --family gemm_mainloop --ops 32 --seed 1 --param stages=3
grep -q '"name": "gemm_mainloop/ops=32/seed=1/kind_latencies=0/stages=3/tile_kib=32/k_tiles=6"' "$work/out" ||
  fail "generate: --param not recorded in the name"
expect 0 "$bin" generate --family chains --list-params
grep -q $'^lat_max\t32\t0..1024\t' "$work/out" || fail "generate --list-params: no lat_max line"
for bad in "--family nope --ops 10" "--family chains --ops 10 --param chainz=2" \
           "--family chains --ops 10 --param chains=0" "--family chains --ops 10 --param chains" \
           "--family chains --ops 0" "--family chains --ops 10 --seed -1" "--ops 10"; do
  rm -f "$work/never.json"
  # shellcheck disable=SC2086
  expect 2 "$bin" generate $bad -o "$work/never.json"
  [[ -e $work/never.json ]] && fail "generate $bad: an output file was written"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "generate $bad: error is not one line: $(cat "$work/err")"
done
expect 2 "$bin" generate --family nope --ops 10
grep -q "unknown family 'nope' (families: .*gemm_mainloop" "$work/err" || fail "generate: unknown family does not list the families"
expect 2 "$bin" generate --family chains --ops 10 --param chainz=2
grep -q "unknown parameter 'chainz' (parameters: chains (1..64)" "$work/err" || fail "generate: bad parameter does not list the parameters"

# import: one shared HatScheT instance, scheduled and verified; malformed
# input refused with one line and no output file.
expect 0 "$bin" import --help
expect 2 "$bin" import --from hatschet "$work/nope.graphml" --resources "$work/nope.xml"
printf '<graphml><graph>' >"$work/broken.graphml"
printf '<ModelInformation><Resources/></ModelInformation>' >"$work/empty_RM.xml"
rm -f "$work/never.json"
expect 2 "$bin" import --from hatschet "$work/broken.graphml" --resources "$work/empty_RM.xml" -o "$work/never.json"
[[ -e $work/never.json ]] && fail "import of malformed XML: an output file was written"
[[ $(wc -l <"$work/err") == 1 ]] || fail "import of malformed XML: error is not one line"
grep -qF "$work/broken.graphml: not well-formed XML" "$work/err" || fail "import: error does not name the file: $(cat "$work/err")"
expect 2 "$bin" import --from llvm "$work/broken.graphml" --resources "$work/empty_RM.xml"
if [[ -n $hls && -d $hls/MachSuite/sort_radix ]]; then
  inst=$hls/MachSuite/sort_radix
  expect 0 "$bin" import --from hatschet "$inst/graph1.graphml" --resources "$inst/graph1_RM.xml" -o "$work/hls.loop.json"
  grep -q '"name": "hatschet/sort_radix/graph1"' "$work/hls.loop.json" || fail "import: graph not named after the instance"
  expect 0 "$bin" schedule "$work/hls.loop.json" -o "$work/hls.schedule.json"
  expect 0 "$bin" verify "$work/hls.loop.json" "$work/hls.schedule.json"
  grep -q '^legal' "$work/out" || fail "import: the HLS instance's schedule is not legal"
else
  echo "note: HLS instances not found (${hls:-no directory given}); import check skipped"
fi

finish "cli end-to-end"
