#!/usr/bin/env bash
# Second tuning run on the GPU machine (~40-60 s; 2 GPUs with peer access): after the first sweep showed every
# SM kernel shape within 0.3% of each other and 0.45% below nvbandwidth's SM read, this measures what changed:
#   1. SM read and write at 512 MiB, 0>1 and 1>0, for the best shapes of the first sweep with a sample's copies
#      repeated inside one launch ("kernel"), the default shapes also with one launch per copy ("launch") as the
#      A/B, and nvbandwidth's own shape (plain loads, 512 threads, 1 CTA per SM, unroll 12)
#   2. CE 512 MiB, both directions
#   3. CE bidirectional 512 MiB with the shared window opened/closed by flags (new default) and by cross-GPU event
#      waits (the first run's method): per direction, total over the shared window, sum of the directions
#      (nvbandwidth's total)
#   4. pointer-chase latency variants random|stride x cg|ca|plain over 2 MiB (the default rule: the lowest median
#      among the variants whose loads all leave the reader, see docs/p2p.md), plus stride ca|cg over 64 KiB and
#      0>0 (the L1 check: ca over a lap that fits L1 must read far lower) and random|stride cg over 256 MiB (beyond
#      the owner's L2: remote DRAM)
# Every copy is verified. Each run writes NAME.json (--output), NAME.txt and NAME.log into OUT_DIR; summary.txt is
# the compact table printed at the end.
#
#   bench/device/p2p_tune2.sh [OUT_DIR]            (default OUT_DIR: p2p-tune2)
#   env: LINKSCOPE (binary; default build/ci/linkscope), SIZE (512M), MAX_TIME (seconds
#        per point, 0.5), and the nvbandwidth references of the same machine: NVBW_SM_READ (376.2), NVBW_SM_WRITE
#        (370.0), NVBW_CE_READ (394.0), NVBW_CE_BIDIR (778.96), NVBW_LATENCY_NS (829.5)
set -uo pipefail
cd "$(dirname "$0")/../.."

out=${1:-p2p-tune2}
mkdir -p "$out"
if [ -z "${LINKSCOPE:-}" ]; then
  LINKSCOPE=build/ci/linkscope
fi
export NCCL_NVLS_ENABLE=0
size=${SIZE:-512M}
max_time=${MAX_TIME:-0.5}
copy=(-b "$size" -e "$size" --pairs "0>1,1>0" --measure copy --max-time "$max_time")

status=0
script_start=$(date +%s%N)
run() {  # run NAME ARGS...: one linkscope p2p process, its Run document in OUT_DIR/NAME.json
  local name=$1
  shift
  local start_ns rc
  start_ns=$(date +%s%N)
  "$LINKSCOPE" p2p "$@" --output "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.log"
  rc=$?
  echo "p2p_tune2: $name: exit $rc after $(( ($(date +%s%N) - start_ns) / 1000000 )) ms" >&2
  [ $rc -eq 0 ] || status=1
}

# 1. SM copies. Default shapes with both repeat modes, then the best others of the first sweep (repeat auto =
#    kernel at 512 MiB) and nvbandwidth's shape.
run sm-read-default --method sm --mode read "${copy[@]}" --sm-repeat kernel,launch
run sm-read-vec --method sm --mode read "${copy[@]}" --sm-kernel vec_nc,vec_nc256 --sm-threads 512,1024 \
  --sm-ctas-per-sm 2 --sm-unroll 4,8
run sm-read-nvbw-shape --method sm --mode read "${copy[@]}" --sm-kernel vec --sm-threads 512 --sm-ctas-per-sm 1 \
  --sm-unroll 12
run sm-read-bulk --method sm --mode read "${copy[@]}" --sm-kernel bulk --sm-ctas-per-sm 2 --sm-bulk-chunk 16K \
  --sm-bulk-stages 2,4
run sm-write-default --method sm --mode write "${copy[@]}" --sm-repeat kernel,launch
run sm-write-bulk --method sm --mode write "${copy[@]}" --sm-kernel bulk --sm-ctas-per-sm 2 \
  --sm-bulk-chunk 16K,32K --sm-bulk-stages 2,4
