#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (preset "fuzz") and runs each for N seconds (default 60), the NCCL log
# fuzzers (nccl_*_fuzzer: small, fast parsers) for M seconds (default 30): `scripts/fuzz.sh [N [M]]`. Seeded from the
# fixtures: topology XMLs, saved runs, one input per file of the h200x2 sysfs snapshot, NCCL logs (real 2.23.4 and
# 2.28.3 ones and fuzz/seeds' lines of 2.29/2.30). Exits non-zero on any finding (crash, leak, sanitizer report).
set -euo pipefail
seconds=${1:-60}
log_seconds=${2:-30}
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
  duration=$seconds
  case $name in
    topo_xml_fuzzer) cp tests/fixtures/topo/*.xml tests/fixtures/h200x2/nccl-topo-dump.xml "$corpus"/ ;;
    run_json_fuzzer | run_json_reader_fuzzer)
      cp tests/fixtures/runs/*.json "$corpus"/
      max_len=262144 ;;  # the largest fixture run is 150 KB
    sysfs_fuzzer) seed_sysfs "$corpus" ;;
    nccl_log_fuzzer | nccl_tuning_log_fuzzer | nccl_net_log_fuzzer | nccl_path_lines_fuzzer)
      cp tests/fixtures/h200x2/nccl-2.28.3-info.log tests/fixtures/topo/*.log fuzz/seeds/*.log "$corpus"/
      duration=$log_seconds ;;
    *) echo "fuzz: no seeds for $name" >&2; exit 1 ;;
  esac
  echo "fuzz: running $name for ${duration}s"
  "$fuzzer" -max_total_time="$duration" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build/fuzz/ "$corpus"
done
