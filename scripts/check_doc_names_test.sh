#!/usr/bin/env bash
# scripts/check_doc_names on the tree, then on a small tree of its own: a
# doc naming a function the code has passes; naming one it lacks (as a
# call, qualified, or snake_case) fails and names the line; a formula's
# subscript (`tail_v`) and an allowed name pass.
# usage: check_doc_names_test.sh ROOT
set -u
root=$1
check=$root/scripts/check_doc_names
failures=0
fail() { echo "check_doc_names_test: $*"; failures=$((failures + 1)); }
/usr/bin/python3 "$check" "$root" || fail "the tree fails the check"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/docs" "$work/engine/src" "$work/scripts"
printf '%s\n' 'int compute_mii(int ii) { return ii; }' 'struct Oracle { void run(); };' \
  'const char* kStat = "\tii_tried";' >"$work/engine/src/a.cc"
printf '%s\n' 'Calls `compute_mii(g)`, `Oracle::run()`, `ii_tried`, `tail_v`, `the_seed_fn`.' \
  >"$work/docs/A.md"
echo 'the_seed_fn  # not ours' >"$work/scripts/check_doc_names.allow"
/usr/bin/python3 "$check" "$work" >/dev/null || fail "the small tree fails"
for name in 'gone_now()' 'Oracle::walk' 'bound_group_spans'; do
  printf 'Also `%s`.\n' "$name" >>"$work/docs/A.md"
  out=$(/usr/bin/python3 "$check" "$work")
  [[ $? -ne 0 && $out == *"docs/A.md:"*"\`$name\`"* ]] || fail "\`$name\` passes: $out"
  sed -i '$d' "$work/docs/A.md"
done
((failures == 0)) && echo "check_doc_names_test: ok"
exit $((failures > 0))
