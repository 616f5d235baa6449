#!/usr/bin/env bash
# End-to-end checks of `tilesched sweep`, `compare`, `merge` and `replay`
# (docs/SWEEP.md): rows identical (timing columns aside) whatever --jobs or
# shard split, shards run as separate processes merge into the single
# run's file, resume after kill -9 loses and duplicates nothing, compare
# passes identical files and catches an injected II regression, --graphs
# sweeps loop graph files and HatScheT instances, replay reproduces a row,
# bad input exits 2 with one line and leaves no file.
# usage: sweep_test.sh TILESCHED EXAMPLES_DIR SWEEP_SBATCH
set -u
bin=$1
examples=$2
sbatch=$3
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

# The rows without the timing columns (time_ns, wall_ns, cpu_ns: the last
# three, plain integers, so cutting at the last three commas is exact).
rows() { tail -n +2 "$1" | sed -E 's/(,[^,]*){3}$//'; }
same_rows() { cmp -s <(rows "$1") <(rows "$2") || fail "$3: rows differ: $(diff <(rows "$1") <(rows "$2") | head -5)"; }

small=(--families random_layered,chains --ops 8,16 --seeds 1-3 --generators serial,cost-based
       --arm-policy first-success,best-cost)

# --help and usage errors: exit 2, one line, no output file.
expect 0 "$bin" sweep --help
grep -q -- "--resume" "$work/out" || fail "sweep --help does not list --resume"
expect 0 "$bin" compare --help
expect 0 "$bin" replay --help
mkdir "$work/empty"
bad_args=("--families nope" "--generators serial,greedy" "--ops 5-1" "--ops 0" "--ops x"
          "--seeds 1-" "--shard 3/2" "--shard 1" "--arm-policy worst" "--jobs 0"
          "--preset huge" "--ops 16-1024x1")
for args in "${bad_args[@]}"; do
  # shellcheck disable=SC2086
  expect 2 "$bin" sweep $args --output "$work/empty/bad.csv"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "sweep $args: not one line: $(cat "$work/err")"
  grep -q '^tilesched sweep: ' "$work/err" || fail "sweep $args: message: $(cat "$work/err")"
done
expect 2 "$bin" sweep --families all
grep -qx "tilesched sweep: --output FILE.csv is required" "$work/err" || fail "no --output: $(cat "$work/err")"
expect 2 "$bin" sweep --preset quick --output "$work/empty"  # a directory
# Standard output, a device or a FIFO: the sweep's side files would land
# beside them, so they are refused before anything is written.
mkfifo "$work/fifo"
for target in - /dev/stdout "$work/fifo"; do
  expect 2 "$bin" sweep --preset quick --output "$target"
  grep -q "is not a regular file" "$work/err" || fail "sweep -o $target: $(cat "$work/err")"
done
[[ ! -e /dev/stdout.json && ! -e /dev/stdout.partial ]] || fail "sweep left files in /dev"
expect 2 "$bin" sweep --preset quick --output "$work/empty/no/such/dir.csv"
expect 2 "$bin" sweep --preset quick --output "$work/empty/a.csv" --out "$work/empty/b.csv"
for args in "--graphs" "--graphs $work/nope" "--graphs $work/empty" "--graphs $examples --ops 8" \
            "--graphs $examples $examples"; do
  # shellcheck disable=SC2086
  expect 2 "$bin" sweep $args --output "$work/empty/bad.csv"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "sweep $args: not one line: $(cat "$work/err")"
done
[[ -z $(ls -A "$work/empty") ]] || fail "bad sweeps left files: $(ls -A "$work/empty")"

# --jobs 1 and --jobs 2 give the same rows, sorted in work-list order.
# --out is the old name of --output; -q silences progress and summary.
expect 0 "$bin" sweep "${small[@]}" --jobs 1 --output "$work/j1.csv"
grep -q '36 rows in' "$work/err" || fail "no summary line: $(cat "$work/err")"
expect 0 "$bin" sweep "${small[@]}" --jobs 2 --out "$work/j2.csv" -q
[[ ! -s $work/err ]] || fail "sweep -q wrote to stderr: $(cat "$work/err")"
same_rows "$work/j1.csv" "$work/j2.csv" "--jobs 1 vs --jobs 2"
[[ $(tail -n +2 "$work/j1.csv" | wc -l) == 36 ]] || fail "expected 36 rows (12 graphs x 3)"
head -1 "$work/j1.csv" | grep -q '^family,ops,' || fail "line 1 is not the header"
head -1 "$work/j1.csv" | grep -q ',time_ns,wall_ns,cpu_ns$' || fail "timing columns are not the last three"
# cpu_ns: the generator call's thread CPU time, a plain non-negative integer
# on every row, and above zero on the cost-based rows (which do real work).
awk -F, 'NR > 1 && $NF !~ /^[0-9]+$/ {bad = 1} NR > 1 && /,cost-based,/ && $NF == 0 {bad = 1}
         END {exit bad}' "$work/j1.csv" || fail "cpu_ns: $(cut -d, -f1-6 "$work/j1.csv" | head -3)"
