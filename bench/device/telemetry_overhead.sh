#!/usr/bin/env bash
# Side by side on a GPU machine: does the doctor's telemetry sampler change what linkscope measures? (issue 12:
# overhead <= 0.5%). The same `linkscope p2p` and `linkscope coll` commands run without the sampler and with it,
# alternating (off/on in odd rounds, on/off in even ones, so that drift cancels). "With it" is the sampler in a
# process of its own (build/ci/bench/telemetry_watch), which is where the doctor runs it too: in the parent, while
# each step measures in a child. Optionally the whole `doctor --quick` with LINKSCOPE_TELEMETRY=off and on.
#
#   bench/device/telemetry_overhead.sh OUT_DIR
#
# Environment:
#   LINKSCOPE      linkscope binary (default build/ci/linkscope)
#   WATCH          telemetry_watch binary (default build/ci/bench/telemetry_watch)
#   ROUNDS         rounds of p2p and coll (default 5)
#   HZ             sampling rate (default 10, the doctor's)
#   P2P_ARGS       default "-b 256M -e 256M --method ce --measure copy"
#   COLL_ARGS      default "all_reduce -b 1G -e 1G"
#   DOCTOR_ROUNDS  rounds of `doctor --quick` off/on (default 2; 0 skips them)
#
# Prints, per command, the median over rounds of the number it compares (p2p: mean over pairs of the CE copy
# bandwidth at the largest size; coll: algbw at the largest size, which is busbw over a factor fixed by the op and the
# rank count, so their ratios agree, and is not 0 on one GPU as busbw is) without and with the sampler, the relative
# difference, and the sampler's own CPU share; everything is kept under OUT_DIR (summary.txt).
set -u

