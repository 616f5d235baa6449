#!/usr/bin/env bash
# add_subdirectory(tilesched) from a parent project (tests/package/parent)
# that is a git repository of its own: the parent configures with none of
# the CLI's, tests' or generators' dependencies searched, builds the
# engine and a program linking tilesched::engine, and that program reports
# tilesched's own revision, not the parent's.
# Usage: subproject_test.sh SOURCE_DIR CXX_COMPILER
set -uo pipefail
src=$1 cxx=$2
# shellcheck source=cli/test_lib.sh
source "$src/cli/test_lib.sh"
parent=$work/parent
mkdir -p "$parent"
cp "$src/tests/package/parent/CMakeLists.txt" "$parent/"
git -C "$parent" init -q
git -C "$parent" add CMakeLists.txt
git -C "$parent" -c user.name=test -c user.email=test@invalid commit -q -m parent

args=(-DCMAKE_CXX_COMPILER="$cxx" -DTILESCHED_SOURCE_DIR="$src")
command -v ninja >/dev/null && args+=(-G Ninja)
# No build type (-O0, no -g) keeps the engine's compile short, and lets
# ccache, when present, reuse it from one scratch directory to the next.
if [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER:-} ]] && command -v ccache >/dev/null; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if ! cmake -S "$parent" -B "$work/build" "${args[@]}" >"$work/configure.log" 2>&1; then
  fail "configure: $(tail -20 "$work/configure.log")"
  finish subproject_test
fi
# Only the engine's dependencies were looked for.
for dep in Boost GTest pugixml rapidcheck benchmark; do
  grep -q "^${dep}_DIR:" "$work/build/CMakeCache.txt" && fail "searched for $dep"
done
for opt in TESTS BENCH CLI GRAPHGEN FUZZERS; do
  grep -q "^TILESCHED_BUILD_$opt:BOOL=OFF" "$work/build/CMakeCache.txt" \
    || fail "TILESCHED_BUILD_$opt is not OFF in a subproject"
done
if ! cmake --build "$work/build" --target consumer >"$work/build.log" 2>&1; then
  fail "build: $(tail -20 "$work/build.log")"
  finish subproject_test
fi
expect 0 "$work/build/consumer" "$src/engine/examples/gemm_mainloop.loop.json"
grep -q 'legal' "$work/out" || fail "consumer: $(cat "$work/out")"
want=$(git -C "$src" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
grep -qF "($want)" "$work/out" || fail "revision: want $want, got: $(tail -1 "$work/out")"

finish subproject_test
