#!/usr/bin/env bash
# End-to-end checks of the I/O conventions every command shares
# (docs/FORMATS.md, "Reading and writing files"): -o through a symbolic
# link, into a FIFO, /dev/null, /dev/stdout, refused on a directory; "-" as
# standard input and output; --quiet; verify --json; -o/--output
# everywhere; a missing positional named as the user writes it.
# usage: io_test.sh TILESCHED EXAMPLES_DIR GENERATORS_TESTDATA_DIR
set -u
bin=$1 examples=$2 gtestdata=$3
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

graph=$examples/seed_worked_example.loop.json
one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
no_time() { grep -v '"time_ns"' "$1"; }

expect 0 "$bin" schedule "$graph" -o "$work/plain.json"
expect 0 "$bin" generate --family chains --ops 8 --seed 1 -o "$work/chains.loop.json"
expect 0 "$bin" sweep --families chains --ops 8 --seeds 1 --generators serial -j 1 -o "$work/s.csv"

# -o/--output, long and short, on every command that writes something.
expect 0 "$bin" schedule "$graph" --output "$work/long.json"
cmp -s <(no_time "$work/long.json") <(no_time "$work/plain.json") || fail "schedule --output differs from -o"
expect 0 "$bin" verify "$graph" "$work/plain.json" --output "$work/verdict.txt"
grep -q '^legal: ' "$work/verdict.txt" || fail "verify --output: no verdict written"
[[ -s $work/out ]] && fail "verify --output also wrote stdout"
expect 0 "$bin" generate --family chains --ops 8 --seed 1 --output "$work/g.loop.json"
cmp -s "$work/g.loop.json" "$work/chains.loop.json" || fail "generate --output differs from -o"
expect 0 "$bin" export "$graph" --dot --output "$work/g.dot"
grep -q '^digraph' "$work/g.dot" || fail "export --output: no DOT written"
expect 0 "$bin" import --from hatschet "$gtestdata/tiny.graphml" --resources "$gtestdata/tiny_RM.xml" \
  --output "$work/tiny.loop.json"
grep -q '"format": "tilesched.loop/1"' "$work/tiny.loop.json" || fail "import --output: no graph written"
expect 0 "$bin" replay "$work/s.csv" --row 1 --output "$work/replay.json"
grep -q '"format": "tilesched.schedule/1"' "$work/replay.json" || fail "replay --output: no schedule written"
expect 0 "$bin" compare "$work/s.csv" "$work/s.csv" --output "$work/report.txt"
grep -q '^result: ok' "$work/report.txt" || fail "compare --output: no report written"
[[ -s $work/out ]] && fail "compare --output also wrote stdout"

# -o into a directory that does not exist: exit 2, one line naming it, as
# sweep's; no file anywhere.
expect 2 "$bin" schedule "$graph" -o "$work/missing/s.json"
[[ $(cat "$work/err") == "tilesched schedule: $work/missing/s.json: directory $work/missing does not exist" ]] ||
  fail "-o MISSING/FILE: $(cat "$work/err")"
[[ -e $work/missing ]] && fail "-o MISSING/FILE made the directory"
expect 2 "$bin" compare "$work/s.csv" "$work/s.csv" -o "$work/missing/r.txt"
grep -q ": directory $work/missing does not exist$" "$work/err" || fail "compare -o MISSING/FILE: $(cat "$work/err")"
# An input that cannot be opened says why.
expect 2 "$bin" compare "$work/nope.csv" "$work/s.csv"
[[ $(cat "$work/err") == "tilesched compare: $work/nope.csv: cannot open: No such file or directory" ]] ||
  fail "compare MISSING.csv: $(cat "$work/err")"

# -o through a symbolic link: the target is replaced, the link stays.
printf 'old\n' >"$work/target.json"
ln -s target.json "$work/link.json"
expect 0 "$bin" schedule "$graph" -o "$work/link.json"
[[ -L $work/link.json ]] || fail "-o LINK replaced the link"
cmp -s <(no_time "$work/target.json") <(no_time "$work/plain.json") || fail "-o LINK: the target was not written"
# A dangling link gets its target created.
ln -s made.loop.json "$work/dangling"
expect 0 "$bin" generate --family chains --ops 8 --seed 1 -o "$work/dangling"
[[ -L $work/dangling ]] || fail "-o DANGLING replaced the link"
cmp -s "$work/made.loop.json" "$work/chains.loop.json" || fail "-o DANGLING: the target was not created"

