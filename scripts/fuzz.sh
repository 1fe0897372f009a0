#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (preset "fuzz") and runs each for N seconds (default 60), seeded from
# the fixtures: topology XMLs, saved runs, and one input per file of the h200x2 sysfs snapshot. Exits non-zero on
# any finding (crash, leak, sanitizer report).
set -euo pipefail
seconds=${1:-60}
cd "$(dirname "$0")/.."
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
shopt -s nullglob
fuzzers=(build/fuzz/fuzz/*_fuzzer)
if [ ${#fuzzers[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets built" >&2
  exit 1
fi

# sysfs_fuzzer's input format (fuzz/sysfs_fuzzer.cpp): "relative/path\ncontent".
seed_sysfs() {
  local corpus=$1 tree
  tree=$(mktemp -d)
  tar -xzf tests/fixtures/h200x2/sysfs-snapshot.tgz -C "$tree"
  (cd "$tree/sysfs" && find . -type f) | while read -r file; do
    relative=${file#./}
    { printf '%s\n' "$relative"; cat "$tree/sysfs/$relative"; } >"$corpus/seed-$(printf '%s' "$relative" | tr '/' '_')"
  done
  rm -rf "$tree"
}

for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  corpus=build/fuzz/corpus/$name
  mkdir -p "$corpus"
  max_len=65536
  case $name in
    topo_xml_fuzzer) cp tests/fixtures/topo/*.xml tests/fixtures/h200x2/nccl-topo-dump.xml "$corpus"/ ;;
    run_json_fuzzer | run_json_reader_fuzzer)
      cp tests/fixtures/runs/*.json "$corpus"/
      max_len=262144 ;;  # the largest fixture run is 150 KB
    sysfs_fuzzer) seed_sysfs "$corpus" ;;
    *) echo "fuzz: no seeds for $name" >&2; exit 1 ;;
  esac
  echo "fuzz: running $name for ${seconds}s"
  "$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build/fuzz/ "$corpus"
done
