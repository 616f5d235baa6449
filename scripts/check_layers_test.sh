#!/usr/bin/env bash
# scripts/check_layers on the tree (no include runs up), and on a copy with
# one include added that runs up from the model: it must fail and name it.
# usage: check_layers_test.sh ROOT
set -u
root=$1
check=$root/scripts/check_layers
/usr/bin/python3 "$check" "$root" || { echo "check_layers_test: the tree fails the check"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/engine"
cp -r "$root/engine/include" "$root/engine/src" "$work/engine/"
sed -i 's|#include "tilesched/graph.h"|#include "tilesched/graph.h"\n#include "graph_algo.h"|' \
  "$work/engine/src/graph.cc"
out=$(/usr/bin/python3 "$check" "$work") && { echo "check_layers_test: an upward include passed"; exit 1; }
grep -q 'engine/src/graph.cc: the model includes engine/src/graph_algo' <<<"$out" ||
  { echo "check_layers_test: not named: $out"; exit 1; }
echo "check_layers_test: ok"
