#!/usr/bin/env bash
# The rows of bench/NOTES.md's side-by-side table that were below their anchor (issue 26), measured in ONE device
# call on one GPU, every tool alternating with the others in each round (the order rotates per round):
#   alltoall_perf -D 2 (algbw at 128 MiB), all_reduce_perf -D 2 (time at 8 B in the default sweep, and in a
#   2000-iteration run: as is, on two pinned CPUs, and with -C 1, the host's enqueue time), sendrecv_perf at 64 MiB,
#   against nccl-tests; the SM bidirectional host copies against nvbandwidth (`p2p --testcase`);
# then the whole `doctor --quick` and default `doctor` (wall time, peak host RSS, GPU memory sampled every 100 ms),
# the telemetry sampler's overhead on a 1 GiB all_reduce (telemetry_overhead.sh), ncu profiles of both tools' kernels
# of those rows, and linkscope's device tests. Several linkscope builds (kernel variants) can run side by side.
#
#   bench/device/perf_gaps.sh NCCL_TESTS_BIN_DIR NVBANDWIDTH_BIN
#     NCCL_TESTS_BIN_DIR  nccl-tests' *_perf, built by the caller from public source against NCCL_LIB's headers
#     NVBANDWIDTH_BIN     nvbandwidth, built by the caller from public source (absent: those rows are skipped)
#
# Environment:
#   OUT            where perf_gaps.tar goes (default ./out)
#   VARIANTS       "NAME=DIR ..." linkscope builds (DIR holds linkscope and, optionally, linkscope_device_tests);
#                  default "base=build/ci" (with build/ci/tests/linkscope_device_tests); the first is the one
#                  measured for the doctor, the telemetry and the host copies
#   NCCL_LIB       the libnccl.so.2 both tools load for the NCCL rows (-D needs 2.28.7 .. 2.28.x); default: the
#                  system's
#   WATCH          telemetry_watch (default build/ci/bench/telemetry_watch)
#   CYCLES         -N of the 8 B and sendrecv rows (default 1); SENDRECV_ITERS its -n (default 50); PIN_CPU the
#                  CPUs of the *_pinned row (default 2-3); STEPS the steps after the rows (default "doctor telemetry
#                  ncu tests"; the -D device tests of every variant always run); ROWS the rows (default all:
#                  a2a_D2 ar_D2 ar_D2_8B ar_D2_8B_pinned ar_D2_8B_cpu sendrecv_64M host_sm_bidir; ncu profiles the
#                  kernels of the rows chosen)
#   ROUNDS         default 3; TIME_BUDGET_S default 480: the hard end (each step's timeout is cut to fit, and steps that
#                  cannot fit are skipped and named in summary.txt)
set -u

nt_dir=${1:?usage: perf_gaps.sh NCCL_TESTS_BIN_DIR NVBANDWIDTH_BIN}
nvbw=${2:-}
here=$(cd "$(dirname "$0")/../.." && pwd)
out_root=${OUT:-$PWD/out}
rounds=${ROUNDS:-3}
budget=${TIME_BUDGET_S:-480}
nccl_lib=${NCCL_LIB:-}
watch=${WATCH:-$here/build/ci/bench/telemetry_watch}
read -r -a variants <<<"${VARIANTS:-base=$here/build/ci}"
cycles=${CYCLES:-1}                   # -N of the 8 B and sendrecv rows: that many lines per process
sendrecv_iters=${SENDRECV_ITERS:-50}  # -n of the sendrecv row
pin_cpu=${PIN_CPU:-2-3}               # the CPUs the *_pinned row runs on (taskset), both tools alike
steps=${STEPS:-doctor telemetry ncu tests}
rows=${ROWS:-a2a_D2 ar_D2 ar_D2_8B ar_D2_8B_pinned ar_D2_8B_cpu sendrecv_64M host_sm_bidir}
wanted() { [[ " $rows " == *" $1 "* ]]; }
# shellcheck source=bench/device/side_by_side_lib.sh
source "$here/bench/device/side_by_side_lib.sh"
start_results perf_gaps runs doctor ncu tests bin
export CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-LAZY}
# TIME_BUDGET_S is a hard end: every command's timeout is cut to what is left of it (less 15 s to pack the tar), so the
# results come back even when the device call's own limit is near.
left() { echo $((budget - (SECONDS - started))); }
cap() {
  local l=$(($(left) - 15))
  ((l < $1)) && echo "$l" || echo "$1"
}
enough() { (($(left) - 15 >= $1)); }

