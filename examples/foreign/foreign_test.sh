#!/usr/bin/env bash
# Foreign schedulers end to end (docs/PLUGINS.md, docs/FORMATS.md "Foreign
# schedulers"): the Python example (ext:asap-py) and the C plug-in
# (plugin:PATH, plugin:asap-c) through schedule, verify, explain, sweep,
# resume, compare, replay and the plots; every malformed reply of
# bad_scheduler.py, a program that cannot start and the NULL and error
# plug-in as their one-line errors (schedule: exit 2, no output file) and
# as their failure rows (sweep: every other row kept, verified where it was).
# usage: foreign_test.sh TILESCHED EXAMPLE_DIR ASAP_PLUGIN BAD_PLUGIN GRAPHS_DIR PLOT_PY
set -u
bin=$1 dir=$2 asap=$3 bad=$4 graphs=$5 plot=$6
# shellcheck source=cli/test_lib.sh
source "$dir/../../cli/test_lib.sh"
py=/usr/bin/python3

# mode:expected kind (the sweep's failure column, schedule's error kind).
modes=(empty:foreign-empty not-json:foreign-not-json other-format:foreign-format
       op-count:foreign-op-count negative-start:foreign-start huge-start:foreign-start
       ii-zero:foreign-ii ii-above-cap:foreign-ii-cap other-graph:foreign-other-graph
       other-graph-ops:foreign-other-graph stdout-flood:foreign-stdout-limit
       hang:foreign-timeout signal:foreign-signal exit-3:foreign-exit
       stderr-flood:foreign-stderr-limit partial:foreign-truncated illegal:illegal)
"$py" - "$work/schedulers.json" "$dir" "$asap" "$bad" "${modes[@]}" <<'PY'
import json, sys
out, d, asap, bad, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
s = [{"name": "asap-py", "version": "1.0", "command": ["python3", d + "/asap_modulo.py"]},
     {"name": "asap-c", "plugin": asap}, {"name": "bad-c", "plugin": bad},
     {"name": "missing", "version": "1", "command": ["/nonexistent/scheduler"]}]
for m in [m.split(":")[0] for m in modes] + ["stage-cap", "no-schedule"]:
    e = {"name": "bad-" + m, "version": "1", "command": ["python3", d + "/bad_scheduler.py", m]}
    if m == "hang":
        e["time_limit_s"] = 1.5
    s.append(e)
json.dump({"format": "tilesched.schedulers/1", "schedulers": s}, open(out, "w"), indent=1)
PY
export TILESCHED_SCHEDULERS=$work/schedulers.json
gemm=$graphs/gemm_mainloop.loop.json

# The examples through schedule, verify and explain.
for g in ext:asap-py "plugin:$asap" plugin:asap-c; do
  expect 0 "$bin" schedule "$gemm" --generator "$g" -o "$work/s.json"
  expect 0 "$bin" verify "$gemm" "$work/s.json"
  expect 0 "$bin" explain "$gemm" "$work/s.json"
  grep -q "II 32" "$work/out" || fail "explain $g: $(head -2 "$work/out")"
done
grep -q '"generator": "plugin:asap-c"' "$work/s.json" || fail "plug-in schedule: no generator name"
expect 0 "$bin" explain "$gemm" --generator ext:asap-py
grep -q "II 32 cycles, the ext:asap-py schedule" "$work/out" || fail "explain -g ext: $(head -2 "$work/out")"
expect 2 "$bin" explain "$gemm" --generator ext:bad-empty
grep -q "foreign-empty" "$work/err" || fail "explain -g ext:bad-empty: $(cat "$work/err")"
grep -q '"version": "1.0"' "$work/s.json" || fail "plug-in schedule: no version option"
expect 0 "$bin" schedule "$gemm" --generator ext:asap-py --max-stages 2 -o "$work/c.json"
expect 0 "$bin" verify "$gemm" "$work/c.json"
"$py" -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["stage_count"] <= 2' \
  "$work/c.json" || fail "ext:asap-py --max-stages 2: more stages"

