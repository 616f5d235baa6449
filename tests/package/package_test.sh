#!/usr/bin/env bash
# The installed package: `cmake --install` of the current build into a
# scratch prefix, then tests/package/consumer (find_package(tilesched))
# configured, built and run against it, the same program built through
# pkg-config, the installed command line run on a bundled graph, and a C++
# scheduler plug-in built against the package run by it.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER
set -uo pipefail
build=$1 src=$2 cxx=$3
# shellcheck source=cli/test_lib.sh
source "$src/cli/test_lib.sh"
prefix=$work/prefix
graph=$src/engine/examples/gemm_mainloop.loop.json

cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "cmake --install"; finish package_test; }

# What lands: the public headers only, both libraries, the CLI, the package.
for f in bin/tilesched include/tilesched/generate.h include/tilesched/graphgen/families.h \
         lib/libtilesched_engine.a lib/libtilesched_graphgen.a \
         lib/cmake/tilesched/tileschedConfig.cmake lib/cmake/tilesched/tileschedConfigVersion.cmake \
         lib/cmake/tilesched/tileschedTargets.cmake lib/pkgconfig/tilesched.pc; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
want=$( (cd "$src/engine/include" && find . -name '*.h'; cd "$src/generators/include" && find . -name '*.h') | sort)
got=$(cd "$prefix/include" && find . -type f | sort)
[[ $want == "$got" ]] || fail "installed headers differ from engine/include + generators/include"
# Nothing in the package points back into the source or build tree, and
# internal targets stay out of it.
if grep -rlF -e "$src" -e "$(cd "$build" && pwd)" "$prefix/lib/cmake" "$prefix/lib/pkgconfig"; then
  fail "the package refers to the source or build tree"
fi
grep -qE 'engine_internal|harness|tilesched_warnings' "$prefix"/lib/cmake/tilesched/*.cmake \
  && fail "an internal target is exported"

# find_package(tilesched CONFIG REQUIRED) from a fresh project.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if cmake -S "$src/tests/package/consumer" -B "$work/consumer" "${generator[@]}" \
     -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 \
   && cmake --build "$work/consumer" >"$work/build.log" 2>&1; then
  expect 0 "$work/consumer/consumer" "$graph"
  grep -q 'gemm_mainloop.loop.json: .* legal' "$work/out" || fail "consumer: $(cat "$work/out")"
  grep -q 'random_layered/.* legal' "$work/out" || fail "consumer (graphgen): $(cat "$work/out")"
else
  fail "consumer: $(tail -20 "$work/configure.log" "$work/build.log" 2>/dev/null)"
fi

# The same program through pkg-config.
if command -v pkg-config >/dev/null; then
  # shellcheck disable=SC2046  # pkg-config prints a list of words
  if PKG_CONFIG_PATH=$prefix/lib/pkgconfig "$cxx" -std=c++20 -DCONSUMER_WITH_GRAPHGEN \
       "$src/tests/package/consumer/main.cc" -o "$work/pc_consumer" \
       $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs tilesched) 2>"$work/pc.log"; then
    expect 0 "$work/pc_consumer" "$graph"
  else
    fail "pkg-config build: $(head -c 600 "$work/pc.log")"
  fi
fi

# The installed command line.
expect 0 "$prefix/bin/tilesched" schedule "$graph" -o "$work/s.json"
expect 0 "$prefix/bin/tilesched" verify "$graph" "$work/s.json"
# A C++ plug-in built against the package, run by the installed command
# line: it schedules a one-op loop and declines the worked example.
plugin=$work/consumer/libconsumer_plugin.so
if [[ -e $plugin ]]; then
  echo '{"format": "tilesched.loop/1", "name": "one", "target": {"name": "t", "slots": [{"name": "alu"}]},
         "ops": [{"id": "a", "kind": "generic", "latency": 2, "resources": [{"slot": 1, "duration": 1}]}]}' \
    >"$work/one.loop.json"
  expect 0 "$prefix/bin/tilesched" schedule "$work/one.loop.json" --generator "plugin:$plugin" \
    -o "$work/p.json"
  expect 0 "$prefix/bin/tilesched" verify "$work/one.loop.json" "$work/p.json"
  expect 1 "$prefix/bin/tilesched" schedule "$graph" --generator "plugin:$plugin"
  grep -q "plugin:one-at-a-time: no legal schedule" "$work/err" || fail "plug-in: $(cat "$work/err")"
else
  fail "the C++ plug-in was not built"
fi

finish package_test
