#!/usr/bin/env bash
# scripts/check_layers on the tree (no include runs up, no cycle), then on
# a small tree of its own that passes, and once per rule on a copy of that
# tree with one fault added: each must fail and name the fault.
# usage: check_layers_test.sh ROOT
set -u
root=$1
check=$root/scripts/check_layers
failures=0
fail() { echo "check_layers_test: $*"; failures=$((failures + 1)); }
/usr/bin/python3 "$check" "$root" || fail "the tree fails the check"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# put FILE LINE...: writes the lines into $tree/FILE.
put() {
  local file=$tree/$1
  shift
  mkdir -p "$(dirname "$file")"
  printf '%s\n' "$@" >"$file"
}
# The small tree: the model (target, graph), the bounds (mii, the RRT),
# the II search, a test with its support, the harness and the CLI.
make_tree() {
  tree=$work/$1
  put engine/include/tilesched/target.h '#pragma once'
  put engine/src/model/target.cc '#include "tilesched/target.h"'
  put engine/include/tilesched/graph.h '#pragma once' '#include "tilesched/target.h"'
  put engine/src/model/graph.cc '#include "tilesched/graph.h"'
  put engine/src/bounds/mii.h '#pragma once'
  put engine/src/bounds/rrt.h '#pragma once' '#include "tilesched/graph.h"'
  put engine/src/bounds/rrt.cc '#include "rrt.h"' '#include "mii.h"'
  put engine/src/search/ii_range.h '#pragma once' '#include "bounds/rrt.h"'
  put engine/testing/test_graphs.h '#pragma once' '#include "tilesched/graph.h"'
  put engine/src/model/graph_test.cc '#include "tilesched/graph.h"' '#include "testing/test_graphs.h"'
  put bench/sweep/csv.h '#pragma once' '#include "tilesched/graph.h"'
  put cli/main.cc '#include "sweep/csv.h"' '#include "tilesched/graph.h"'
}
# expect_fault NAME PATTERN: the check fails on tree NAME and prints PATTERN.
expect_fault() {
  local out
  if out=$(/usr/bin/python3 "$check" "$work/$1"); then
    fail "$1: passed"
  elif ! grep -qE -- "$2" <<<"$out"; then
    fail "$1: not named: $out"
  fi
}

make_tree clean
/usr/bin/python3 "$check" "$tree" >"$work/clean.out" || fail "the small tree fails: $(cat "$work/clean.out")"

# Rule 1: a unit in no declared layer: a source in engine/src itself, a
# source in an undeclared folder, a public header with no source nor home.
make_tree stray
put engine/src/stray.cc '#include "tilesched/graph.h"'
expect_fault stray '^engine/src/stray: in no declared layer'
make_tree strayfolder
put engine/src/misc/stray.cc '#include "tilesched/graph.h"'
expect_fault strayfolder '^engine/src/misc/stray: in no declared layer'
make_tree strayheader
put engine/include/tilesched/stray.h '#pragma once'
expect_fault strayheader '^engine/include/tilesched/stray: in no declared layer'

# Rule 2: an include that runs up a layer (the model includes a bound; a
# bound includes the II search, by a path relative to engine/src).
make_tree upward
put engine/src/model/target.cc '#include "tilesched/target.h"' '#include "bounds/mii.h"'
expect_fault upward '^engine/src/model/target.cc:2: the model includes engine/src/bounds/mii, of the RRT and bounds above it$'
make_tree upward2
put engine/src/bounds/rrt.cc '#include "rrt.h"' '#include "search/ii_range.h"'
expect_fault upward2 '^engine/src/bounds/rrt.cc:2: the RRT and bounds includes engine/src/search/ii_range, of the II search above it$'

# Rule 3: a cycle that only a header counted with its source shows:
# target.cc -> graph.h -> target.h (three files, two units).
make_tree cycle
put engine/src/model/target.cc '#include "tilesched/target.h"' '#include "tilesched/graph.h"'
expect_fault cycle '^include cycle: engine/src/model/graph -> engine/src/model/target \(engine/include/tilesched/graph.h:2\) -> engine/src/model/graph \(engine/src/model/target.cc:2\)$'

# Rule 4: the engine includes something outside engine/.
make_tree outside
put engine/src/bounds/rrt.cc '#include "rrt.h"' '#include "sweep/csv.h"'
expect_fault outside '^engine/src/bounds/rrt.cc:2: the engine includes bench/sweep/csv$'

# Rule 5: code that is not a test includes test support.
make_tree testcode
put cli/main.cc '#include "sweep/csv.h"' '#include "testing/test_graphs.h"'
expect_fault testcode '^cli/main.cc:2: cli/main is not a test but includes the test code engine/testing/test_graphs$'

if ((failures > 0)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "check_layers_test: ok"
