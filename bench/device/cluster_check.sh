#!/usr/bin/env bash
# Multi-host checks on one machine with two GPUs (written for nvidia-h200-x2): two MPI ranks play two hosts
# (LINKSCOPE_HOST_PER_RANK=1 names them <hostname>-rank0 and -rank1) and NCCL is forced onto its network
# transport (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1), so every cross-host path is a real NET connection.
#
#   bench/device/cluster_check.sh OUTPUT_DIR       (binary: $LINKSCOPE, default build/ci/linkscope)
#
# Runs, each with stdout/stderr/exit code under OUTPUT_DIR (about 90 s in all):
#   cluster-text / cluster-json   linkscope cluster: the 2 x 2 host matrix (sendrecv), the all_reduce, the NIC
#   topo                          linkscope topo under mpirun: both hosts' facts gathered and grouped
#   doctor-cross                  doctor --cross-host-only under mpirun: one report for both hosts
#   doctor-quick                  doctor --quick, one GPU per rank (CUDA_VISIBLE_DEVICES=0 / =1): each host
#                                 examines itself, then the cross-host tests; one report
#   mismatch                      ranks started with different arguments: refused naming both hosts (exit 2)
#   stall                         rank 1 hangs in discovery (its NVML library is a FIFO): rank 0 names it (exit 4)
#   sigstop                       rank 1 stopped (SIGSTOP) in the middle of the cross-host pair: the job ends
#                                 naming it (exit 4) instead of hanging
# then OUTPUT_DIR/summary.txt with one PASS/FAIL line per expectation and the measured numbers.
set -uo pipefail

out=${1:?usage: cluster_check.sh OUTPUT_DIR}
bin=${LINKSCOPE:-build/ci/linkscope}
[ -x "$bin" ] || [ -n "${LINKSCOPE:-}" ] || bin=build/ci/src/linkscope  # builds before the binary moved
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out"
out=$(cd "$out" && pwd)
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --allow-run-as-root --oversubscribe)
net=(-x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 -x NCCL_NVLS_ENABLE=0)
two_hosts=("${mpi[@]}" -np 2 "${net[@]}" -x LINKSCOPE_HOST_PER_RANK=1)

source "$(dirname "${BASH_SOURCE[0]}")/step_lib.sh"  # run NAME COMMAND...

nvidia-smi topo -m >"$out/nvidia-smi-topo-m.txt" 2>&1
"$bin" version >"$out/version.txt" 2>&1

run cluster-text "${two_hosts[@]}" "$bin" cluster -b 1M -e 256M -f 16 --max-time 0.2
run cluster-json "${two_hosts[@]}" "$bin" cluster -b 1M -e 256M -f 16 --max-time 0.2 --format json -q \
  --output "$out/cluster-run.json"
run topo "${two_hosts[@]}" "$bin" topo --no-nccl
run doctor-cross "${two_hosts[@]}" "$bin" doctor --cross-host-only -o "$out/doctor-cross"
run doctor-quick "${mpi[@]}" "${net[@]}" -x LINKSCOPE_HOST_PER_RANK=1 \
  -np 1 env CUDA_VISIBLE_DEVICES=0 "$bin" doctor --quick -o "$out/doctor-quick" : \
  -np 1 env CUDA_VISIBLE_DEVICES=1 "$bin" doctor --quick -o "$out/doctor-quick"
run mismatch "${mpi[@]}" "${net[@]}" -x LINKSCOPE_HOST_PER_RANK=1 \
  -np 1 "$bin" cluster -b 1M -e 4M : -np 1 "$bin" cluster -b 1M -e 8M

# A rank that hangs before it answers: its NVML library is a FIFO nobody writes (dlopen blocks).
rm -f "$out/hung-nvml.so" && mkfifo "$out/hung-nvml.so"
run stall "${mpi[@]}" "${net[@]}" -x LINKSCOPE_HOST_PER_RANK=1 \
  -np 1 "$bin" cluster --timeout 5 : -np 1 env LINKSCOPE_NVML_LIBRARY="$out/hung-nvml.so" "$bin" cluster --timeout 5
rm -f "$out/hung-nvml.so"

# A rank that stops in the middle of the pair: SIGSTOP it 4 s after the job started (NCCL init and the first
# sizes are done by then on this machine; the job must end by itself within about 2 x --timeout).
rm -f "$out/rank1.pid"
"${mpi[@]}" "${net[@]}" -x LINKSCOPE_HOST_PER_RANK=1 \
  -np 1 "$bin" cluster -b 256M -e 256M --max-time 5 --timeout 8 : \
  -np 1 sh -c "echo \$\$ >'$out/rank1.pid'; exec '$bin' cluster -b 256M -e 256M --max-time 5 --timeout 8" \
  >"$out/sigstop.out" 2>"$out/sigstop.err" &
