# Shared by the end-to-end scripts (cli_test.sh, io_test.sh, sweep_test.sh); sourced,
# not run. Gives a scratch directory $work (removed on exit), `fail MSG`
# (counts a failure), `expect STATUS CMD...` (runs CMD with its stdout and
# stderr in $work/out and $work/err, fails unless it exits with STATUS),
# `finish NAME` (the summary line and the script's exit status) and
# `tamper_read_start` (an illegal schedule for the verify checks).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect() {
  local want=$1; shift
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [[ $got == "$want" ]] || fail "exit $got, expected $want: $* :: $(head -c 300 "$work/err")"
}

# tamper_read_start SCHEDULE OUT: the worked example's schedule with its
# `read` moved to cycle 1, before the load's latency ends (illegal), and its
# stage and order dropped so they are derived again.
tamper_read_start() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for op in s["ops"]:
    if op["id"] == "read":
        op["start"] = 1
        del op["stage"], op["order"]
json.dump(s, open(sys.argv[2], "w"))
PY
}

finish() {
  if ((failures > 0)); then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "$1: all checks passed"
}
