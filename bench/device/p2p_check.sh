#!/usr/bin/env bash
# The p2p acceptance run for a GPU machine: the default sweep twice (timed), 512 MiB copies in read and write
# mode, the bidirectional CE run, latency, the pattern presets (with and without --numa-sweep), and a summary
# against the targets. Text, JSON and stderr logs go to OUT_DIR.
#
#   bench/device/p2p_check.sh OUT_DIR
#   env: LINKSCOPE   binary (default build/ci/linkscope)
#        NVBANDWIDTH optional path of an nvbandwidth binary: its numbers on this machine become the references;
#                    otherwise the 2 x H200 anchors (research/anchors-h200x2.md) are used
#        PAIRS       pairs for the 512 MiB and latency runs (default: all)
#
# Exit status: 0 when every linkscope run exited 0, 1 otherwise. Targets met or missed are in OUT_DIR/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ $# -lt 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
out=$1
mkdir -p "$out"
if [ -z "${LINKSCOPE:-}" ]; then
  LINKSCOPE=build/ci/linkscope
fi
export NCCL_NVLS_ENABLE=0
pair_args=()
[ -n "${PAIRS:-}" ] && pair_args=(--pairs "$PAIRS")

status=0
: > "$out/runs.tsv"
# run NAME ARGS...: NAME.txt (stdout), NAME.json (Run document), NAME.log (stderr); wall time and exit in runs.tsv
run() {
  local name=$1
  shift
  echo "p2p_check: $name: $LINKSCOPE $*" >&2
  local start_ns
  start_ns=$(date +%s%N)
  "$LINKSCOPE" "$@" --output "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.log"
  local rc=$?
  local ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  printf '%s\t%s\t%s\n' "$name" "$rc" "$ms" >> "$out/runs.tsv"
  echo "p2p_check: $name: exit $rc, $ms ms" >&2
  [ $rc -eq 0 ] || status=1
}

run sweep1 p2p
run sweep2 p2p
run read512 p2p -b 512M -e 512M --measure copy "${pair_args[@]}"
run write512 p2p -b 512M -e 512M --measure copy --mode write "${pair_args[@]}"
run bidir_ce512 p2p -b 512M -e 512M --measure copy --method ce --bidirectional "${pair_args[@]}"
run bidir_sm512 p2p -b 512M -e 512M --measure copy --method sm --bidirectional "${pair_args[@]}"
run latency p2p --measure latency "${pair_args[@]}"
run patterns patterns
run patterns_numa patterns --numa-sweep

if [ -n "${NVBANDWIDTH:-}" ]; then
  echo "p2p_check: nvbandwidth: $NVBANDWIDTH" >&2
  "$NVBANDWIDTH" -j -t device_to_device_memcpy_read_ce device_to_device_memcpy_read_sm \
    device_to_device_bidirectional_memcpy_read_ce device_to_device_latency_sm > "$out/nvbandwidth.json" \
    2> "$out/nvbandwidth.log" || echo "p2p_check: nvbandwidth failed (see $out/nvbandwidth.log)" >&2
fi

python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, sys

out = sys.argv[1]

