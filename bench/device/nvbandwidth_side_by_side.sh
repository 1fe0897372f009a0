#!/usr/bin/env bash
# nvbandwidth v0.8 and `linkscope p2p --testcase` side by side on one GPU machine, in one device call (~3 min on
# 1 x H200): runs every testcase that one GPU can run in both tools, twice each and alternating, plus the kernels'
# device tests, and packs the raw outputs and a ratio table into ONE tar under $OUT (or OUT_DIR).
#
#   bench/device/nvbandwidth_side_by_side.sh NVBANDWIDTH_BIN [OUT_DIR]
#     NVBANDWIDTH_BIN  an nvbandwidth v0.8 binary the caller built from public source for this device call (this
#                      repository holds neither its code nor a script that builds it)
#     OUT_DIR          default $OUT, else ./nvbandwidth-side-by-side
#   env: LINKSCOPE (default build/ci/linkscope), DEVICE_TESTS (default build/ci/tests/linkscope_device_tests),
#        BUFFER (MiB per copy, default 512 = nvbandwidth's default), CUDA_HOME (default /usr/local/cuda)
#
# What comes back (nvbandwidth_side_by_side.tar): nvbandwidth-{1,2}.txt, linkscope-{1,2}.txt/.json/.log,
# device-tests.txt, machine.txt, ratios.txt (every SUM key of both tools: linkscope / nvbandwidth per
# run, bandwidth higher is better, latency lower is better; the acceptance line is >= 0.99 for bandwidth and
# <= 1.00 for latency).
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0

bin=${1:?usage: nvbandwidth_side_by_side.sh NVBANDWIDTH_BIN [OUT_DIR]}
[ -x "$bin" ] || { echo "nvbandwidth_side_by_side: no executable nvbandwidth at $bin" >&2; exit 2; }
out_root=${2:-${OUT:-nvbandwidth-side-by-side}}
work=$(mktemp -d)
out=$work/nvbandwidth_side_by_side
mkdir -p "$out" "$out_root"
LINKSCOPE=${LINKSCOPE:-build/ci/linkscope}
DEVICE_TESTS=${DEVICE_TESTS:-build/ci/tests/linkscope_device_tests}
BUFFER=${BUFFER:-512}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
started=$(date +%s)
log() { echo "nvbandwidth_side_by_side: [$(( $(date +%s) - started )) s] $*" >&2; }
pack() {
  tar -C "$work" -cf "$out_root/nvbandwidth_side_by_side.tar" nvbandwidth_side_by_side
  log "wrote $out_root/nvbandwidth_side_by_side.tar"
}
trap pack EXIT

{ nvidia-smi; nvidia-smi topo -m; "$LINKSCOPE" version; nproc; } > "$out/machine.txt" 2>&1

# ---- the runs --------------------------------------------------------------------------------------------------
# Every testcase of the table; the device-to-device ones are waived on one GPU by both tools.
testcases=$("$LINKSCOPE" p2p --list-testcases | sed -n 's/^[0-9]*, \(.*\):$/\1/p')
# nvbandwidth binds itself to each GPU's NUMA node before allocating host memory; linkscope is given that node.
bdf=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i 0 | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
node=$(cat "/sys/bus/pci/devices/$bdf/numa_node" 2>/dev/null || echo -1)
cpu_node=()
[ "$node" -ge 0 ] 2>/dev/null && cpu_node=(--cpu-node "$node")
ls_args=()
for t in $testcases; do ls_args+=(--testcase "$t"); done
status=0
for round in 1 2; do
  log "round $round: linkscope"
  "$LINKSCOPE" p2p "${ls_args[@]}" --buffer-size "${BUFFER}M" "${cpu_node[@]}" --output "$out/linkscope-$round.json" \
    > "$out/linkscope-$round.txt" 2> "$out/linkscope-$round.log" || { status=1; log "linkscope exit $?"; }
  log "round $round: nvbandwidth"
  "$bin" -b "$BUFFER" > "$out/nvbandwidth-$round.txt" 2>&1 || { status=1; log "nvbandwidth exit $?"; }
done
log "device tests"
"$DEVICE_TESTS" --gtest_filter='P2pTestcase.*:P2pLatency.*' > "$out/device-tests.txt" 2>&1 || status=1

# ---- ratios: every "SUM key value" line of both tools ------------------------------------------------------------
python3 - "$out" > "$out/ratios.txt" <<'EOF'
import re, sys, os
out = sys.argv[1]
def sums(path):
    found = {}
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            m = re.match(r"^SUM (\S+) ([0-9.eE+-]+)$", line.strip())
            if m:
                found[m.group(1)] = float(m.group(2))
    return found
runs = [(sums(f"{out}/linkscope-{r}.txt"), sums(f"{out}/nvbandwidth-{r}.txt")) for r in (1, 2)]
keys = sorted(set().union(*[set(a) | set(b) for a, b in runs]))
print(f"{'SUM key (1 GPU: the one cell)':<48} {'linkscope 1':>11} {'nvbw 1':>9} {'ratio 1':>8} "
      f"{'linkscope 2':>11} {'nvbw 2':>9} {'ratio 2':>8}  verdict")
worst = {}
for k in keys:
    latency = "latency" in k
    cells, verdict = [], "ok"
    for a, b in runs:
        x, y = a.get(k), b.get(k)
        r = x / y if x and y else None
        cells += [f"{x:11.2f}" if x is not None else f"{'-':>11}", f"{y:9.2f}" if y is not None else f"{'-':>9}",
                  f"{r:8.4f}" if r is not None else f"{'-':>8}"]
        if r is None:
            verdict = "missing"
        elif (latency and r > 1.00) or (not latency and r < 0.99):
            verdict = "BELOW TARGET" if verdict == "ok" else verdict
    print(f"{k:<48} {' '.join(cells)}  {verdict}{' (ns: lower is better)' if latency else ''}")
EOF
cat "$out/ratios.txt"
log "done (status $status)"
exit $status