# Each variant's personalities: links named <op>_perf to its linkscope, in a folder of their own.
names=()
for v in "${variants[@]}"; do
  vname=${v%%=*}  # not "name": side_by_side_lib.sh's results folder
  dir=${v#*=}
  [[ -x $dir/linkscope ]] || { log "no linkscope in $dir (variant $vname)"; exit 2; }
  mkdir -p "$res/bin/$vname"
  for op in all_reduce alltoall sendrecv; do ln -sf "$(cd "$dir" && pwd)/linkscope" "$res/bin/$vname/${op}_perf"; done
  names+=("$vname")
done
first_dir=${variants[0]#*=}
machine_header "$first_dir/linkscope"
system_nccl=$(ldconfig -p | awk '/libnccl.so.2 /{print $NF; exit}')
log "system NCCL: $system_nccl $(nccl_version_of "$system_nccl"); NCCL rows: ${nccl_lib:-system} $(nccl_version_of "${nccl_lib:-$system_nccl}")"
log "nvbandwidth: ${nvbw:-none}; variants: ${variants[*]}"
for v in "${variants[@]}"; do log "$v: $("${v#*=}/linkscope" version 2>&1 | head -1)"; done
nvidia-smi -q >"$res/nvidia-smi-q.txt" 2>&1

# tool_env TOOL: the NCCL library each tool loads (nccl-tests through the loader, linkscope through its variable).
nccl_env=()
tool_env() {
  nccl_env=()
  [[ -z $nccl_lib ]] && return
  if [[ $1 == nccl-tests ]]; then
    nccl_env=(LD_LIBRARY_PATH="$(dirname "$nccl_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  else
    nccl_env=(LINKSCOPE_NCCL_LIBRARY="$nccl_lib")
  fi
}

# one TOOL ROW OP ARGS...: one run in runs/ROW.TOOL.rROUND (the round is $round).
one() {
  local tool=$1 row=$2 op=$3
  shift 3
  local bin=$nt_dir/${op}_perf
  [[ $tool != nccl-tests ]] && bin=$res/bin/$tool/${op}_perf
  tool_env "$tool"
  local base=$res/runs/$row.$tool.r$round
  echo "${nccl_env[*]} $bin $*" >"$base.cmd"
  if [[ ! -x $bin ]]; then
    echo "missing $bin" >"$base.err"; : >"$base.txt"; echo 127 >"$base.rc"; return
  fi
  enough 10 || { echo "budget" >"$base.err"; : >"$base.txt"; echo 125 >"$base.rc"; return; }
  local prefix=()
  [[ -n ${pin:-} ]] && prefix=(taskset -c "$pin_cpu")
  env "${nccl_env[@]}" timeout "$(cap 120)" "${prefix[@]}" "$bin" "$@" >"$base.txt" 2>"$base.err"
  echo $? >"$base.rc"
}

# --- 1. the rows, every tool in every round, the order rotated per round.
bdf=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i 0 | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
node=$(cat "/sys/bus/pci/devices/$bdf/numa_node" 2>/dev/null || echo -1)
cpu_node=()
[[ $node -ge 0 ]] 2>/dev/null && cpu_node=(--cpu-node "$node")
host_cases=(host_to_device_bidirectional_memcpy_sm device_to_host_bidirectional_memcpy_sm)
tools=(nccl-tests "${names[@]}")
for ((round = 1; round <= rounds; round++)); do
  enough 100 || { log "budget: round $round and later skipped"; break; }
  order=()
  for ((k = 0; k < ${#tools[@]}; k++)); do order+=("${tools[(k + round - 1) % ${#tools[@]}]}"); done
  log "[$((SECONDS - started)) s] round $round: ${order[*]}"
  for tool in "${order[@]}"; do
    wanted a2a_D2 && one "$tool" a2a_D2 alltoall -b 8 -e 128M -f 8 -g 1 -R 2 -D 2
    wanted ar_D2 && one "$tool" ar_D2 all_reduce -b 8 -e 128M -f 8 -g 1 -R 2 -D 2
    wanted ar_D2_8B && one "$tool" ar_D2_8B all_reduce -b 8 -e 8 -g 1 -R 2 -D 2 -n 2000 -w 100 -N "$cycles"
    wanted ar_D2_8B_pinned &&
      pin=1 one "$tool" ar_D2_8B_pinned all_reduce -b 8 -e 8 -g 1 -R 2 -D 2 -n 2000 -w 100 -N "$cycles"
    wanted ar_D2_8B_cpu && one "$tool" ar_D2_8B_cpu all_reduce -b 8 -e 8 -g 1 -R 2 -D 2 -n 2000 -w 100 -C 1 -N "$cycles"
    wanted sendrecv_64M && one "$tool" sendrecv_64M sendrecv -b 64M -e 64M -g 1 -n "$sendrecv_iters" -w 20 -N "$cycles"
  done
  if [[ -n $nvbw && -x $nvbw ]] && wanted host_sm_bidir; then
    pair=(nvbandwidth linkscope)
    (( round % 2 == 0 )) && pair=(linkscope nvbandwidth)
    for tool in "${pair[@]}"; do
      base=$res/runs/host_sm_bidir.$tool.r$round
      if [[ $tool == nvbandwidth ]]; then
        timeout "$(cap 120)" "$nvbw" -b 512 -t "${host_cases[@]}" >"$base.txt" 2>"$base.err"
      else
        args=()
        for t in "${host_cases[@]}"; do args+=(--testcase "$t"); done
        timeout "$(cap 120)" "$first_dir/linkscope" p2p "${args[@]}" --buffer-size 512M "${cpu_node[@]}" >"$base.txt" 2>"$base.err"
      fi
      echo $? >"$base.rc"
    done
  fi
done

# --- 2. the device tests of the -D kernels, per variant, against NCCL_LIB.
for v in "${variants[@]}"; do
  vname=${v%%=*}
  dir=${v#*=}
  tests=$dir/linkscope_device_tests
  [[ -x $tests ]] || tests=$dir/tests/linkscope_device_tests
  [[ -x $tests ]] || continue
  enough 40 || { log "budget: device tests of $vname skipped"; continue; }
  env ${nccl_lib:+LINKSCOPE_NCCL_LIBRARY="$nccl_lib"} timeout "$(cap 180)" "$tests" --gtest_filter='*Devapi*' \
    >"$res/tests/devapi.$vname.txt" 2>&1
  log "device tests *Devapi* of $vname: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$res/tests/devapi.$vname.txt" | tr '\n' ' ')"
done

# --- 3. doctor --quick and the default profile: wall time, peak host RSS of the process tree, GPU memory.
cat >"$work/peak.py" <<'PY'
# peak.py NAME CMD...: CMD's wall time, exit code and peak RSS (wait4: the largest of the process and its waited-for
# descendants), and the GPU memory in use sampled by nvidia-smi every 100 ms (the whole GPU, and the compute apps).
import json, os, subprocess, sys, time
name, cmd = sys.argv[1], sys.argv[2:]
def gpu_used():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else None
idle = gpu_used()
smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,memory.used", "--format=csv,noheader,nounits", "-lms", "100"],
                       stdout=open(name + ".gpumem.csv", "w"))
apps = subprocess.Popen(["nvidia-smi", "--query-compute-apps=timestamp,pid,used_memory", "--format=csv,noheader,nounits",
                         "-lms", "100"], stdout=open(name + ".apps.csv", "w"))
time.sleep(0.3)
t0 = time.time()
pid = os.posix_spawnp(cmd[0], cmd, dict(os.environ), file_actions=[
    (os.POSIX_SPAWN_OPEN, 1, name + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    (os.POSIX_SPAWN_OPEN, 2, name + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
_, status, usage = os.wait4(pid, 0)
wall = time.time() - t0
time.sleep(0.3)
smi.terminate(); apps.terminate(); smi.wait(); apps.wait()
peak = max((int(l.split(",")[1]) for l in open(name + ".gpumem.csv") if l.count(",") == 1 and l.split(",")[1].strip().isdigit()), default=None)
per_sample = {}
for l in open(name + ".apps.csv"):
    f = [x.strip() for x in l.split(",")]
    if len(f) == 3 and f[2].isdigit():
        per_sample[f[0]] = per_sample.get(f[0], 0) + int(f[2])
result = {"name": os.path.basename(name), "exit": os.waitstatus_to_exitcode(status), "wall_s": round(wall, 2),
          "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "user_s": usage.ru_utime, "sys_s": usage.ru_stime,
          "gpu_mem_idle_mib": idle, "gpu_mem_peak_mib": peak,
          "gpu_mem_peak_over_idle_mib": peak - idle if peak is not None and idle is not None else None,
          "apps_peak_mib": max(per_sample.values(), default=None)}
print(json.dumps(result))
PY
for profile in quick default; do
  [[ " $steps " == *" doctor "* ]] || break
  enough 90 || { log "budget: doctor $profile skipped"; continue; }
  flags=()
  [[ $profile == quick ]] && flags=(--quick)
  for r in 1 2; do
    line=$(cd "$res/doctor" && timeout "$(cap 120)" python3 "$work/peak.py" "$profile.$r" "$first_dir/linkscope" doctor "${flags[@]}" -o "$profile.$r.report")
    log "doctor $profile round $r: $line"
  done
done

# --- 4. the telemetry sampler on a 1 GiB all_reduce (one GPU: algbw, busbw is 0 with one rank).
if [[ " $steps " != *" telemetry "* ]]; then
  :
elif ! enough 90; then
  log "budget: telemetry overhead skipped"
elif [[ -x $watch ]]; then
  LINKSCOPE=$first_dir/linkscope WATCH=$watch ROUNDS=3 DOCTOR_ROUNDS=1 COLL_ARGS="all_reduce -b 1G -e 1G" \
    timeout "$(cap 150)" bash "$here/bench/device/telemetry_overhead.sh" "$res/telemetry" >"$res/telemetry.log" 2>&1
  log "telemetry overhead rc=$?:"
  cat "$res/telemetry/summary.txt" >>"$summary" 2>/dev/null
fi

# --- 5. ncu: the -D kernels of both tools (clocks left as they are: --clock-control none).
# profile NAME TOOL KERNELS CMD...: one launch (the 4th, or skip+1) of the kernels KERNELS matches, CMD run with TOOL's NCCL.
profile() {
  local name=$1 tool=$2 kernels=$3
  shift 3
  tool_env "$tool"
  enough 40 || { log "budget: ncu $name skipped"; return; }
  env "${nccl_env[@]}" timeout "$(cap 90)" ncu --clock-control none --target-processes all -k "regex:$kernels" --launch-skip "${skip:-3}" \
    --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,lts__t_bytes.sum \
    -o "$res/ncu/$name" -f "$@" >"$res/ncu/$name.log" 2>&1
  echo "rc=$?" >>"$res/ncu/$name.log"
  ncu -i "$res/ncu/$name.ncu-rep" --page details >"$res/ncu/$name.txt" 2>&1
  rm -f "$res/ncu/$name.ncu-rep"  # the text holds every number; the reports would not fit what a call brings back
  log "ncu $name: $(tail -1 "$res/ncu/$name.log"), duration $(grep -m1 -E '^ +Duration ' "$res/ncu/$name.txt" | awk '{print $2, $3}')"
}
if [[ " $steps " != *" ncu "* ]]; then
  :
elif command -v ncu >/dev/null; then
  for tool in nccl-tests "${names[@]}"; do
    dir=$nt_dir
    [[ $tool != nccl-tests ]] && dir=$res/bin/$tool
    wanted a2a_D2 && profile "a2a_D2_128M.$tool" "$tool" 'NvlAlltoAllKernelOptimized|alltoall_lsa' \
      "$dir/alltoall_perf" -b 128M -e 128M -g 1 -R 2 -D 2 -n 6 -w 1 -c 0
    wanted ar_D2 && profile "ar_D2_8B.$tool" "$tool" 'allReduceLsaVectorizedKernel|allreduce_lsa' \
      "$dir/all_reduce_perf" -b 8 -e 8 -g 1 -R 2 -D 2 -n 6 -w 1 -c 0
  done
  if wanted host_sm_bidir; then
    [[ -n $nvbw ]] && skip=1 profile host_sm_bidir.nvbandwidth nvbandwidth 'splitWarpCopyKernel' \
      "$nvbw" -b 512 -t host_to_device_bidirectional_memcpy_sm
    skip=1 profile host_sm_bidir.linkscope linkscope 'split_warp_kernel' \
      "$first_dir/linkscope" p2p --testcase host_to_device_bidirectional_memcpy_sm --buffer-size 512M "${cpu_node[@]}"
  fi
else
  log "no ncu on this machine"
fi

# --- 6. the whole device test suite of the first variant that has one (system NCCL), if time is left.
for v in "${variants[@]}"; do
  [[ " $steps " == *" tests "* ]] || break
  dir=${v#*=}
  tests=$dir/linkscope_device_tests
  [[ -x $tests ]] || tests=$dir/tests/linkscope_device_tests
  [[ -x $tests ]] || continue
  enough 120 || { log "budget: whole device test suite skipped"; break; }
  LINKSCOPE=$dir/linkscope timeout "$(cap 240)" "$tests" >"$res/tests/all.${v%%=*}.txt" 2>&1
  log "device tests (all, system NCCL) of ${v%%=*}: rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$res/tests/all.${v%%=*}.txt" | tr '\n' ' ')"
  break
done

# --- 7. the table: per row and tool, the value of every round, the median, the spread and the ratio to the anchor.
python3 - "$res" "${tools[*]}" >>"$summary" <<'PY'
import os, re, statistics, sys
res, tools = sys.argv[1], sys.argv[2].split()
def rows_of(path):
    out = {}
    try:
        for line in open(path, errors="replace"):
            f = line.split()
            if line.startswith("#") or len(f) < 8 or not f[0].isdigit():
                continue
            out.setdefault(int(f[0]), []).append((float(f[5]), float(f[6])))  # out of place: time (us), algbw (GB/s)
    except OSError:
        pass
    return out
def value(path, size, col):
    """The round's value: the median over the -N cycles of the process (one line without -N)."""
    lines = rows_of(path).get(size)
    return statistics.median(l[col] for l in lines) if lines else None
def sums(path):
    found = {}
    try:
        for line in open(path, errors="replace"):
            m = re.match(r"^SUM (\S+) ([0-9.eE+-]+)$", line.strip())
            if m:
                found[m.group(1)] = float(m.group(2))
    except OSError:
        pass
    return found
# row: (file row, size, column 0 time / 1 algbw, higher is better)
rows = [("alltoall -D 2, algbw at 128 MiB (GB/s)", "a2a_D2", 134217728, 1, True),
        ("all_reduce -D 2, algbw at 128 MiB (GB/s)", "ar_D2", 134217728, 1, True),
        ("all_reduce -D 2, time at 8 B, sweep -n 20 (us)", "ar_D2", 8, 0, False),
        ("all_reduce -D 2, time at 8 B, -n 2000, median of the -N cycles (us)", "ar_D2_8B", 8, 0, False),
        ("the same, both tools on CPUs 2-3 (taskset) (us)", "ar_D2_8B_pinned", 8, 0, False),
        ("all_reduce -D 2, enqueue (-C 1) at 8 B, -n 2000 (us)", "ar_D2_8B_cpu", 8, 0, False),
        ("sendrecv, algbw at 64 MiB, median of the -N cycles (GB/s)", "sendrecv_64M", 67108864, 1, True)]
rounds = sorted({int(m.group(1)) for f in os.listdir(f"{res}/runs") if (m := re.search(r"\.r(\d+)\.txt$", f))})
def line(label, values, anchor, higher):
    vals = [v for v in values if v is not None]
    if not vals:
        return f"  {label:<14} (no result)"
    med = statistics.median(vals)
    spread = (max(vals) - min(vals)) / med * 100 if med else 0
    ratio = ""
    if anchor and label not in ("nccl-tests", "nvbandwidth"):
        ratio = f"  ratio {(med / anchor) if higher else (anchor / med):.4f}"
    return f"  {label:<14} {' '.join(f'{v:9.2f}' if v is not None else '        -' for v in values)}  median {med:9.2f}  spread {spread:5.2f}%{ratio}"
print("\n## rows (one value per round; ratio = linkscope's median over the anchor's, >= 1 is at or above it)")
for title, row, size, col, higher in rows:
    print(title)
    per_tool = {t: [value(f"{res}/runs/{row}.{t}.r{r}.txt", size, col) for r in rounds] for t in tools}
    anchor_vals = [v for v in per_tool["nccl-tests"] if v is not None]
    anchor = statistics.median(anchor_vals) if anchor_vals else None
    for t in tools:
        print(line(t, per_tool[t], anchor, higher))
for key in ("host_to_device_bidirectional_memcpy_sm", "device_to_host_bidirectional_memcpy_sm"):
    print(f"{key}, SUM (GB/s)")
    ref = [sums(f"{res}/runs/host_sm_bidir.nvbandwidth.r{r}.txt").get(key) for r in rounds]
    mine = [sums(f"{res}/runs/host_sm_bidir.linkscope.r{r}.txt").get(key) for r in rounds]
    ok = [v for v in ref if v is not None]
    print(line("nvbandwidth", ref, None, True))
    print(line("linkscope", mine, statistics.median(ok) if ok else None, True))
print("\n## exit codes that were not 0")
for f in sorted(os.listdir(f"{res}/runs")):
    if f.endswith(".rc") and open(f"{res}/runs/{f}").read().strip() != "0":
        print(f"  {f}: {open(f'{res}/runs/{f}').read().strip()}")
PY
log "wall $((SECONDS - started)) s"
cat "$summary" >&2