# -o into a FIFO: a reader gets the bytes, the FIFO stays a FIFO.
mkfifo "$work/fifo"
timeout 30 cat "$work/fifo" >"$work/from_fifo" &  # bounded: a regression never opens the FIFO
reader=$!
expect 0 timeout 60 "$bin" generate --family chains --ops 8 --seed 1 -o "$work/fifo"
wait "$reader"
[[ -p $work/fifo ]] || fail "-o FIFO: the FIFO was replaced"
cmp -s "$work/from_fifo" "$work/chains.loop.json" || fail "-o FIFO: the reader did not get the graph"
compgen -G "$work/.*.tmp*" >/dev/null && fail "a temporary file was left behind: $(ls -a "$work")"

# /dev/null and /dev/stdout are written, never replaced. As root a rename
# would replace them for every process on the machine: the null device is
# a private node of the same device then, and /dev/stdout is put back
# (and the check fails) should it have been replaced.
null_dev=/dev/null
if mknod "$work/null" c 1 3 2>/dev/null; then null_dev=$work/null; fi
expect 0 "$bin" export "$graph" --dot -o "$null_dev"
[[ -c $null_dev ]] || fail "-o $null_dev: no longer a device"
stdout_link=$(readlink /dev/stdout)
{ echo first; "$bin" generate --family chains --ops 8 --seed 1 -o /dev/stdout; } >"$work/appended"
if [[ $(readlink /dev/stdout) != "$stdout_link" ]]; then
  fail "-o /dev/stdout: /dev/stdout was replaced"
  rm -f /dev/stdout && ln -s "$stdout_link" /dev/stdout
fi
cmp -s "$work/appended" <(echo first; cat "$work/chains.loop.json") ||
  fail "-o /dev/stdout: not written where stdout points, after what was there"

# A directory (or a link to one) is refused: exit 2, one line, untouched.
mkdir "$work/dir"
ln -s dir "$work/dirlink"
for d in "$work/dir" "$work/dirlink"; do
  expect 2 "$bin" schedule "$graph" -o "$d"
  one_line "-o DIR"
  grep -qF "$d: is a directory" "$work/err" || fail "-o DIR: $(cat "$work/err")"
done
[[ -d $work/dir && -L $work/dirlink && -z $(ls -A "$work/dir") ]] || fail "-o DIR changed the directory"

# "-": standard input for GRAPH and SCHEDULE, standard output for -o.
expect 0 "$bin" schedule - <"$graph"
cmp -s <(no_time "$work/out") <(no_time "$work/plain.json") || fail "schedule -: differs"
expect 0 "$bin" schedule "$graph" -o -
cmp -s <(no_time "$work/out") <(no_time "$work/plain.json") || fail "schedule -o -: differs"
[[ -e ./- ]] && fail "-o - created a file named -"
expect 0 "$bin" verify - "$work/plain.json" <"$graph"
grep -q '^legal: ' "$work/out" || fail "verify GRAPH=-: not legal"
expect 0 "$bin" verify "$graph" - <"$work/plain.json"
grep -q '^legal: ' "$work/out" || fail "verify SCHEDULE=-: not legal"
expect 2 "$bin" verify - - </dev/null
one_line "verify - -"
grep -q 'GRAPH and SCHEDULE cannot both be standard input' "$work/err" || fail "verify - -: $(cat "$work/err")"
expect 0 "$bin" export - --resolved <"$graph"
grep -q '"format": "tilesched.resolved/1"' "$work/out" || fail "export -: no resolved graph"
expect 0 "$bin" import --from hatschet - --resources "$gtestdata/tiny_RM.xml" <"$gtestdata/tiny.graphml"
grep -q '"name": "hatschet/stdin"' "$work/out" || fail "import -: the graph is not named hatschet/stdin"
# Bad input on stdin is named <stdin>, one line, like a file.
echo '{"format": "tilesched.loop/1"' | expect 2 "$bin" schedule -
one_line "schedule - (bad JSON)"
grep -q '^tilesched schedule: <stdin>: \$: ' "$work/err" || fail "stdin not named <stdin>: $(cat "$work/err")"
echo '{}' >"$work/empty.json"
expect 2 "$bin" verify "$graph" - <"$work/empty.json"
grep -q '^tilesched verify: <stdin>: \$' "$work/err" || fail "bad schedule on stdin: $(cat "$work/err")"
printf '<graphml>' | expect 2 "$bin" import --from hatschet - --resources "$gtestdata/tiny_RM.xml"
grep -q '^tilesched import: <stdin>: ' "$work/err" || fail "bad GraphML on stdin: $(cat "$work/err")"

