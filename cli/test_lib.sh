# Shared by the end-to-end scripts (cli_test.sh, sweep_test.sh); sourced,
# not run. Gives a scratch directory $work (removed on exit), `fail MSG`
# (counts a failure), `expect STATUS CMD...` (runs CMD with its stdout and
# stderr in $work/out and $work/err, fails unless it exits with STATUS) and
# `finish NAME` (the summary line and the script's exit status).
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

finish() {
  if ((failures > 0)); then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "$1: all checks passed"
}