run sm-write-vec --method sm --mode write "${copy[@]}" --sm-kernel vec_nc,vec_nc256 --sm-threads 1024 \
  --sm-ctas-per-sm 2 --sm-unroll 4,8

# 2. and 3. CE.
run ce --method ce "${copy[@]}"
run ce-bidir-flag --method ce --bidirectional -b "$size" -e "$size" --pairs "0>1" --measure copy \
  --max-time "$max_time" --span-sync flag
run ce-bidir-event --method ce --bidirectional -b "$size" -e "$size" --pairs "0>1" --measure copy \
  --max-time "$max_time" --span-sync event

# 4. Latency.
run latency --measure latency --pairs "0>1,1>0" --latency-order random,stride --latency-load cg,ca,plain \
  --latency-footprint 2M
run latency-l1-check --measure latency --pairs "0>0,0>1" --latency-order stride --latency-load ca,cg \
  --latency-footprint 64K,2M
run latency-dram --measure latency --pairs "0>1" --latency-order random,stride --latency-load cg \
  --latency-footprint 256M

echo "p2p_tune2: all runs took $(( ($(date +%s%N) - script_start) / 1000000 )) ms" >&2

python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, sys

out = sys.argv[1]
ref = {k: float(os.environ.get(k, d)) for k, d in [("NVBW_SM_READ", 376.2), ("NVBW_SM_WRITE", 370.0),
       ("NVBW_CE_READ", 394.0), ("NVBW_CE_BIDIR", 778.96), ("NVBW_LATENCY_NS", 829.5)]}

def load(name):
    path = os.path.join(out, name + ".json")
    try:
        with open(path) as f:
            return json.load(f)["measurements"]["p2p"]
    except (OSError, KeyError, ValueError) as e:
        print(f"  {name}: no results ({e})")
        return None

def median(stat):
    return stat["median"] if stat else None

def fmt(value, digits=1):
    return f"{value:.{digits}f}" if value is not None else "-"

wrong = 0
problems = []
def note_point(run, p, what):
    global wrong
    wrong += p.get("wrong", 0) or 0
    if p["status"] != "ok":
        problems.append(f"  {run} {what}: {p['status']}: {p.get('reason')}")

# 1. SM copies
rows = {}
for run in ["sm-read-default", "sm-read-vec", "sm-read-nvbw-shape", "sm-read-bulk", "sm-write-default",
            "sm-write-bulk", "sm-write-vec"]:
    section = load(run)
    if not section:
        continue
    for p in section["points"]:
        key = (p["method"], p["sm_kernel"] or "?", p.get("sm_repeat") or "?")
        rows.setdefault(key, {})[f'{p["src"]}>{p["dst"]}'] = median(p["bandwidth_gbps"])
        note_point(run, p, f'{key[1]} {p["src"]}>{p["dst"]}')
for method, reference in [("sm_read", ref["NVBW_SM_READ"]), ("sm_write", ref["NVBW_SM_WRITE"])]:
    entries = [(k, v) for k, v in rows.items() if k[0] == method]
    if not entries:
        continue
    def worst(v):
        values = [v.get(p) for p in ("0>1", "1>0")]
        return min(values) if all(x is not None for x in values) else None
    entries.sort(key=lambda e: worst(e[1]) or 0, reverse=True)
    width = max(len(k[1]) for k, _ in entries)
    print(f"\n{method} 512M, GB/s median (repeat: kernel = a sample's copies in one launch, launch = one each);"
          f" nvbandwidth {reference}")
    print(f'{"kernel":<{width}}  {"repeat":>6}  {"0>1":>7}  {"1>0":>7}  {"worst":>7}  {"vs nvbw":>7}')
    for (m, label, repeat), v in entries:
        w = worst(v)
        print(f"{label:<{width}}  {repeat:>6}  {fmt(v.get('0>1')):>7}  {fmt(v.get('1>0')):>7}  {fmt(w):>7}  "
              f"{(f'{w / reference:.4f}' if w else '-'):>7}")