def load(name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except Exception as e:  # a run that failed before writing its document
        print(f"  {name}: no Run document ({e})")
        return None

def p2p_points(run):
    return run["measurements"]["p2p"]["points"] if run else []

def medians(run, method, bytes_=None, direction="uni"):
    return {(p["src"], p["dst"]): p for p in p2p_points(run)
            if p["method"] == method and p["direction"] == direction and p["status"] == "ok"
            and (bytes_ is None or p["bytes"] == bytes_) and p["src"] != p["dst"]}

# References: nvbandwidth on this machine when it ran, otherwise the 2 x H200 anchors.
ref = {"ce_read": 393.8, "sm_read": 376.2, "ce_bidir_total": 778.9, "latency_ns": 829.0}
ref_source = "anchors 2 x H200 (nvbandwidth v0.8, research/anchors-h200x2.md)"
try:
    with open(os.path.join(out, "nvbandwidth.json")) as f:
        text = f.read()
    nvbw = json.loads(text[text.index("{"):text.rindex("}") + 1])["nvbandwidth"]
    def cells(name):
        for t in nvbw.get("testcases", []):
            if t.get("name") == name:
                return [float(c) for row in t.get("bandwidth_matrix", []) for c in row if c not in ("N/A", "")]
        return []
    measured = {"ce_read": cells("device_to_device_memcpy_read_ce"), "sm_read": cells("device_to_device_memcpy_read_sm"),
                "ce_bidir_total": [], "latency_ns": cells("device_to_device_latency_sm")}
    for t in nvbw.get("testcases", []):
        if t.get("name", "").startswith("device_to_device_bidirectional_memcpy_read_ce") and "otal" in t.get("bandwidth_description", ""):
            measured["ce_bidir_total"] = [float(c) for row in t["bandwidth_matrix"] for c in row if c not in ("N/A", "")]
    for key, values in measured.items():
        if values:
            ref[key] = sum(values) / len(values)
    ref_source = "nvbandwidth run on this machine (mean over pairs)"
except FileNotFoundError:
    pass
except Exception as e:
    print(f"  nvbandwidth.json unreadable ({e}); using the anchors")

print(f"p2p check in {out}; references: {ref_source}")
results = []
def verdict(name, value, target, better, detail=""):
    ok = value is not None and (value >= target if better == "higher" else value <= target)
    shown = "n/a" if value is None else f"{value:.1f}"
    results.append(ok)
    print(f"  {'met   ' if ok else 'MISSED'} {name}: {shown} (target {'>=' if better == 'higher' else '<='} {target:.1f}) {detail}")

runs = {}
with open(os.path.join(out, "runs.tsv")) as f:
    for line in f:
        name, rc, ms = line.rstrip("\n").split("\t")
        runs[name] = (int(rc), int(ms) / 1000)
print("runs (exit, seconds): " + ", ".join(f"{k} {v[0]} {v[1]:.1f}s" for k, v in runs.items()))

read512, bidir = load("read512"), load("bidir_ce512")
ce = medians(read512, "ce", 512 << 20)
sm = medians(read512, "sm_read", 512 << 20)
worst = lambda d: min((p["bandwidth_gbps"]["median"] for p in d.values()), default=None)
verdict("CE 512M one direction, worst pair (GB/s)", worst(ce), ref["ce_read"], "higher",
        " ".join(f"{s}>{d} {p['bandwidth_gbps']['median']:.1f}" for (s, d), p in sorted(ce.items())))
verdict("SM read 512M, worst pair (GB/s)", worst(sm), 1.05 * ref["sm_read"], "higher",
        " ".join(f"{s}>{d} {p['bandwidth_gbps']['median']:.1f} [{p['sm_kernel']}]" for (s, d), p in sorted(sm.items())))
totals = [p["total_gbps"]["median"] for p in medians(bidir, "ce", 512 << 20, "bidir").values() if p.get("total_gbps")]
verdict("CE bidirectional 512M total, worst pair (GB/s)", min(totals) if totals else None, ref["ce_bidir_total"], "higher")
sums = [p["sum_gbps"]["median"] for p in medians(bidir, "ce", 512 << 20, "bidir").values() if p.get("sum_gbps")]
if sums:  # nvbandwidth's definition (sum of the directions' own rates), to compare side by side
    print(f"  CE bidirectional 512M sum of the directions, worst pair (nvbandwidth's total): {min(sums):.1f} GB/s")
lat = [l for l in (load("latency") or {"measurements": {"p2p": {"latency": []}}})["measurements"]["p2p"]["latency"]
       if l["method"] == "sm_pointer_chase" and l["status"] == "ok" and l["src"] != l["dst"]]
verdict("SM pointer-chase latency, worst pair (ns)", max((l["latency_ns"]["median"] for l in lat), default=None),
        ref["latency_ns"], "lower")
for name in ("sweep1", "sweep2"):
    verdict(f"default sweep {name} wall time (s)", runs.get(name, (1, None))[1], 60.0, "lower")

s1, s2 = load("sweep1"), load("sweep2")
key = lambda p: (p["src"], p["dst"], p["method"], p["direction"], p["bytes"], p["sm_kernel"])
a = {key(p): p for p in p2p_points(s1) if p["status"] == "ok" and p["bytes"] >= 16 << 20}
b = {key(p): p for p in p2p_points(s2) if p["status"] == "ok" and p["bytes"] >= 16 << 20}
diffs = []
for k in a.keys() & b.keys():
    x, y = a[k]["bandwidth_gbps"]["median"], b[k]["bandwidth_gbps"]["median"]
    diffs.append((abs(x - y) / max(x, y) * 100, k))
diffs.sort(reverse=True)
worst_diff = diffs[0][0] if diffs else None
verdict("two sweeps agree at >= 16 MiB, largest difference (%)", worst_diff, 1.0, "lower",
        f"over {len(diffs)} points" + (f"; worst {diffs[0][1][2]} {diffs[0][1][0]}>{diffs[0][1][1]} {diffs[0][1][4] >> 20} MiB" if diffs else ""))

wrong = 0
for name in ("sweep1", "sweep2", "read512", "write512", "bidir_ce512", "bidir_sm512"):
    run = load(name)
    if run:
        wrong += run["measurements"]["p2p"].get("wrong", 0)
for name in ("patterns", "patterns_numa"):
    run = load(name)
    if run:
        wrong += sum(p.get("wrong", 0) for p in run["measurements"].get("patterns", []))
verdict("#wrong words over all runs", wrong, 0, "lower")
numa = (load("patterns_numa") or {}).get("measurements", {}).get("numa_sweep")
if numa:
    print(f"  info   NUMA sweep: nodes {numa['nodes']}, largest relative difference {numa['largest_relative_difference']}"
          f" {numa.get('reason') or ''}")
print(f"{sum(results)} of {len(results)} targets met")
PY
exit $status