[[ -s $work/j1.csv.json ]] || fail "no context file"
for field in engine_git_sha compiler compiler_id compiler_version cxx_flags build_type z3_version cadical_version \
             host cpus cpus_usable load_average date command csv_format; do
  grep -q "\"$field\"" "$work/j1.csv.json" || fail "context file lacks $field"
done
grep -q '"csv_format": "tilesched.sweep/7"' "$work/j1.csv.json" || fail "context: csv_format"
# The effort column: the cost-based rows' level (default unless --effort
# says; cost-based-seed's is full), empty for the other generators; an
# unknown level is refused.
/usr/bin/python3 - "$work/j1.csv" <<'PY' || fail "effort column"
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    want = {"cost-based": "default", "cost-based-seed": "full"}.get(r["generator"], "")
    assert r["effort"] == want, (r["generator"], r["effort"])
PY
expect 2 "$bin" sweep --families chains --ops 8 --seeds 1 --effort most -q --output "$work/e.csv"
grep -q "effort" "$work/err" || fail "--effort most: $(cat "$work/err")"
expect 0 "$bin" sweep --families chains --ops 8 --seeds 1 --generators cost-based --effort full -q \
  --output "$work/e.csv"
grep -q ',full,' "$work/e.csv" || fail "--effort full: no row says full"
grep -q '"effort": "full"' "$work/e.csv.json" || fail "--effort full: not in the context's signature"
# --jobs defaults to the CPUs this process may use (what nproc counts).
grep -q "\"jobs\": $(nproc)," "$work/j1.csv.json" || true  # --jobs 1 was given here
expect 0 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial -q --output "$work/n.csv"
grep -q "\"jobs\": $(nproc)," "$work/n.csv.json" || fail "default --jobs is not nproc ($(nproc))"
if command -v taskset >/dev/null && (($(nproc) > 1)); then
  expect 0 taskset -c 0 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial -q \
    --output "$work/n.csv"
  grep -q '"jobs": 1,' "$work/n.csv.json" || fail "default --jobs ignores the affinity mask"
fi
[[ ! -e $work/j1.csv.partial ]] || fail "journal left behind"
[[ -z $(cut -d, -f22 "$work/j1.csv" | tail -n +2 | grep -v '^$') ]] || fail "unexpected reasons"
# The CSV reads with no options: csv.DictReader (and pandas when present).
/usr/bin/python3 - "$work/j1.csv" <<'PY' || fail "csv.DictReader / pandas cannot read the CSV"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 36 and rows[0]["family"] == "random_layered", rows[0]
try:
    import pandas
except ImportError:
    sys.exit(0)
df = pandas.read_csv(sys.argv[1])
assert df.shape[0] == 36 and "ii" in df.columns and df["ops"].dtype.kind == "i", df.dtypes
PY

# Progress off a terminal: plain lines (rows done/total, rate, ETA) on stderr.
expect 0 "$bin" sweep --families random_layered --ops 32 --seeds 1-6 --generators serial,cost-based \
  --jobs 1 --progress-seconds 0 --output "$work/p.csv"
grep -Eq '^tilesched sweep: [0-9]+/12 rows \([0-9]+%\), [0-9.]+ rows/s, ETA [0-9:-]+$' "$work/err" ||
  fail "no progress line: $(cat "$work/err")"
expect 0 "$bin" sweep --families random_layered --ops 32 --seeds 1-6 --generators serial,cost-based \
  --jobs 1 --progress-seconds 0 --output "$work/p.csv" --quiet
[[ ! -s $work/err ]] || fail "sweep --quiet printed progress: $(cat "$work/err")"

# The shards' union is the full sweep; shards are disjoint. Run as separate
# processes at once, they merge into the single run's file: the same header
# and rows (timing aside) in the same order.
pids=()
for k in 1 2 3; do
  "$bin" sweep "${small[@]}" --shard "$k/3" --jobs 1 -q --output "$work/s$k.csv" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a shard failed"; done