# Each misbehaviour through schedule: exit 2, one line with its kind, no file.
one_line() {  # KIND CMD...: exit 2, one line naming KIND, no output file
  local kind=$1; shift
  rm -f "$work/none.json"
  expect 2 "$@" -o "$work/none.json"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "$*: not one line: $(head -c 300 "$work/err")"
  grep -q "$kind" "$work/err" || fail "$*: no '$kind': $(head -c 300 "$work/err")"
  [[ ! -e $work/none.json ]] || fail "$*: wrote an output file"
}
for m in "${modes[@]}"; do
  one_line "${m#*:}" "$bin" schedule "$gemm" --generator "ext:bad-${m%%:*}"
done
grep -q "giving up on purpose" <("$bin" schedule "$gemm" -g ext:bad-exit-3 2>&1) ||
  fail "exit-3: the program's message is not in the error"
one_line foreign-stage-cap "$bin" schedule "$gemm" --generator ext:bad-stage-cap --max-stages 1
one_line foreign-spawn "$bin" schedule "$gemm" --generator ext:missing
one_line foreign-null "$bin" schedule "$gemm" --generator "plugin:$bad"
sed 's/"name": "gemm-mainloop-2k"/"name": "gemm-error"/' "$gemm" >"$work/gemm-error.loop.json"
one_line foreign-error "$bin" schedule "$work/gemm-error.loop.json" --generator plugin:bad-c
sed 's/"name": "gemm-mainloop-2k"/"name": "gemm-json"/' "$gemm" >"$work/gemm-json.loop.json"
one_line "request_json gave tilesched.request/1" "$bin" schedule "$work/gemm-json.loop.json" \
  --generator plugin:bad-c
