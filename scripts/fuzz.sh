#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (preset "fuzz") and runs each for N seconds (default 60),
# seeded with the topology fixtures. Exits non-zero on any finding (crash, leak, sanitizer report).
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
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  corpus=build/fuzz/corpus/$name
  mkdir -p "$corpus"
  cp tests/fixtures/topo/*.xml tests/fixtures/h200x2/nccl-topo-dump.xml "$corpus"/ 2>/dev/null || true
  echo "fuzz: running $name for ${seconds}s"
  "$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build/fuzz/ "$corpus"
done