cmp -s <(for k in 1 2 3; do rows "$work/s$k.csv"; done | sort) <(rows "$work/j1.csv" | sort) ||
  fail "shard union differs from the full sweep"
[[ -z $(for k in 1 2 3; do rows "$work/s$k.csv"; done | sort | uniq -d) ]] || fail "shards overlap"
expect 0 "$bin" merge "$work/m.csv" "$work/s3.csv" "$work/s1.csv" "$work/s2.csv"
cmp -s <(head -1 "$work/m.csv") <(head -1 "$work/j1.csv") || fail "merge: header differs"
same_rows "$work/j1.csv" "$work/m.csv" "merged shards vs a single run"
grep -q '"shard": "1/1"' "$work/m.csv.json" || fail "merge: context not the single run's"
[[ $(grep -c '"shard": "[123]/3"' "$work/m.csv.json") == 3 ]] || fail "merge: shard contexts"
expect 0 "$bin" compare "$work/j1.csv" "$work/m.csv"
expect 0 "$bin" merge -q "$work/m1.csv" "$work/s1.csv" "$work/s2.csv" "$work/s3.csv"
[[ ! -s $work/err ]] || fail "merge -q wrote to stderr"
same_rows "$work/m.csv" "$work/m1.csv" "merge order of the arguments"
# Refusals: exit 2, one line naming the file and the key or field, no output.
merge_refuses() {  # WHAT PATTERN SHARD...
  local what=$1 pattern=$2
  shift 2
  expect 2 "$bin" merge "$work/empty/merged.csv" "$@"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "merge, $what: not one line: $(cat "$work/err")"
  grep -q -- "$pattern" "$work/err" || fail "merge, $what: $(cat "$work/err")"
  [[ -z $(ls -A "$work/empty") ]] || fail "merge, $what: left files"
}
merge_refuses "missing shard" 'missing key' "$work/s1.csv" "$work/s3.csv"
merge_refuses "duplicate shard" 's2.csv: line 2: duplicate key' "$work/s1.csv" "$work/s2.csv" \
  "$work/s2.csv" "$work/s3.csv"
head -c -7 "$work/s2.csv" >"$work/torn.csv"
cp "$work/s2.csv.json" "$work/torn.csv.json"
merge_refuses "torn last line" 'torn.csv: line [0-9]*: torn last line' "$work/s1.csv" \
  "$work/torn.csv" "$work/s3.csv"
cp "$work/s2.csv" "$work/rev.csv"
sed -E 's/"engine_git_sha": "[^"]*"/"engine_git_sha": "0000000"/' "$work/s2.csv.json" >"$work/rev.csv.json"
merge_refuses "another engine revision" 'rev.csv.json: $.sweep.engine_git_sha' "$work/s1.csv" \
  "$work/rev.csv" "$work/s3.csv"
"$bin" sweep "${small[@]:0:8}" --arm-policy best-cost --shard 2/3 -q --output "$work/opt.csv"
merge_refuses "other options" 'opt.csv.json: $.sweep.generators' "$work/s1.csv" "$work/opt.csv" \
  "$work/s3.csv"
"$bin" sweep "${small[@]}" --shard 2/2 -q --output "$work/split.csv"
merge_refuses "another split" 'split.csv.json: $.sweep.shard' "$work/s1.csv" "$work/split.csv"
expect 2 "$bin" merge "$work/empty/merged.csv"
# scripts/slurm/sweep.sbatch with Slurm's variables set as an array of 3
# tasks sets them, then its merge job: the single run's rows. (bench/sweep/
# slurm_test.sh runs it on a real Slurm.) N is TILESCHED_SHARDS: task 2
# re-submitted alone (SLURM_ARRAY_TASK_COUNT=1, MIN=MAX=2) runs shard 2/3;
# the merge names the shards not finished; an array past N is refused.
task() {  # task K MIN MAX COUNT: array task K of the sweep of 3 shards
  expect "$5" env SLURM_SUBMIT_DIR="$work" SLURM_ARRAY_TASK_ID="$1" SLURM_ARRAY_TASK_MIN="$2" \
    SLURM_ARRAY_TASK_MAX="$3" SLURM_ARRAY_TASK_COUNT="$4" SLURM_CPUS_PER_TASK=1 \
    TILESCHED_SHARDS=3 TILESCHED_BIN="$(realpath "$bin")" TILESCHED_OUT_DIR="$work/slurm" \
    TILESCHED_SWEEP="${small[*]}" "$sbatch"
}
merge_job() {
  expect "$1" env SLURM_SUBMIT_DIR="$work" TILESCHED_MERGE=1 TILESCHED_SHARDS=3 \
    TILESCHED_BIN="$(realpath "$bin")" TILESCHED_OUT_DIR="$work/slurm" "$sbatch"
}
task 1 1 3 3 0
task 3 1 3 3 0
merge_job 2
grep -q "^sweep.sbatch: merge: 1 of 3 shards in $work/slurm not finished: shard.2.csv (never started); re-run them: scripts/slurm/submit --array=2$" "$work/err" ||
  fail "sweep.sbatch merge does not name the unfinished shard: $(cat "$work/err")"