out=${1:?usage: telemetry_overhead.sh OUT_DIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
watch=${WATCH:-$here/build/ci/bench/telemetry_watch}
rounds=${ROUNDS:-5}
hz=${HZ:-10}
read -r -a p2p_args <<<"${P2P_ARGS:--b 256M -e 256M --method ce --measure copy}"
read -r -a coll_args <<<"${COLL_ARGS:-all_reduce -b 1G -e 1G}"
doctor_rounds=${DOCTOR_ROUNDS:-2}
[[ -x $linkscope ]] || { echo "telemetry_overhead.sh: no linkscope at $linkscope (set LINKSCOPE)" >&2; exit 2; }
[[ -x $watch ]] || { echo "telemetry_overhead.sh: no telemetry_watch at $watch (set WATCH)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
status=0

# measure NAME on|off CMD...: the command's Run document in NAME.json, with the sampler beside it when "on".
measure() {
  local name=$1 mode=$2
  shift 2
  local watcher=
  if [[ $mode == on ]]; then
    "$watch" --hz "$hz" --output "$out/$name.telemetry.json" 2>"$out/$name.watch.err" &
    watcher=$!
    sleep 0.5  # the sampler is running before the measurement starts, as in the doctor
  fi
  "$@" --format json --output "$out/$name.json" >"$out/$name.out" 2>"$out/$name.err" || {
    echo "telemetry_overhead.sh: $name failed (see $out/$name.err)" >&2
    status=1
  }
  if [[ -n $watcher ]]; then
    kill -INT "$watcher"
    wait "$watcher" || echo "telemetry_overhead.sh: telemetry_watch for $name: $(cat "$out/$name.watch.err")" >&2
  fi
  echo "telemetry_overhead.sh: $name ($mode) done" >&2
}

for ((r = 1; r <= rounds; r++)); do
  order=(off on)
  ((r % 2 == 0)) && order=(on off)
  for mode in "${order[@]}"; do measure "p2p_${mode}_$r" "$mode" "$linkscope" p2p "${p2p_args[@]}"; done
  for mode in "${order[@]}"; do measure "coll_${mode}_$r" "$mode" "$linkscope" coll "${coll_args[@]}"; done
done
for ((r = 1; r <= doctor_rounds; r++)); do
  for mode in off on; do
    setting=off
    [[ $mode == on ]] && setting=$hz
    LINKSCOPE_TELEMETRY=$setting "$linkscope" doctor --quick -o "$out/doctor_${mode}_$r" \
      >"$out/doctor_${mode}_$r.out" 2>"$out/doctor_${mode}_$r.err" || true
    echo "telemetry_overhead.sh: doctor_${mode}_$r done" >&2
  done
done

COLL_OP=${coll_args[0]} python3 - "$out" "$rounds" "$doctor_rounds" <<'PY' | tee "$out/summary.txt"
import json, os, statistics, sys

out, rounds, doctor_rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def median_of(stat):
    return stat.get("median") if isinstance(stat, dict) else stat

def p2p_number(run):
    points = [p for p in run.get("measurements", {}).get("p2p", {}).get("points", [])
              if p.get("status") == "ok" and p.get("method") == "ce" and p.get("direction", "uni") == "uni"]
    if not points:
        return None
    top = max(p["bytes"] for p in points)
    values = [median_of(p["bandwidth_gbps"]) for p in points if p["bytes"] == top]
    return statistics.mean(values) if values else None

def coll_number(run, op=os.environ.get("COLL_OP", "all_reduce")):
    best = None
    for series in run.get("measurements", {}).get("collectives", []):
        if series.get("op") != op or series.get("env", {}).get("NCCL_P2P_DISABLE"):
            continue
        points = [p for p in series.get("points", []) if p.get("status") == "ok" and p.get("algbw_gbps") is not None]
        if points:
            top = max(points, key=lambda p: p["bytes"])
            best = top["algbw_gbps"] if best is None else max(best, top["algbw_gbps"])
    return best

def compare(label, number, name):
    off, on, share = [], [], []
    for r in range(1, rounds + 1):
        a, b = load(f"{out}/{name}_off_{r}.json"), load(f"{out}/{name}_on_{r}.json")
        if a and number(a) is not None:
            off.append(number(a))
        if b and number(b) is not None:
            on.append(number(b))
        t = load(f"{out}/{name}_on_{r}.telemetry.json")
        if t and t.get("duration_s"):
            share.append(t["cost"]["cpu_seconds"] / t["duration_s"])
    report(label, off, on, share)

def report(label, off, on, share):
    if not off or not on:
        print(f"{label}: not enough results (off {len(off)}, on {len(on)})")
        return
    m_off, m_on = statistics.median(off), statistics.median(on)
    diff = (m_on - m_off) / m_off
    spread = (max(off) - min(off)) / m_off if len(off) > 1 else 0.0
    cpu = f", sampler CPU {100 * statistics.median(share):.3f}% of one core" if share else ""
    verdict = "within 0.5%" if abs(diff) <= 0.005 else "BEYOND 0.5%"
    print(f"{label}: off {m_off:.2f} GB/s, on {m_on:.2f} GB/s (median of {len(off)}/{len(on)}), "
          f"on vs off {100 * diff:+.2f}% ({verdict}; run-to-run spread without the sampler {100 * spread:.2f}%){cpu}")
    print(f"  off: {', '.join(f'{v:.2f}' for v in off)}")
    print(f"  on:  {', '.join(f'{v:.2f}' for v in on)}")

compare("p2p CE copy, largest size", p2p_number, "p2p")
compare("coll algbw, largest size", coll_number, "coll")
for label, number in (("doctor p2p CE copy", p2p_number), ("doctor all_reduce algbw", coll_number)):
    off = [n for r in range(1, doctor_rounds + 1)
           if (d := load(f"{out}/doctor_off_{r}/run.json")) and (n := number(d)) is not None]
    on, share = [], []
    for r in range(1, doctor_rounds + 1):
        d = load(f"{out}/doctor_on_{r}/run.json")
        if d and number(d) is not None:
            on.append(number(d))
        t = (d or {}).get("measurements", {}).get("telemetry")
        if t and t.get("duration_s"):
            share.append(t["cost"]["cpu_seconds"] / t["duration_s"])
    if doctor_rounds:
        report(label, off, on, share)
PY
exit $status