# 2. CE
section = load("ce")
if section:
    print(f"\nce 512M, GB/s median; nvbandwidth read CE {ref['NVBW_CE_READ']}")
    for p in section["points"]:
        note_point("ce", p, f'{p["src"]}>{p["dst"]}')
        g = median(p["bandwidth_gbps"])
        ratio = f'{g / ref["NVBW_CE_READ"]:.4f}' if g else "-"
        print(f'  {p["src"]}>{p["dst"]}  {fmt(g)}  vs nvbw {ratio}')

# 3. CE bidirectional
print(f"\nce bidirectional 512M, GB/s median: total = both directions over one shared window; sum = the two"
      f" directions' own rates (nvbandwidth's total, {ref['NVBW_CE_BIDIR']})")
print(f'{"span sync":<10}  {"0>1":>7}  {"1>0":>7}  {"total":>7}  {"sum":>7}  {"total/sum":>9}  {"sum vs nvbw":>11}')
for sync in ["flag", "event"]:
    section = load(f"ce-bidir-{sync}")
    if not section:
        continue
    by_dir = {f'{p["src"]}>{p["dst"]}': p for p in section["points"]}
    for p in section["points"]:
        note_point(f"ce-bidir-{sync}", p, f'{p["src"]}>{p["dst"]}')
    first = section["points"][0]
    total, total_sum = median(first.get("total_gbps")), median(first.get("sum_gbps"))
    ratio = f"{total / total_sum:.5f}" if total and total_sum else "-"
    vs = f"{total_sum / ref['NVBW_CE_BIDIR']:.4f}" if total_sum else "-"
    print(f'{sync:<10}  {fmt(median(by_dir.get("0>1", {}).get("bandwidth_gbps"))):>7}  '
          f'{fmt(median(by_dir.get("1>0", {}).get("bandwidth_gbps"))):>7}  {fmt(total):>7}  {fmt(total_sum):>7}  '
          f'{ratio:>9}  {vs:>11}')

# 4. Latency
L1_LIMIT = 4 * 256 * 1024  # plan::ChaseSpec::leaves_l1: cg, or a lap of at least 4 x the largest L1
print(f"\nsm_pointer_chase latency, ns median [min-max]; honest = every load leaves the reader (cg, or a lap >= 1 MiB);"
      f" nvbandwidth {ref['NVBW_LATENCY_NS']}")
best = None
for run in ["latency", "latency-l1-check", "latency-dram"]:
    section = load(run)
    if not section:
        continue
    for l in section["latency"]:
        pair = f'{l["src"]}>{l["dst"]}'
        if l["status"] != "ok":
            problems.append(f'  {run} {l["method"]} {l.get("chase") or ""} {pair}: {l["status"]}: {l.get("reason")}')
            continue
        ns = l["latency_ns"]
        if l["method"] == "ce_small_copy":
            if run == "latency":
                print(f'  {"ce_small_copy 16B":<22} {pair:>4}  {ns["median"]:8.1f} [{ns["min"]:.1f}-{ns["max"]:.1f}]')
            continue
        load_kind = (l.get("chase") or "? ? ?").split(" ")[1]
        honest = load_kind == "cg" or l["bytes"] >= L1_LIMIT
        remote = l["src"] != l["dst"]
        versus = ""
        if remote and l["bytes"] == 2 << 20:
            versus = f'  vs nvbw {ns["median"] / ref["NVBW_LATENCY_NS"]:.4f}'
        kind = ("honest" if honest else "L1 can serve it") + ("" if remote else ", local")
        print(f'  {l.get("chase") or "?":<22} {pair:>4}  {ns["median"]:8.1f} [{ns["min"]:.1f}-{ns["max"]:.1f}]  '
              f'{kind}{versus}')
        if honest and remote and l["bytes"] == 2 << 20:
            worst_pair = max(x["latency_ns"]["median"] for x in section["latency"]
                             if x.get("chase") == l.get("chase") and x["status"] == "ok" and x["src"] != x["dst"])
            if best is None or worst_pair < best[1]:
                best = (l.get("chase"), worst_pair)
if best:
    print(f"  lowest honest 2 MiB variant (worst direction): {best[0]} at {best[1]:.1f} ns"
          f" (plan::kDefaultChase is the default; the rule in docs/p2p.md picks this one)")

print(f"\nverification: #wrong {wrong}")
if problems:
    print("not ok:")
    for line in problems[:40]:
        print(line)
PY
exit $status