[[ ! -e $work/slurm/sweep.csv ]] || fail "sweep.sbatch: a refused merge wrote sweep.csv"
task 2 2 2 1 0
grep -q "^sweep.sbatch: shard 2/3 " "$work/err" || fail "task 2 re-run alone is not shard 2/3: $(cat "$work/err")"
merge_job 0
same_rows "$work/j1.csv" "$work/slurm/sweep.csv" "sweep.sbatch: merged array vs a single run"
task 4 1 4 4 2
grep -q "reaches past N=3 shards" "$work/err" || fail "an array past N is not refused: $(cat "$work/err")"
# --estimate: nothing run or written; the shard's graphs, rows and time; a
# configuration the timings lack refused with one line.
before=$(ls "$work" | wc -l)
expect 0 "$bin" sweep "${small[@]}" --shard 2/3 --jobs 2 --estimate "$work/j1.csv"
grep -q "^shard 2/3: 4 graphs, 12 rows; timings from $work/j1.csv (36 rows, op counts up to 16)$" \
  "$work/out" && grep -q "^wall time at --jobs 2: " "$work/out" ||
  fail "sweep --estimate: $(cat "$work/out" "$work/err")"
[[ $(ls "$work" | wc -l) == "$before" ]] || fail "sweep --estimate wrote a file"
expect 2 "$bin" sweep "${small[@]:0:6}" --generators ims --estimate "$work/j1.csv"
[[ $(cat "$work/err") == "tilesched sweep: $work/j1.csv: no timed row of ims (the timings must cover every configuration of the sweep)" ]] ||
  fail "sweep --estimate without timings of ims: $(cat "$work/err")"
# merge lists the rows that did not verify (exit 0: the merged file has them).
infeasible=$examples/../testdata/infeasible
for k in 1 2; do
  "$bin" sweep --graphs "$infeasible" --generators serial --shard $k/2 -q --output "$work/inf.$k.csv" 2>/dev/null
done
expect 0 "$bin" merge "$work/inf.csv" "$work/inf.1.csv" "$work/inf.2.csv" -q
grep -q "^tilesched merge: 2 row(s) not verified" "$work/err" &&
  grep -q "^  file|2|0|serial||zero_latency_cycle.loop.json: dependence-cycle: " "$work/err" ||
  fail "merge does not list the rows that did not verify: $(cat "$work/err")"

# Resume after kill -9: start, kill mid-way, add a torn half row as a write
# cut short would, resume; the result equals an uninterrupted run.
slow=(--families random_layered,sparse_recurrent --ops 64 --seeds 1-4 --generators serial,cost-based
      --arm-policy best-cost)
expect 0 "$bin" sweep "${slow[@]}" --jobs 1 --output "$work/ref.csv"
"$bin" sweep "${slow[@]}" --jobs 1 --output "$work/res.csv" 2>/dev/null &
pid=$!
for _ in $(seq 1 6000); do  # until a graph's rows are in the journal (2 min at most)
  [[ -f $work/res.csv.partial ]] && (( $(wc -l <"$work/res.csv.partial") >= 3 )) && break
  sleep 0.02
done
if kill -9 "$pid" 2>/dev/null; then
  wait "$pid" 2>/dev/null
  done_rows=$(($(wc -l <"$work/res.csv.partial") - 1))
  echo "resume: killed after $done_rows of 16 rows"
  (( done_rows < 16 )) || fail "resume: the sweep finished before it was killed"
  [[ ! -e $work/res.csv ]] || fail "resume: result file exists before the sweep finished"
  printf 'random_layered,64,9,1,0123' >>"$work/res.csv.partial"  # a torn last line
  expect 0 "$bin" sweep "${slow[@]}" --jobs 2 --resume --output "$work/res.csv"
  grep -q 'dropped a partial last line' "$work/err" || fail "resume: torn line not reported"
  grep -q "($done_rows kept" "$work/err" || fail "resume: expected $done_rows kept rows: $(cat "$work/err")"
  same_rows "$work/ref.csv" "$work/res.csv" "resume after kill"
  [[ -z $(rows "$work/res.csv" | cut -d, -f1,2,4,6,7 | sort | uniq -d) ]] || fail "resume: duplicates"
  [[ ! -e $work/res.csv.partial ]] || fail "resume: journal left behind"
