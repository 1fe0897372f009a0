#!/usr/bin/env bash
# Sweeps the SM copy kernel's launch shapes at 512 MiB for both directions of a GPU pair (0>1 and 1>0), in read
# mode (kernel on the destination pulls) and write mode (kernel on the source pushes), one linkscope process
# per mode and variant family, and prints one compact table per mode, best first. Every copy is verified.
#
#   bench/device/p2p_tune.sh [OUT_DIR]            (default OUT_DIR: p2p-tune)
#   env: LINKSCOPE (binary; default build/ci/linkscope), SIZE (512M), PAIRS (0>1,1>0),
#        MAX_TIME (seconds per point, 0.5), VEC_ARGS / BULK_ARGS (override the shape lists below)
#
# Reference (2 x H200 NV18, nvbandwidth v0.8 at 512 MiB): SM read 376.2 GB/s, SM write 370.0 GB/s; the goal for
# linkscope's default SM read copy is >= 395 GB/s (1.05x); the link carries 478 GB/s per direction.
set -uo pipefail
cd "$(dirname "$0")/../.."

out=${1:-p2p-tune}
mkdir -p "$out"
if [ -z "${LINKSCOPE:-}" ]; then
  LINKSCOPE=build/ci/linkscope
fi
export NCCL_NVLS_ENABLE=0
size=${SIZE:-512M}
pairs=${PAIRS:-0>1,1>0}
max_time=${MAX_TIME:-0.5}
read -r -a vec_args <<< "${VEC_ARGS:---sm-kernel vec,vec_cg,vec_nc,vec_nc256 --sm-threads 256,512,1024 --sm-ctas-per-sm 1,2,4 --sm-unroll 4,8,12,16}"
read -r -a bulk_args <<< "${BULK_ARGS:---sm-kernel bulk --sm-ctas-per-sm 1,2,3 --sm-bulk-chunk 8K,16K,32K --sm-bulk-stages 2,4,6}"

status=0
for mode in read write; do
  for family in vec bulk; do
    if [ "$family" = vec ]; then shape_args=("${vec_args[@]}"); else shape_args=("${bulk_args[@]}"); fi
    name="$out/tune-$family-$mode"
    echo "p2p_tune: $family shapes, $mode mode, $size, pairs $pairs" >&2
    start_ns=$(date +%s%N)
    "$LINKSCOPE" p2p --method sm --mode "$mode" -b "$size" -e "$size" --pairs "$pairs" --measure copy \
      --max-time "$max_time" "${shape_args[@]}" --output "$name.json" > "$name.txt" 2> "$name.log"
    rc=$?
    echo "p2p_tune:   exit $rc after $(( ($(date +%s%N) - start_ns) / 1000000 )) ms ($name.txt)" >&2
    [ $rc -eq 0 ] || status=1
  done
done

python3 - "$out" <<'PY' | tee "$out/tune-summary.txt"
import glob, json, os, sys
out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(out, "tune-*-*.json"))):
    with open(path) as f:
        run = json.load(f)
    for p in run["measurements"]["p2p"]["points"]:
        key = (p["method"], p["sm_kernel"] or "?")
        cell = rows.setdefault(key, {})
        pair = f'{p["src"]}>{p["dst"]}'
        if p["status"] == "ok" and p["bandwidth_gbps"]:
            cell[pair] = (p["bandwidth_gbps"]["median"], p["cv"])
        else:
            cell[pair] = (None, p["status"] + ": " + (p["reason"] or ""))
reference = {"sm_read": 376.2, "sm_write": 370.0}
for method in ("sm_read", "sm_write"):
    entries = [(k[1], v) for k, v in rows.items() if k[0] == method]
    if not entries:
        continue
    pairs = sorted({pair for _, v in entries for pair in v})
    def worst(v):
        values = [v[p][0] for p in pairs if p in v and v[p][0] is not None]
        return min(values) if len(values) == len(pairs) else -1
    entries.sort(key=lambda e: worst(e[1]), reverse=True)
    width = max(len(e[0]) for e in entries)
    print(f"\n{method} at the tuned size: GB/s median (CV); worst direction decides the order;"
          f" nvbandwidth {reference[method]} GB/s")
    print(f'{"kernel":<{width}}  ' + "  ".join(f"{p:>15}" for p in pairs) + f'  {"worst":>7}  {"vs nvbw":>7}')
    for label, v in entries:
        cells = []
        for p in pairs:
            value = v.get(p, (None, "-"))
            cells.append(f"{value[0]:8.1f} ({value[1]*100:.1f}%)" if value[0] is not None else f"{'FAIL':>15}")
        w = worst(v)
        ratio = f"{w / reference[method]:.3f}" if w > 0 else "-"
        print(f"{label:<{width}}  " + "  ".join(f"{c:>15}" for c in cells) + f"  {w if w > 0 else 0:7.1f}  {ratio:>7}")
    failed = [(label, p, v[p][1]) for label, v in entries for p in pairs if p in v and v[p][0] is None]
    for label, p, why in failed[:20]:
        print(f"  {label} {p}: {why}")
PY
exit $status
