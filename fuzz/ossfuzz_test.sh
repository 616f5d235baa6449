#!/usr/bin/env bash
# fuzz/build.sh as OSS-Fuzz runs it (label `ossfuzz`; fuzz/README.md): clang-14
# with OSS-Fuzz's default flags (ASan, -fsanitize=fuzzer-no-link, libc++),
# $OUT, $SRC and $WORK in scratch directories. Checks that every target
# lands in $OUT with its dictionary, options file and seed-corpus zip, that
# $OUT still works after being moved (the targets need nothing outside it
# but glibc), and that each target runs 100 inputs cleanly from its seeds.
# Usage: ossfuzz_test.sh SOURCE_DIR    (exit 77: no clang-14 / libc++)
set -uo pipefail
src=$(cd "$1" && pwd)
# shellcheck source=cli/test_lib.sh
source "$src/cli/test_lib.sh"
# Every target build.sh builds, from its own list.
read -ra targets <<<"$(sed -n 's/^targets=(\(.*\))$/\1/p' "$src/fuzz/build.sh")"
((${#targets[@]} > 0)) || { echo "FAIL: no targets=(...) line in fuzz/build.sh"; exit 1; }

command -v clang++-14 >/dev/null || { echo "SKIP: no clang++-14"; exit 77; }
echo '#include <vector>' | clang++-14 -stdlib=libc++ -x c++ -fsyntax-only - 2>/dev/null \
  || { echo "SKIP: no libc++ headers (libc++-14-dev)"; exit 77; }

mkdir -p "$work/src" "$work/out" "$work/work"
ln -s "$src" "$work/src/tilesched"
# Through ccache when it is installed, so that a run over unchanged sources
# compiles nothing: build.sh runs inside the scratch directory and ccache
# rewrites the paths under it as relative ones (its name changes every run).
cc=clang-14 cxx=clang++-14
if command -v ccache >/dev/null; then
  mkdir -p "$work/bin"
  for c in clang-14 clang++-14; do
    printf '#!/bin/sh\nexec ccache %s "$@"\n' "$c" >"$work/bin/$c"
    chmod +x "$work/bin/$c"
  done
  cc=$work/bin/clang-14 cxx=$work/bin/clang++-14
  export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
fi
flags="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
flags+=" -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
# Debian's libFuzzer runtime (libclang_rt.fuzzer) is built against libstdc++,
# OSS-Fuzz's against a private libc++: here it needs libstdc++ beside it
# (named by file: under -stdlib=libc++, clang turns -lstdc++ into -lc++).
if ! (cd "$work" && env CC="$cc" CXX="$cxx" CFLAGS="$flags" CXXFLAGS="$flags -stdlib=libc++" \
       LIB_FUZZING_ENGINE="-fsanitize=fuzzer -l:libstdc++.so.6" SANITIZER=address FUZZING_ENGINE=libfuzzer \
       SRC="$work/src" OUT="$work/out" WORK="$work/work" \
       bash "$work/src/tilesched/fuzz/build.sh" >"$work/build.log" 2>&1); then
  fail "fuzz/build.sh: $(tail -20 "$work/build.log")"
  finish ossfuzz_test
fi

# Move $OUT: every library a target loads beyond glibc must come from the
# moved directory.
out=$work/moved_out
mv "$work/out" "$out"
for t in "${targets[@]}"; do
  f=$out/fuzz_$t
  [[ -x $f ]] || { fail "missing $f"; continue; }
  for extra in "$f.dict" "$f.options" "${f}_seed_corpus.zip"; do
    [[ -s $extra ]] || fail "missing $extra"
  done
  grep -q "^dict = fuzz_$t.dict$" "$f.options" || fail "$f.options names no dictionary"
  want=$(find "$src/fuzz/corpus/fuzz_$t" -type f | wc -l)
  got=$(python3 -m zipfile -l "${f}_seed_corpus.zip" | tail -n +2 | wc -l)
  [[ $want == "$got" ]] || fail "fuzz_$t seed corpus: $got files, want $want"
  outside=$(env -i ldd "$f" | awk '$2 == "=>" {print $1, $3}' \
    | grep -vE '^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt)\.so' \
    | grep -vF " $out/lib/" || true)
  [[ -z $outside ]] || fail "fuzz_$t loads from outside \$OUT: $outside"
done

# 100 inputs each, seeds first, with the options OSS-Fuzz would pass.
for t in "${targets[@]}"; do
  f=$out/fuzz_$t
  [[ -x $f ]] || continue
  seeds=$work/seeds_$t
  mkdir -p "$seeds"
  python3 -m zipfile -e "${f}_seed_corpus.zip" "$seeds"
  opts=()
  while IFS=' =' read -r key value; do
    [[ $key == \[* || -z $key ]] && continue
    [[ $key == dict ]] && value=$out/$value
    opts+=("-$key=$value")
  done <"$f.options"
  if ! (cd "$work" && env -i PATH=/usr/bin:/bin "$f" -runs=100 -seed=1 -timeout=60 \
          -rss_limit_mb=2560 "${opts[@]}" "$seeds" >"$work/run_$t.log" 2>&1); then
    fail "fuzz_$t: $(grep -E 'ERROR|fuzz check failed|SUMMARY' "$work/run_$t.log" | head -3)"
  else
    # -runs counts the seeds too, and every seed runs.
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/run_$t.log")
    ((${runs:-0} >= 100)) || fail "fuzz_$t did not run 100 inputs: $(tail -2 "$work/run_$t.log")"
  fi
done

finish ossfuzz_test