else
  wait "$pid"
  fail "resume: the sweep ended before the test could kill it"
fi
# Resuming a finished sweep keeps every row and recomputes nothing.
expect 0 "$bin" sweep "${slow[@]}" --resume --output "$work/res.csv"
grep -q '(16 kept' "$work/err" || fail "resume of a finished sweep: $(cat "$work/err")"
same_rows "$work/ref.csv" "$work/res.csv" "resume of a finished sweep"
# A journal of other parameters is refused (exit 2), and left alone.
cp "$work/ref.csv" "$work/other.csv.partial"
echo '{}' >"$work/other.csv.partial.json"
expect 2 "$bin" sweep "${small[@]}" --resume --output "$work/other.csv"
[[ -e $work/other.csv.partial && ! -e $work/other.csv ]] || fail "refused resume touched files"

# compare: identical files pass, an injected II regression fails.
expect 0 "$bin" compare "$work/j1.csv" "$work/j2.csv"
grep -q 'result: ok' "$work/out" || fail "compare: no ok line"
grep -q 'cost-based/best-cost' "$work/out" || fail "compare: no per-generator table"
awk -F, 'BEGIN{OFS=","} NR==5{$9=$9+1} {print}' "$work/j1.csv" >"$work/worse.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/worse.csv"
grep -q 'REGRESSION: .*: II ' "$work/out" || fail "compare: regression not named"
expect 0 "$bin" compare "$work/worse.csv" "$work/j1.csv"  # an improvement is not a regression
awk -F, 'BEGIN{OFS=","} NR==5{$5="ffffffffffffffff"} {print}' "$work/j1.csv" >"$work/changed.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/changed.csv"
expect 0 "$bin" compare "$work/j1.csv" "$work/changed.csv" --allow-graph-changes
# Lost rows: NEW without BASE's verified cost-based/best-cost rows is a
# regression naming each key, unless --allow-missing; the group then on one
# side only shows a dash (null in JSON), not a zero.
awk -F, '$6 != "cost-based" || $7 != "best-cost"' "$work/j1.csv" >"$work/lost.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/lost.csv"
lost=$(grep -c '^REGRESSION: random_layered|8|1|cost-based|best-cost: .*missing from new' "$work/out")
[[ $lost == 1 ]] || fail "compare: lost row not named: $(grep REGRESSION "$work/out" | head -3)"
grep -q '^result: REGRESSION' "$work/out" || fail "compare: lost rows pass"
grep -Eq '^cost-based/best-cost +chains +0 +[0-9.]+ -> - ' "$work/out" ||
  fail "compare: one-sided group not a dash: $(grep best-cost "$work/out" | head -2)"
expect 0 "$bin" compare "$work/j1.csv" "$work/lost.csv" --allow-missing
grep -q '^warning: 12 row(s) of .* are missing from .*--allow-missing' "$work/out" ||
  fail "compare --allow-missing: no warning: $(grep warning "$work/out")"
expect 1 "$bin" compare "$work/j1.csv" "$work/lost.csv" --format json
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
g = [g for g in j["groups"] if g["generator"] == "cost-based/best-cost"]
assert g and all(x["ii_over_mii"][1] is None and x["median_time_ns"] == [None, None] for x in g), g
assert sum("missing from new" in r for r in j["regressions"]) == 12, j["regressions"]' "$work/out" ||
  fail "compare --format json: lost rows: $(head -c 400 "$work/out")"
# Timing only fails when asked to: every time x10.
awk -F, 'BEGIN{OFS=","} NR>1{$(NF-2)=$(NF-2)*10} {print}' "$work/j1.csv" >"$work/slow.csv"
expect 0 "$bin" compare "$work/j1.csv" "$work/slow.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/slow.csv" --time-fail-ratio 3 --time-floor-us 0
# --format markdown (a CI summary) and json; -q: the result line only.
expect 1 "$bin" compare "$work/j1.csv" "$work/worse.csv" --format markdown
grep -q '^### tilesched compare: REGRESSION' "$work/out" || fail "markdown: no heading"
grep -q '^| generator | family |' "$work/out" || fail "markdown: no table"
grep -q '^- .*: II ' "$work/out" || fail "markdown: regression not listed"
expect 1 "$bin" compare "$work/j1.csv" "$work/worse.csv" --format json
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["result"] == "regression" and j["regressions"] and j["groups"], j' "$work/out" ||
  fail "json: $(head -c 300 "$work/out")"
