#!/usr/bin/env bash
# One GPU is a real machine (issue 12, parts 3-4), checked on a 1-GPU machine in one call: the healthy
# `doctor --quick` must confirm >= 2 hypotheses (host-link-reaches-share, local-copy-reaches-memory-share) with no
# finding of severity warning or above; then `p2p` of the host link at 1 GiB with latency, and what NVML says of
# the link and the memory (nvidia-smi), for the numbers behind the verdicts. Everything goes into ONE tar file.
#
#   bench/device/onegpu_doctor.sh [OUT_DIR]     # default $OUT; writes OUT_DIR/onegpu-doctor.tar, prints the summary
# Environment: LINKSCOPE (default build/ci/linkscope). Exit 0 when the healthy checks hold, 1 otherwise.
set -u
out=${1:-${OUT:?set OUT or give OUT_DIR}}
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
[[ -x $linkscope ]] || { echo "onegpu_doctor.sh: no linkscope at $linkscope (set LINKSCOPE)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=$work/onegpu-doctor
mkdir -p "$dir"

nvidia-smi -q -d PCIE,CLOCK,MEMORY >"$dir/nvidia-smi-q.txt" 2>&1
nvidia-smi --query-gpu=name,pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.current,clocks.max.memory \
  --format=csv >"$dir/nvidia-smi-query.csv" 2>&1
"$linkscope" version >"$dir/version.txt" 2>&1

start=$(date +%s.%N)
"$linkscope" doctor --quick -o "$dir/quick" >"$dir/quick.out" 2>"$dir/quick.err"
echo "$? $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')" >"$dir/quick.rc"
"$linkscope" p2p --measure host,latency,copy --pairs 0\>0 -b 1G -e 1G --host-size 1G --format json \
  >"$dir/p2p-host-1g.json" 2>"$dir/p2p-host-1g.err"
echo $? >"$dir/p2p-host-1g.rc"
"$linkscope" doctor --from "$dir/p2p-host-1g.json" -o "$dir/p2p-host-1g-report" >"$dir/p2p-host-1g-diagnosis.out" 2>&1

python3 - "$dir" >"$dir/summary.txt" <<'PY'
import json, os, sys
d = sys.argv[1]
ok = True
rc, wall = open(os.path.join(d, "quick.rc")).read().split()
print(f"doctor --quick: exit {rc}, {wall} s")
ok = ok and rc == "0"
run = json.load(open(os.path.join(d, "quick", "run.json")))
gpu = (run.get("system", {}).get("gpus") or [{}])[0]
print("GPU:", gpu.get("name"), "pcie", gpu.get("pcie"), "mem_max_mhz", gpu.get("clocks", {}).get("mem_max_mhz"),
      "bus width", gpu.get("memory_bus_width_bits"), "l2", gpu.get("l2_cache_bytes"))
print("skipped:", [s.get("step") for s in run.get("config", {}).get("skipped", [])])
p2p = run.get("measurements", {}).get("p2p", {})
for h in p2p.get("host", []):
    print(f"host GPU{h['gpu']} {h['direction']} {h.get('method')} both={h.get('bidirectional')} {h['bytes']} B:",
          (h.get("bandwidth_gbps") or {}).get("median"), h.get("status"))
for p in p2p.get("points", []):
    if p["src"] == p["dst"]:
        print(f"local GPU{p['src']} {p['method']} {p['bytes']} B:", (p.get("bandwidth_gbps") or {}).get("median"))
for l in p2p.get("latency", []):
    print(f"latency {l['src']}>{l['dst']} {l['method']}:", (l.get("latency_ns") or {}).get("median"))
confirmed = 0
for h in run.get("hypotheses", []):
    print(f"hypothesis {h['id']}: {h.get('verdict')}: {h.get('evidence')}")
    confirmed += h.get("verdict") == "confirmed"
warnings = [f for f in run.get("findings", []) if f.get("severity") in ("warning", "error")]
for f in run.get("findings", []):
    print(f"finding {f['id']} ({f['severity']}): {f.get('title')}")
print(f"confirmed hypotheses: {confirmed} (need >= 2); findings >= warning: {len(warnings)} (need 0)")
ok = ok and confirmed >= 2 and not warnings
print("RESULT:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
status=$?
cat "$dir/summary.txt"
mkdir -p "$out"
tar -C "$work" -cf "$out/onegpu-doctor.tar" onegpu-doctor
echo "onegpu_doctor.sh: wrote $out/onegpu-doctor.tar" >&2
exit $status
