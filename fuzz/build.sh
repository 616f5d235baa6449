#!/usr/bin/env bash
# OSS-Fuzz / ClusterFuzzLite build script (fuzz/README.md, "OSS-Fuzz"):
# compiles the engine, the generators and every fuzz target with
# $CXX $CXXFLAGS (OSS-Fuzz's include -stdlib=libc++), links each target with
# $LIB_FUZZING_ENGINE into $OUT/, and puts beside it its dictionary
# (fuzz_NAME.dict), its options (fuzz_NAME.options) and its zipped seed
# corpus (fuzz_NAME_seed_corpus.zip).
#
# The targets must run where only $OUT exists. Debian has no static Z3, and
# its static pugixml is built against libstdc++ (unusable under libc++), so
# the shared libraries the targets need beyond glibc (Z3, pugixml, and the
# C++ runtimes they pull in) are copied into $OUT/lib, and the targets find
# them through an rpath $ORIGIN/lib (DT_RPATH, which also serves the copied
# libraries' own dependencies). CaDiCaL, the exact oracle's SAT backend,
# comes only as a static library built against libstdc++ (libcadical-dev):
# it is linked with libstdc++ beside libc++ (no standard-library type
# crosses its interface), and libstdc++.so.6 lands in $OUT/lib with the rest.
#
# Locally, as OSS-Fuzz runs it (fuzz/ossfuzz_test.sh does this):
#   CXX=clang++-14 CXXFLAGS="-O1 -fsanitize=address -fsanitize=fuzzer-no-link -stdlib=libc++" \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out WORK=/tmp/work fuzz/build.sh
# Needs nlohmann-json (headers), Z3, pugixml and CaDiCaL (Debian:
# nlohmann-json3-dev, libz3-dev, libpugixml-dev, libcadical-dev). $SRC/tilesched is the checkout under OSS-Fuzz;
# by default the checkout this script lives in. Objects go to $WORK/obj.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
: "${CXX:?set CXX}" "${OUT:?set OUT}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE}"
CXXFLAGS=${CXXFLAGS:-}
targets=(parse schedule materialize verify differential import ttgir)
structured=" schedule materialize differential "
work=${WORK:-$(mktemp -d)}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$OUT/lib" "$work/obj"

# version.cc from its CMake template (version and git commit).
version=$(sed -n 's/^project(tilesched VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
sha=unknown
if [[ $(git -C "$root" rev-parse --show-toplevel 2>/dev/null) == "$root" ]]; then
  sha=$(git -C "$root" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
fi
sed -e "s/@PROJECT_VERSION@/$version/" -e "s/@TILESCHED_GIT_SHA@/$sha/" \
  "$root/engine/src/model/version.cc.in" >"$work/version.cc"

# The engine and generators libraries: every source under engine/src and
# generators/src but the tests, compiled $jobs at a time.
# shellcheck disable=SC2206  # CXXFLAGS is a list of words by convention
flags=(-std=c++20 $CXXFLAGS -I"$root/engine/include" -I"$root/engine/src"
       -I"$root/generators/include" -I"$root/fuzz")
# nlohmann-json headers fetched beside the checkout (.clusterfuzzlite/Dockerfile).
if [[ -n ${SRC:-} && -f $SRC/json/include/nlohmann/json.hpp ]]; then flags+=(-I"$SRC/json/include"); fi
sources=()
while IFS= read -r src; do sources+=("$src"); done < <(
  find "$root/engine/src" "$root/generators/src" -name '*.cc' ! -name '*_test.cc' | sort)
sources+=("$work/version.cc" "$root/fuzz/fuzz_support.cc")
for t in "${targets[@]}"; do sources+=("$root/fuzz/fuzz_$t.cc"); done
object_of() {  # engine/src/oracle/exact/model.cc -> $work/obj/engine_src_oracle_exact_model.o
  local rel=${1#"$root"/}
  rel=${rel#"$work"/}
  rel=${rel//\//_}
  echo "$work/obj/${rel%.cc}.o"
}
running=0
for src in "${sources[@]}"; do
  # The schedulers' search code without comparison hooks, as in the CMake
  # fuzzing build (engine/CMakeLists.txt says why).
  extra=()
  case $src in
    */engine/src/generators/frame.cc|*/engine/src/generators/cost_based/*|\
    */engine/src/generators/ims/*|*/engine/src/generators/sms/*|\
    */engine/src/bounds/rrt.cc|*/engine/src/bounds/distance.cc|\
    */engine/src/bounds/distance_closure.cc|*/engine/src/bounds/distance_lines.cc|\
    */engine/src/search/ii_range.cc|*/engine/src/search/ii_driver.cc|*/engine/src/search/ii_screen.cc)
      extra=(-fno-sanitize-coverage=trace-cmp) ;;
  esac
  "$CXX" "${flags[@]}" "${extra[@]}" -c "$src" -o "$(object_of "$src")" &
  if ((++running >= jobs)); then wait -n; running=$((running - 1)); fi
done
while ((running > 0)); do wait -n; running=$((running - 1)); done
objs=()  # everything but the targets' own sources
for src in "${sources[@]}"; do
  name=$(basename "$src" .cc)
  [[ " ${targets[*]/#/fuzz_} " == *" $name "* ]] || objs+=("$(object_of "$src")")
done

# Link each target; ship the shared libraries it needs beyond glibc.
libs=(-lz3 -lpugixml -lcadical -l:libstdc++.so.6 -pthread -ldl)  # -ldl: the plug-in loader (glibc < 2.34)
system_lib='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil)\.so'
for t in "${targets[@]}"; do
  # shellcheck disable=SC2086,SC2016  # LIB_FUZZING_ENGINE: words; $ORIGIN: for ld.so
  "$CXX" "${flags[@]}" "$(object_of "$root/fuzz/fuzz_$t.cc")" "${objs[@]}" $LIB_FUZZING_ENGINE \
    "${libs[@]}" -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/lib' -o "$OUT/fuzz_$t"
  while read -r name path; do
    [[ $name =~ $system_lib || -z $path || $path == "$OUT/lib/"* ]] && continue
    cp -L "$path" "$OUT/lib/$name"
  done < <(ldd "$OUT/fuzz_$t" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')

  cp "$root/fuzz/tilesched.dict" "$OUT/fuzz_$t.dict"
  {
    echo "[libfuzzer]"
    echo "dict = fuzz_$t.dict"
    # Structured targets read a FuzzedDataProvider: full-size graphs from
    # the first input on; and a short list of rare features (fuzz/README.md,
    # "Throughput": with libFuzzer's default the list's upkeep took half of
    # each run).
    if [[ $structured == *" $t "* ]]; then
      echo "max_len = 512"
      echo "len_control = 0"
      echo "entropic_feature_frequency_threshold = 16"
    fi
  } >"$OUT/fuzz_$t.options"
  corpus=$root/fuzz/corpus/fuzz_$t
  rm -f "$OUT/fuzz_${t}_seed_corpus.zip"
  if [[ -n $(ls -A "$corpus" 2>/dev/null) ]]; then
    (cd "$corpus" && zip -q -j "$OUT/fuzz_${t}_seed_corpus.zip" ./*)
  fi
done
echo "fuzz/build.sh: ${targets[*]/#/fuzz_} in $OUT" >&2