expect 0 "$bin" compare "$work/j1.csv" "$work/j2.csv" --format json
grep -q '"result": "ok"' "$work/out" || fail "json: no ok result"
expect 1 "$bin" compare "$work/j1.csv" "$work/worse.csv" -q
[[ $(tail -1 "$work/out") == "result: REGRESSION" && $(grep -vc '^REGRESSION: ' "$work/out") == 1 ]] ||
  fail "compare -q: $(cat "$work/out")"
expect 2 "$bin" compare "$work/j1.csv" "$work/j2.csv" --format html
# Duplicate row keys: exit 2, one line naming the file and the key.
{ cat "$work/j1.csv"; tail -n +2 "$work/j1.csv" | head -12; } >"$work/dup.csv"
expect 2 "$bin" compare "$work/j1.csv" "$work/dup.csv"
grep -q 'dup.csv: line 38: duplicate row key random_layered|8|1|serial' "$work/err" ||
  fail "compare: duplicate key: $(cat "$work/err")"
[[ $(wc -l <"$work/err") == 1 ]] || fail "compare: duplicates: not one line"
expect 2 "$bin" compare "$work/dup.csv" "$work/j1.csv"
# A version 2 file (the '#' version line, no graph column) still compares.
/usr/bin/python3 - "$work/j1.csv" "$work/v2.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
g = rows[0].index("graph")
with open(sys.argv[2], "w", newline="") as out:
    out.write("# tilesched.sweep/2\n")
    csv.writer(out, lineterminator="\n").writerows([r[:g] + r[g + 1:] for r in rows])
PY
expect 0 "$bin" compare "$work/v2.csv" "$work/j1.csv"
grep -q '^36 matched row' "$work/out" || fail "compare of a version 2 file: $(tail -3 "$work/out")"

# Malformed input: exit 2, one line naming the file.
printf 'family,ops\nx,1\n' >"$work/plain.csv"
expect 2 "$bin" compare "$work/j1.csv" "$work/plain.csv"
grep -q 'plain.csv' "$work/err" || fail "compare: malformed file not named"
[[ $(wc -l <"$work/err") == 1 ]] || fail "compare: not one line: $(cat "$work/err")"
awk -F, 'BEGIN{OFS=","} NR==4{$9="x"} {print}' "$work/j1.csv" >"$work/badii.csv"
expect 2 "$bin" compare "$work/j1.csv" "$work/badii.csv"
grep -q 'badii.csv: line 4: ii' "$work/err" || fail "compare: bad field: $(cat "$work/err")"
head -c -3 "$work/j1.csv" >"$work/torn.csv"
expect 2 "$bin" compare "$work/j1.csv" "$work/torn.csv"
grep -q 'torn.csv: line 37: torn last line' "$work/err" || fail "compare: torn: $(cat "$work/err")"
expect 2 "$bin" compare "$work/j1.csv" "$work/nope.csv"
# A loop graph (JSON, here without a final line break) is not a sweep CSV,
# rather than a torn one.
head -c -1 "$examples/gemm_mainloop.loop.json" >"$work/x.loop.json"
expect 2 "$bin" compare "$work/j1.csv" "$work/x.loop.json"
grep -q 'x.loop.json: line 1: not a sweep CSV' "$work/err" ||
  fail "compare of a loop graph: $(cat "$work/err")"

# replay: a row reproduces its II; a tampered row does not.
expect 0 "$bin" replay "$work/j1.csv" --row 5 -o "$work/replay.json" --graph-out "$work/g.json"
grep -q 'reproduced' "$work/err" || fail "replay: $(cat "$work/err")"
ii=$(awk -F, 'NR==6{print $9}' "$work/j1.csv")
grep -Eq "\"ii\": ?$ii," "$work/replay.json" || fail "replay: II $ii not in the schedule"
expect 0 "$bin" verify "$work/g.json" "$work/replay.json"
expect 0 "$bin" replay "$work/j1.csv" --key chains,16,2,cost-based,best-cost
expect 0 "$bin" replay "$work/j1.csv" --key random_layered,8,1,serial
expect 1 "$bin" replay "$work/worse.csv" --row 4
expect 2 "$bin" replay "$work/j1.csv" --row 999
expect 2 "$bin" replay "$work/j1.csv" --key nope,8,1,serial
expect 2 "$bin" replay "$work/j1.csv"