one_line "declares no scheduler" "$bin" schedule "$gemm" --generator ext:nope
one_line "cannot load the plug-in" "$bin" schedule "$gemm" --generator "plugin:$bin"
libm=$(cc -print-file-name=libm.so.6 2>/dev/null)
if [[ $libm == /* && -e $libm ]]; then
  one_line "not a tilesched plug-in" "$bin" schedule "$gemm" --generator "plugin:$libm"
fi
one_line "applies to the built-in" "$bin" schedule "$gemm" --generator ext:asap-py --seed 3
expect 1 "$bin" schedule "$gemm" --generator ext:bad-no-schedule
grep -q "nothing found" "$work/err" || fail "no-schedule: $(cat "$work/err")"
TILESCHED_SCHEDULERS=$work/none.json expect 2 "$bin" schedule "$gemm" -g ext:asap-py
echo '{"format": "tilesched.schedulers/1", "schedulers": [{"name": "x"}]}' >"$work/bad.json"
TILESCHED_SCHEDULERS=$work/bad.json expect 2 "$bin" schedule "$gemm" -g ext:x
grep -q 'schedulers\[0\]' "$work/err" || fail "bad schedulers file: $(cat "$work/err")"

# The sweep: every misbehaviour is its row, every other row is kept.
gens=serial,ims,exact,ext:asap-py,plugin:asap-c,plugin:bad-c
for m in "${modes[@]}"; do gens+=,ext:bad-${m%%:*}; done
mkdir "$work/g"
cp "$gemm" "$graphs/generic_dsp.loop.json" "$graphs/spec_example.loop.json" "$work/g/"
expect 1 "$bin" sweep --graphs "$work/g" --generators "$gens" --output "$work/all.csv"
"$py" - "$work/all.csv" "${modes[@]}" <<'PY' || fail "sweep rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {"ext:bad-" + m.split(":")[0]: m.split(":")[1] for m in sys.argv[2:]}
want["plugin:bad-c"] = "foreign-null"
gens = {r["generator"] for r in rows}
assert len(rows) == 3 * (len(want) + 5), len(rows)
bad = 0
for r in rows:
    g = r["generator"]
    if g in want:
        ok = r["failure"] == want[g] and r["verified"] == "0" and r["reason"]
    elif g == "plugin:asap-c" and r["verified"] == "0":  # it declines groups and stores
        ok = r["failure"] == "ii-cap-reached" and "beyond it" in r["reason"]
    else:  # built-in and example rows: verified, with the oracle's II beside them
        ok = r["verified"] == "1" and r["optimal_ii"] != "" and int(r["ii"]) >= int(r["optimal_ii"])
    version = {"ext:asap-py": "1.0", "plugin:asap-c": "1.0", "plugin:bad-c": "0.1"}.get(
        g, "1" if g.startswith("ext:") else "")
    ok = ok and r["generator_version"] == version
    if not ok:
        bad += 1
        print("bad row:", g, r["graph"], r["failure"], r["generator_version"], r["reason"][:120])
sys.exit(1 if bad else 0)
PY
[[ -e $work/all.csv.json ]] && grep -q '"version": "1.0"' "$work/all.csv.json" ||
  fail "the context file does not record the foreign scheduler's version"

# Resume: a sweep killed while the hanging scheduler runs gives, resumed,
# the rows of an uninterrupted run.
rows() { tail -n +2 "$1" | sed -E 's/(,[^,]*){3}$//' | sort; }
hang=(--graphs "$work/g" --generators ext:asap-py,ext:bad-hang,ims --jobs 1)  # >= 4.5 s
"$bin" sweep "${hang[@]}" --output "$work/r.csv" >/dev/null 2>&1 &
pid=$!
sleep 2.5
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[[ -e $work/r.csv.partial ]] || fail "resume: no journal after kill -9"
"$bin" sweep "${hang[@]}" --output "$work/r.csv" --resume >/dev/null 2>&1
"$bin" sweep "${hang[@]}" --output "$work/r2.csv" >/dev/null 2>&1
cmp -s <(rows "$work/r.csv") <(rows "$work/r2.csv") ||
  fail "resume: rows differ: $(diff <(rows "$work/r.csv") <(rows "$work/r2.csv") | head -4)"

# compare, replay and the plots take the new generator names.
expect 0 "$bin" compare "$work/all.csv" "$work/all.csv"
"$bin" sweep --families chains,random_layered --ops 8,16 --seeds 1 -q \
  --generators ext:asap-py,plugin:asap-c,exact --output "$work/fam.csv"
(($? <= 1)) || fail "family sweep with the examples: exit status above 1"
expect 0 "$bin" compare "$work/fam.csv" "$work/fam.csv"
# Two shards of it merge into the single run's rows.
for k in 1 2; do
  "$bin" sweep --families chains,random_layered --ops 8,16 --seeds 1 -q --shard "$k/2" \
    --generators ext:asap-py,plugin:asap-c,exact --output "$work/shard$k.csv"
done
expect 0 "$bin" merge "$work/merged.csv" "$work/shard2.csv" "$work/shard1.csv"
cmp -s <(rows "$work/merged.csv") <(rows "$work/fam.csv") ||
  fail "merge: rows differ from the single run's"
for n in 1 2; do
  expect 0 "$bin" replay "$work/fam.csv" --row "$n" -o "$work/replayed.json"
  grep -q "reproduced" "$work/err" || fail "replay row $n: $(cat "$work/err")"
done
if "$py" -c 'import matplotlib, pandas' 2>/dev/null; then
  expect 0 "$py" "$plot" "$work/fam.csv" "$work/all.csv" --out "$work/plots"
  [[ -s $work/plots/ii_over_mii.png ]] || fail "plot.py wrote no ii_over_mii.png"
else
  echo "note: matplotlib or pandas missing; the plots were not drawn"
fi
# The documented comparison (scripts/foreign_vs_builtins) on the committed
# Triton loops, no HLS set: every built-in and the foreign rows, the table.
expect 0 "$dir/../../scripts/foreign_vs_builtins" ext:asap-py "$work/vs.csv" --hls "$work/no-hls" \
  --kernels "$dir/../../generators/testdata/ttgir" --tilesched "$bin" --jobs 2
for g in serial cost-based cost-based-seed ims sms exact ext:asap-py; do
  grep -q "^$g " "$work/out" || fail "foreign_vs_builtins: no $g line: $(head -c 300 "$work/out")"
done
grep -q "no HLS loops" "$work/err" || fail "foreign_vs_builtins: the missing HLS set is not said"
finish foreign_test