# --quiet / -q: accepted everywhere; silences what is informational only.
expect 0 "$bin" replay "$work/s.csv" --row 1 -o "$work/r.json"
grep -q 'reproduced' "$work/err" || fail "replay: no reproduced line"
for q in -q --quiet; do
  expect 0 "$bin" replay "$work/s.csv" --row 1 -o "$work/r.json" "$q"
  [[ -s $work/err ]] && fail "replay $q: stderr not empty: $(cat "$work/err")"
  expect 0 "$bin" schedule "$graph" "$q"
  expect 0 "$bin" verify "$graph" "$work/plain.json" "$q"
  grep -q '^legal: ' "$work/out" || fail "verify $q: the verdict is not informational chatter"
  expect 0 "$bin" generate --family chains --ops 8 "$q"
  expect 0 "$bin" export "$graph" --dot "$q"
  expect 0 "$bin" import --from hatschet "$gtestdata/tiny.graphml" --resources "$gtestdata/tiny_RM.xml" "$q"
  # Errors are still printed.
  expect 2 "$bin" schedule "$work/none.loop.json" "$q"
  one_line "schedule $q (missing file)"
done

# verify --json: the verdict as tilesched.verdict/1.
expect 0 "$bin" verify "$graph" "$work/plain.json" --json
/usr/bin/python3 - "$work/out" <<'PY' || fail "verify --json (legal): $(cat "$work/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["format", "graph", "legal", "feasible", "ii", "stage_count", "op_count",
                   "violation_count", "rule_counts", "violations"], list(d)
assert d["format"] == "tilesched.verdict/1" and d["graph"] == "seed-worked-example"
assert d["legal"] is True and d["feasible"] is True and d["ii"] == 16 and d["op_count"] == 4
assert d["violation_count"] == 0 and d["rule_counts"] == {} and d["violations"] == []
PY
tamper_read_start "$work/plain.json" "$work/tampered.json"
expect 1 "$bin" verify "$graph" "$work/tampered.json" --json -o "$work/verdict.json"
/usr/bin/python3 - "$work/verdict.json" <<'PY' || fail "verify --json (illegal): $(cat "$work/verdict.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["legal"] is False and d["feasible"] is True
assert d["violation_count"] == len(d["violations"]) >= 1
assert sum(d["rule_counts"].values()) == d["violation_count"]
assert d["rule_counts"].get("L1-dependence", 0) >= 1
for v in d["violations"]:
    assert set(v) == {"rule", "ops", "message"} and v["message"] and v["rule"] in d["rule_counts"]
assert any("read" in v["ops"] for v in d["violations"] if v["rule"] == "L1-dependence")
PY
# The text verdict lists the same violations.
expect 1 "$bin" verify "$graph" "$work/tampered.json"
[[ $(grep -c '^  ' "$work/out") == $(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["violation_count"])' "$work/verdict.json") ]] ||
  fail "verify: text and JSON verdicts count different violations"
for g in "$examples"/../testdata/infeasible/*.loop.json; do
  expect 1 "$bin" schedule "$g" -o "$work/infeasible.json"
  expect 1 "$bin" verify "$g" "$work/infeasible.json" --json
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["legal"] is False and d["feasible"] is False and d["violations"] == []' "$work/out" ||
    fail "verify --json (infeasible): $(cat "$work/out")"
  break
done
# Bad input: exit 2, one line on stderr, nothing on stdout.
expect 2 "$bin" verify "$graph" "$work/empty.json" --json
one_line "verify --json (bad schedule)"
[[ -s $work/out ]] && fail "verify --json wrote a verdict for bad input"

# A missing positional is named as the synopsis names it.
check_missing() {
  local name=$1; shift
  expect 2 "$bin" "$@"
  one_line "$*"
  grep -q "^tilesched $1: missing the $name argument" "$work/err" || fail "$*: $(cat "$work/err")"
  grep -q -- "'--" "$work/err" && fail "$*: names a hidden option: $(cat "$work/err")"
}
check_missing GRAPH schedule
check_missing GRAPH schedule --generator serial -o "$work/never.json"
check_missing GRAPH verify
check_missing SCHEDULE verify "$graph"
check_missing GRAPH export --dot
check_missing FILE import --from hatschet --resources "$gtestdata/tiny_RM.xml"
check_missing FILE.csv replay --row 1
[[ -e $work/never.json ]] && fail "a missing positional still wrote an output file"

finish "cli I/O conventions"