# exact: its row is verified and fills optimal_ii and proven on every row
# of its graph.
expect 0 "$bin" sweep --families random_layered --ops 8 --seeds 1-2 --generators serial,exact \
  --output "$work/exact.csv"
col() { sed -n 1p "$work/exact.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
[[ -n $(col optimal_ii) && -n $(col proven) ]] || fail "exact: no optimal_ii/proven columns"
awk -F, -v o="$(col optimal_ii)" -v p="$(col proven)" -v v="$(col verified)" \
  'NR > 1 && ($o == "" || $p != 1 || $v != 1) { bad = 1 } END { exit bad }' "$work/exact.csv" ||
  fail "exact: rows without a proven optimum: $(tail -n +3 "$work/exact.csv")"

# --graphs: loop graph files and HatScheT instances (GraphML with its
# resource model beside it, X_RM.xml or XRM.xml), keyed by their path
# relative to the argument, in byte order; shards, merge and resume alike.
mkdir -p "$work/hls/b" "$work/hls/a"
hls_graph() {  # FILE: three ops on one adder, a recurrence of distance 1
  cat >"$1" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<graphml><graph edgedefault="directed" id="">
  <node id="1"><data key="name">a</data><data key="uses_resource">Add</data></node>
  <node id="2"><data key="name">b</data><data key="uses_resource">Add</data></node>
  <node id="3"><data key="name">c</data><data key="uses_resource">Mul</data></node>
  <edge id="1_2" source="1" target="2"><data key="distance">0</data><data key="delay">0</data></edge>
  <edge id="2_3" source="2" target="3"><data key="distance">0</data><data key="delay">0</data></edge>
  <edge id="3_1" source="3" target="1"><data key="distance">1</data><data key="delay">0</data></edge>
</graph></graphml>
XML
}
hls_rm() {
  cat >"$1" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<ModelInformation><Resources>
  <Resource blockingTime="1" latency="2" limit="1" name="Add"/>
  <Resource blockingTime="1" latency="3" limit="1" name="Mul"/>
</Resources></ModelInformation>
XML
}
hls_graph "$work/hls/b/g1.graphml"; hls_rm "$work/hls/b/g1_RM.xml"
hls_graph "$work/hls/a/g2.graphml"; hls_rm "$work/hls/a/g2RM.xml"
gens=(--generators serial,cost-based --arm-policy first-success)
expect 0 "$bin" sweep --graphs "$examples/gemm_mainloop.loop.json" "$work/hls" "${gens[@]}" \
  -q --output "$work/files.csv"
/usr/bin/python3 - "$work/files.csv" <<'PY' || fail "--graphs rows: $(cut -d, -f1-9,16 "$work/files.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
got = [(r["family"], r["seed"], r["graph"], r["generator"], r["verified"]) for r in rows]
want = [(f, "0", g, gen, "1") for f, g in [("file", "gemm_mainloop.loop.json"),
                                            ("hatschet", "a/g2.graphml"), ("hatschet", "b/g1.graphml")]
        for gen in ("serial", "cost-based")]
assert got == want, got
assert [r["ops"] for r in rows[2:]] == ["3"] * 4, rows
PY
expect 0 "$bin" sweep --graphs "$examples" "$work/hls" "${gens[@]}" -q --output "$work/all.csv"
for k in 1 2; do
  expect 0 "$bin" sweep --graphs "$examples" "$work/hls" "${gens[@]}" -q --shard "$k/2" \
    --output "$work/fs$k.csv"
done
expect 0 "$bin" merge -q "$work/fm.csv" "$work/fs1.csv" "$work/fs2.csv"
same_rows "$work/all.csv" "$work/fm.csv" "--graphs: merged shards vs a single run"
expect 0 "$bin" sweep --graphs "$examples" "$work/hls" "${gens[@]}" --resume --output "$work/all.csv"
grep -q "kept from the earlier run" "$work/err" || fail "--graphs: resume: $(cat "$work/err")"
expect 0 "$bin" compare "$work/all.csv" "$work/fm.csv"
# An edited graph file is another sweep: resume starts over.
hls_rm "$work/hls/a/g2RM.xml"; sed -i 's/latency="3"/latency="4"/' "$work/hls/a/g2RM.xml"
expect 0 "$bin" sweep --graphs "$examples" "$work/hls" "${gens[@]}" --resume --output "$work/all.csv"
grep -q "starting over" "$work/err" || fail "--graphs: an edited file was resumed: $(cat "$work/err")"
# replay rebuilds family rows only, and says so for a --graphs row.
expect 2 "$bin" replay "$work/files.csv" --row 3
grep -q "line 4: a --graphs row (hatschet graph 'a/g2.graphml'): replay rebuilds only the rows of a generated family" \
  "$work/err" && [[ $(wc -l <"$work/err") == 1 ]] || fail "replay of an HLS row: $(cat "$work/err")"
rm "$work/hls/b/g1_RM.xml"
expect 2 "$bin" sweep --graphs "$work/hls" --output "$work/empty/bad.csv"
grep -q 'g1.graphml: no resource model' "$work/err" || fail "--graphs: no RM: $(cat "$work/err")"

# The stage cap (--max-stages): a parameter multiplying the configurations
# and a column; capped rows stay within their cap, keep their own keys, and
# replay; a file without the column (version 3, like the committed
# baseline) still compares with one that has it.
cap_args=(--families gemm_mainloop --ops 16 --seeds 1-2 --generators cost-based,ims --jobs 2)
expect 0 "$bin" sweep "${cap_args[@]}" --max-stages 0,1,2 --output "$work/cap.csv"
/usr/bin/python3 - "$work/cap.csv" <<'PY' || fail "--max-stages: rows, column or caps wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 12, len(rows)
assert [r["max_stages"] for r in rows[:3]] == ["0", "1", "2"], [r["max_stages"] for r in rows[:3]]
for r in rows:
    cap = int(r["max_stages"])
    assert r["verified"] == "1", r
    assert cap == 0 or int(r["stage_count"]) <= cap, r
assert any(int(r["stage_count"]) > 1 for r in rows if r["max_stages"] == "0")  # the cap binds
PY
expect 0 "$bin" replay "$work/cap.csv" --row 2 -q
/usr/bin/python3 - "$work/cap.csv" "$work/nocap.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = [c for c in rows[0] if c != "max_stages"]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, cols, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(r for r in rows if r["max_stages"] == "0")
PY
expect 0 "$bin" compare "$work/nocap.csv" "$work/cap.csv"
grep -q "result: ok" "$work/out" || fail "compare of a file without max_stages: $(cat "$work/out")"
grep -q "cost-based/first-success max_stages=1" "$work/out" || fail "compare: no group for the capped rows"
# compare's text table lines up whatever the labels' length (a generator
# with its arm policy and stage cap, a long family name).
expect 0 "$bin" sweep --families gemm_mainloop,resource_saturated --ops 16 --seeds 1 \
  --generators cost-based-seed --arm-policy first-success --max-stages 0,2 -q --output "$work/long.csv"
expect 0 "$bin" compare "$work/long.csv" "$work/long.csv"
/usr/bin/python3 - "$work/out" <<'PY' || fail "compare: the text table does not line up: $(cat "$work/out")"
import sys
lines = open(sys.argv[1]).read().split("\n\n")[0].splitlines()
assert any("cost-based-seed/first-success max_stages=2" in l for l in lines), lines
end = lines[0].index("rows") + 4  # right-aligned
for l in lines[2:]:
    assert l[end - 1].isdigit() and l[end] == " ", ("rows", l)
for col in ("II/MII", "at MII", "stages", "median time", "wins/losses"):
    at = lines[0].index(col)
    for l in lines[2:]:
        assert l[at - 1] == " ", (col, l)
PY
# Each row's optimum is the oracle's under the row's own stage cap, in
# either order of --max-stages.
for caps in 1,0 0,1; do
  expect 0 "$bin" sweep --families gemm_mainloop --ops 8 --seeds 1-2 --generators cost-based,exact \
    --max-stages "$caps" -q --output "$work/opt$caps.csv"
  /usr/bin/python3 - "$work/opt$caps.csv" <<'PY' || fail "--max-stages $caps: optimal_ii not the same cap's oracle"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
exact = {(r["seed"], r["max_stages"]): r for r in rows if r["generator"] == "exact"}
assert len(exact) == 4, exact
assert any(exact[s, "0"]["ii"] != exact[s, "1"]["ii"] for s in ("1", "2")), "the cap does not bind"
for r in rows:
    e = exact[r["seed"], r["max_stages"]]
    assert (r["optimal_ii"], r["proven"]) == (e["ii"], e["proven"]), (r["generator"], r["max_stages"])
    assert int(r["ii"]) >= int(r["optimal_ii"]) or r["proven"] != "1", r
PY
done
expect 2 "$bin" sweep "${cap_args[@]}" --max-stages 0,x --output "$work/empty/bad.csv"

finish "sweep end-to-end"
