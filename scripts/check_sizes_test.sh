#!/usr/bin/env bash
# scripts/check_sizes on the tree (no production function over 60 lines, no
# production file over 600), then on small trees of its own: ones at the
# limits (and tables, tests, braces in literals and comments) that pass, and
# ones a line over that must fail and name the fault.
# usage: check_sizes_test.sh ROOT
set -u
root=$1
check=$root/scripts/check_sizes
failures=0
fail() { echo "check_sizes_test: $*"; failures=$((failures + 1)); }
/usr/bin/python3 "$check" "$root" || fail "the tree fails the check"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# function NAME BODY_LINES: a function whose signature spans two lines and
# whose body holds BODY_LINES statements: BODY_LINES + 3 lines in all.
function_text() {
  printf 'int %s(int a,\n        int b) {\n' "$1"
  for ((i = 0; i < $2; ++i)); do printf '  a += b;  // {\n'; done
  printf '}\n'
}
# put TREE FILE: the standard input into TREE's FILE.
put() {
  mkdir -p "$(dirname "$work/$1/$2")"
  cat >"$work/$1/$2"
}
# expect_pass TREE, expect_fault TREE PATTERN
expect_pass() {
  local out
  out=$(/usr/bin/python3 "$check" "$work/$1") || fail "$1: failed: $out"
}
expect_fault() {
  local out
  if out=$(/usr/bin/python3 "$check" "$work/$1"); then
    fail "$1: passed"
  elif ! grep -qE -- "$2" <<<"$out"; then
    fail "$1: not named: $out"
  fi
}

# At the limits: a 60-line function (in a namespace, beside a class with
# an inline method), a 70-line table, a 61-line function in a test, braces
# in a string, a character literal and a comment, a 600-line file.
{
  echo 'namespace x {'
  echo 'struct S { int f() const { return 1; } };'
  function_text sixty 57
  echo 'const char* kText = "}}}{"; const char kBrace = '"'}'"';  /* } */'
  echo 'const int kTable[] = {'
  for ((i = 0; i < 70; ++i)); do echo "  $i,"; done
  echo '};'
  echo '}  // namespace x'
} | put limits engine/src/at_limit.cc
function_text sixty_one 58 | put limits engine/src/at_limit_test.cc
for ((i = 0; i < 600; ++i)); do echo "// line $i"; done | put limits cli/long.h
for ((i = 0; i < 700; ++i)); do echo "// line $i"; done | put limits engine/src/long_test.cc
expect_pass limits

# A 61-line function (the signature's first line counts).
function_text sixty_one 58 | put function engine/src/over.cc
expect_fault function '^engine/src/over.cc:1: function sixty_one has 61 lines'

# A method defined in its class, a line over.
{
  echo 'class C {'
  echo ' public:'
  function_text method 58
  echo '};'
} | put method generators/src/inline.h
expect_fault method '^generators/src/inline.h:3: function method has 61 lines'

# A 601-line production file.
for ((i = 0; i < 601; ++i)); do echo "// line $i"; done | put file bench/long.cc
expect_fault file '^bench/long.cc:1: 601 lines'

if ((failures)); then
  echo "check_sizes_test: $failures failures"
  exit 1
fi
echo "check_sizes_test: ok"
