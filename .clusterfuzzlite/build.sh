#!/bin/bash -eu
# ClusterFuzzLite's build step: the project's own OSS-Fuzz build script
# (fuzz/build.sh; fuzz/README.md, "OSS-Fuzz and ClusterFuzzLite").
"$SRC/tilesched/fuzz/build.sh"
