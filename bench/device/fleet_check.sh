#!/usr/bin/env bash
# The fleet workflow on the real NCCL path of a one-GPU machine (nvidia-h100-x1): MPI ranks play hosts
# (LINKSCOPE_HOST_PER_RANK=1), each with its own NCCL_HOSTID so that NCCL treats them as separate hosts and connects
# them through its network transport (NET/Socket over lo; P2P, SHM and IB off), all on GPU 0. Then the live doctor
# against a baseline of two earlier doctor runs.
#
#   bench/device/fleet_check.sh OUTPUT_DIR       (binary: $LINKSCOPE, default build/ci/linkscope)
#
# Each step's stdout, stderr, exit code and wall seconds go under OUTPUT_DIR/<step>.*; summary.txt has one line per
# step with what it measured.
set -uo pipefail

out=${1:?usage: fleet_check.sh OUTPUT_DIR}
bin=${LINKSCOPE:-build/ci/linkscope}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out"
out=$(cd "$out" && pwd)
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# hosts N [PREFIX...] -- ARGS... : linkscope ARGS on N ranks, each its own host; PREFIX (e.g. taskset) runs rank 0.
hosts() {
  local n=$1 slow_prefix=$2
  shift 2
  # Open MPI 4.1's -x reaches the first app context of an MPMD line only: every context sets its own variables.
  local spec=() i
  local common=(LINKSCOPE_HOST_PER_RANK=1 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NVLS_ENABLE=0 NCCL_IB_DISABLE=1
                NCCL_SOCKET_IFNAME=lo CUDA_VISIBLE_DEVICES=0)
  for ((i = 0; i < n; ++i)); do
    ((i > 0)) && spec+=(:)
    if ((i == 0)) && [ -n "$slow_prefix" ]; then
      spec+=(-np 1 env "${common[@]}" NCCL_HOSTID="fleet-host-$i" $slow_prefix "$bin" "$@")
    else
      spec+=(-np 1 env "${common[@]}" NCCL_HOSTID="fleet-host-$i" "$bin" "$@")
    fi
  done
  timeout 300 mpirun --allow-run-as-root --oversubscribe "${spec[@]}"
}

source "$(dirname "${BASH_SOURCE[0]}")/step_lib.sh"  # run NAME COMMAND...

nvidia-smi -L >"$out/nvidia-smi-L.txt" 2>&1
"$bin" version >"$out/version.txt" 2>&1
sizes=(-b 4M -e 64M -f 4 --max-time 0.1)