job=$!
start=$(date +%s.%N)
sleep 4
[ -s "$out/rank1.pid" ] && kill -STOP "$(cat "$out/rank1.pid")" 2>/dev/null
wait "$job"
echo $? >"$out/sigstop.rc"
end=$(date +%s.%N)
awk "BEGIN { printf \"%.1f\n\", $end - $start }" >"$out/sigstop.seconds"
[ -s "$out/rank1.pid" ] && kill -CONT "$(cat "$out/rank1.pid")" 2>/dev/null && kill -KILL "$(cat "$out/rank1.pid")" 2>/dev/null

python3 - "$out" <<'PY'
import json, os, sys

out = sys.argv[1]
lines = []

def read(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""

def rc(name):
    text = read(name + ".rc").strip()
    return int(text) if text else None

def check(ok, what):
    lines.append(("PASS " if ok else "FAIL ") + what)

for name in ["cluster-text", "cluster-json", "topo", "doctor-cross", "doctor-quick", "mismatch", "stall", "sigstop"]:
    lines.append(f"     {name}: exit {rc(name)} in {read(name + '.seconds').strip()} s")

check(rc("cluster-text") == 0, "cluster (text) exits 0")
check("Cross-host NCCL sendrecv" in read("cluster-text.out"), "cluster (text) prints the host matrix")
try:
    run = json.loads(read("cluster-json.out"))
    cross = run["measurements"]["cross_host"]
    pair = cross["pairs"][0]
    check(rc("cluster-json") == 0 and pair["status"] == "ok", f"the pair measured ok ({pair['status']}: {pair.get('reason')})")
    check((pair["bandwidth_gbps"] or 0) > 0, f"sendrecv {pair['bandwidth_gbps']} GB/s per direction at {pair['bytes']} B")
    check(str(pair["a"]["transport"]).startswith("NET/"), f"NCCL used its network transport: {pair['a']['transport']}")
    check(pair["a"]["nic"] is not None, f"the NIC is named: {pair['a']['nic']} / {pair['b']['nic']}")
    ar = cross["all_reduce"]
    check(ar["status"] == "ok" and (ar.get("busbw_gbps") or 0) > 0,
          f"all_reduce over 2 ranks: {ar['status']}, busbw {ar.get('busbw_gbps')} GB/s, {ar.get('transports')}")
    check(len(run["system"]["hosts"]) == 2, "system.hosts has both hosts: " + ", ".join(h["name"] for h in run["system"]["hosts"]))
    check(os.path.exists(os.path.join(out, "cluster-run.json")), "--output wrote cluster-run.json")
    for point in pair["series"]["points"]:
        lines.append(f"     sendrecv {point['bytes']} B: busbw {point['busbw_gbps']} GB/s, wrong {point['wrong']}, {point['status']}")
except Exception as error:  # a missing or malformed Run is a failure, with the reason
    check(False, f"cluster --format json gives a Run with one pair: {error}")

topo = read("topo.out")
check(rc("topo") == 0 and "2 host(s), 2 rank(s) under MPI" in topo and "1 group(s) of identical hosts" in topo,
      "topo under mpirun: 2 hosts in 1 group")
for name in ["doctor-cross", "doctor-quick"]:
    html = read(f"{name}/report.html")
    check(rc(name) in (0, 6) and 'id="hosts"' in html and 'id="cross-host"' in html,
          f"{name}: exit {rc(name)}, report.html with Hosts and Cross-host sections")
    try:
        cross = json.loads(read(f"{name}/run.json"))["measurements"]["cross_host"]
        check(cross["pairs"] and cross["pairs"][0]["status"] == "ok",
              f"{name}: cross-host pair {cross['pairs'][0]['status'] if cross['pairs'] else 'missing'}, "
              f"{cross['pairs'][0]['bandwidth_gbps'] if cross['pairs'] else None} GB/s")
    except Exception as error:
        check(False, f"{name}: run.json with measurements.cross_host: {error}")
check(any(f.startswith("host-") for f in os.listdir(os.path.join(out, "doctor-quick"))) if os.path.isdir(os.path.join(out, "doctor-quick")) else False,
      "doctor-quick keeps every host's own run (host-<name>.json)")
check(rc("mismatch") == 2 and "different arguments" in read("mismatch.err"), "different arguments refused (exit 2) naming the hosts")
check(rc("stall") == 4 and "did not answer within 5 s" in read("stall.err"), "a hung rank is named by rank 0 (exit 4)")
sig = read("sigstop.err")
check(rc("sigstop") not in (0, None) and ("did not answer" in sig or "did not finish" in sig or "timeout" in sig),
      f"a stopped rank ends the job by itself (exit {rc('sigstop')} in {read('sigstop.seconds').strip()} s)")

with open(os.path.join(out, "summary.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
