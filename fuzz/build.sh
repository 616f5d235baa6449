#!/usr/bin/env bash
# OSS-Fuzz / ClusterFuzzLite build script: compiles the engine and every
# fuzz target with $CXX $CXXFLAGS, links each with $LIB_FUZZING_ENGINE into
# $OUT/, and puts the dictionary and the zipped seed corpora beside them.
# Locally (fuzz/README.md):
#   CXX=clang++-14 CXXFLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link" \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out fuzz/build.sh
# Needs nlohmann-json (a system header). $SRC/tilesched is the checkout under
# OSS-Fuzz; by default the checkout this script lives in.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
: "${CXX:?set CXX}" "${OUT:?set OUT}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE}"
CXXFLAGS=${CXXFLAGS:-}
targets=(parse schedule materialize verify differential import)
work=${WORK:-$(mktemp -d)}
mkdir -p "$OUT" "$work/obj"

# version.cc from its CMake template (version and git commit).
version=$(sed -n 's/^project(tilesched VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
sha=$(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
sed -e "s/@PROJECT_VERSION@/$version/" -e "s/@TILESCHED_GIT_SHA@/$sha/" \
  "$root/engine/src/version.cc.in" >"$work/version.cc"

# The engine and generators libraries: every source under engine/src and
# generators/src but the tests. They link Z3 (the exact oracle) and pugixml
# (the HatScheT importer).
# shellcheck disable=SC2206  # CXXFLAGS is a list of words by convention
flags=(-std=c++20 $CXXFLAGS -I"$root/engine/include" -I"$root/generators/include" -I"$root/fuzz")
libs=(-lz3 -lpugixml)
objs=()
compile() {  # compile SRC OBJ
  "$CXX" "${flags[@]}" -c "$1" -o "$2"
  objs+=("$2")
}
while IFS= read -r src; do
  obj=$work/obj/$(echo "${src#"$root"/}" | tr / _).o
  compile "$src" "$obj"
done < <(find "$root/engine/src" "$root/generators/src" -name '*.cc' ! -name '*_test.cc' | sort)
compile "$work/version.cc" "$work/obj/version.o"
compile "$root/fuzz/fuzz_support.cc" "$work/obj/fuzz_support.o"

for t in "${targets[@]}"; do
  "$CXX" "${flags[@]}" -c "$root/fuzz/fuzz_$t.cc" -o "$work/obj/fuzz_$t.o"
  # shellcheck disable=SC2086  # LIB_FUZZING_ENGINE may hold several words
  "$CXX" "${flags[@]}" "$work/obj/fuzz_$t.o" "${objs[@]}" $LIB_FUZZING_ENGINE "${libs[@]}" \
    -o "$OUT/fuzz_$t"
  cp "$root/fuzz/tilesched.dict" "$OUT/fuzz_$t.dict"
  corpus=$root/fuzz/corpus/fuzz_$t
  if command -v zip >/dev/null && [[ -n $(ls -A "$corpus" 2>/dev/null) ]]; then
    rm -f "$OUT/fuzz_${t}_seed_corpus.zip"
    (cd "$corpus" && zip -q -j "$OUT/fuzz_${t}_seed_corpus.zip" ./*)
  fi
done
echo "fuzz/build.sh: ${targets[*]/#/fuzz_} in $OUT" >&2