# Night 1: the pairs of four good hosts and an isolation judged against what they measured.
run pairs-good hosts 4 "" cluster "${sizes[@]}" -q --output "$out/pairs-good.json"
expect=$(python3 -c "
import json, statistics, sys
run = json.load(open(sys.argv[1]))
print(round(statistics.median(p['bandwidth_gbps'] for p in run['measurements']['cross_host']['pairs'] if p['bandwidth_gbps']), 2))" \
  "$out/pairs-good.json" 2>/dev/null || echo 1)
echo "$expect" >"$out/expect-gbps.txt"
run isolate-given hosts 4 "" cluster "${sizes[@]}" --isolate --expect-gbps "$expect" --output "$out/isolate-good.json"
run isolate-nothing hosts 4 "" cluster "${sizes[@]}" --isolate -q
run baseline-cluster "$bin" baseline "$out/pairs-good.json" "$out/isolate-good.json" -o "$out/cluster-baseline.json"
# Night 2: rank 0's host shares one CPU with a busy loop (its NCCL proxy threads too): the host the fleet must name.
taskset -c 0 sh -c 'while :; do :; done' &
burner=$!
run isolate-slow hosts 4 "taskset -c 0" cluster "${sizes[@]}" --isolate --baseline "$out/cluster-baseline.json" \
  --fail-on warning --output "$out/isolate-slow.json" --prometheus "$out/isolate-slow.prom"
kill "$burner" 2>/dev/null
run isolate-baseline hosts 4 "" cluster "${sizes[@]}" --isolate --baseline "$out/cluster-baseline.json" \
  --fail-on warning --output "$out/isolate-baseline.json"
run soak hosts 4 "" cluster "${sizes[@]}" --isolate --baseline "$out/cluster-baseline.json" --soak 40s \
  --output "$out/soak.json" --prometheus "$out/soak.prom"

# The live doctor against a baseline of two earlier runs of the same machine.
run doctor-1 "$bin" doctor --quick -o "$out/doctor-1"
run doctor-2 "$bin" doctor --quick -o "$out/doctor-2"
run baseline-doctor "$bin" baseline "$out/doctor-1/run.json" "$out/doctor-2/run.json" -o "$out/doctor-baseline.json"
run doctor-judged "$bin" doctor --quick --baseline "$out/doctor-baseline.json" --fail-on warning -o "$out/doctor-3"
# The same under MPI: two hosts (on the one GPU) examine themselves at once; rank 0 judges each host's run.
run doctor-mpi hosts 2 "" doctor --quick --baseline "$out/doctor-baseline.json" -o "$out/doctor-mpi"

python3 - "$out" <<'PY' >"$out/summary.txt"
import json, os, sys
out = sys.argv[1]
def read(name):
    try:
        return open(os.path.join(out, name)).read()
    except OSError:
        return ""
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as error:
        return {"_error": str(error)}
for step in ["pairs-good", "isolate-given", "isolate-nothing", "baseline-cluster", "isolate-slow", "isolate-baseline",
             "soak", "doctor-1", "doctor-2", "baseline-doctor", "doctor-judged", "doctor-mpi"]:
    print(f"{step}: exit {read(step + '.rc').strip()} in {read(step + '.seconds').strip()} s; "
          f"last stderr line: {(read(step + '.err').strip().splitlines() or [''])[-1][:300]}")
print("expect-gbps (median pair of night 1):", read("expect-gbps.txt").strip())
pairs = load("pairs-good.json").get("measurements", {}).get("cross_host", {})
for p in pairs.get("pairs", []):
    print(f"  pair {p['a']['host']} <-> {p['b']['host']}: {p['status']} "
          f"{p['bandwidth_gbps']} GB/s via {p['a'].get('transport')} {p['a'].get('nic')}")
for name in ["isolate-good.json", "isolate-slow.json", "isolate-baseline.json", "soak.json"]:
    run = load(name)
    iso = run.get("measurements", {}).get("cross_host", {}).get("isolation")
    if not iso:
        print(name, "no isolation:", run.get("_error"))
        continue
    print(f"{name}: {iso['run_count']} run(s), {iso['collective_count']} collective(s); expected {iso['expected_gbps']} "
          f"less {iso['shortfall']:.3f} from {iso['expected_from']}")
    for r, each in enumerate(iso["runs"]):
        print(f"  run {r + 1}: " + "; ".join(f"{len(g['hosts'])} hosts {g['outcome']} {g['busbw_gbps']}" for g in each["groups"]))
    print("  verdicts:", {h["host"]: h["verdict"] for h in iso["hosts"]})
    print("  findings:", [(f["id"], f["severity"]) for f in run.get("findings", [])])
    soak = run.get("measurements", {}).get("soak")
    if soak:
        print(f"  soak: {len(soak['cycles'])} cycles; {soak['ended']}")
        for c in soak["cycles"]:
            every = [v for k, v in c["metrics"].items() if k.startswith("linkscope_isolation_every_host")]
            print(f"    cycle {c['index']}: {c['seconds']:.1f} s, every-host busbw {every}, states {len(c['states'])}")
judged = load("doctor-3/run.json")
fleet = judged.get("fleet") or {}
print("doctor-judged: type", fleet.get("machine_type"), "in baseline", fleet.get("type_in_baseline"),
      "metrics", len(fleet.get("metrics", [])), "outside", sum(1 for m in fleet.get("metrics", []) if m.get("outside")),
      "not in baseline", fleet.get("not_in_baseline"))
print("doctor-judged findings:", [(f["id"], f["severity"]) for f in judged.get("findings", [])])
mpi = load("doctor-mpi/run.json")
for host in mpi.get("system", {}).get("hosts", []):
    print("doctor-mpi host", host["name"], [(f["id"], f["severity"], f["title"][:120]) for f in host.get("findings") or []])
print("doctor-mpi fleet:", (mpi.get("fleet") or {}).get("machine_type"), "outside",
      sum(1 for m in (mpi.get("fleet") or {}).get("metrics", []) if m.get("outside")))
PY
cat "$out/summary.txt"
