#!/usr/bin/env bash
# The doctor in the states users meet, on whatever GPU machine this runs (issue 12's acceptance; one GPU is
# enough): healthy; CUDA_VISIBLE_DEVICES empty or naming a GPU that does not exist; NVML unusable; NCCL missing; a
# foreign bf16 matmul job started a few seconds into the run; Ctrl-C during the run. Each doctor writes its report
# directory; the summary lists, per state, the exit code, the wall time, the findings (id, severity, title) and
# the hypotheses' verdicts, and checks that the run.json of the interrupted one loads (`linkscope report`).
#
#   bench/device/doctor_states.sh OUT_DIR [STATE...]   # states: healthy no-visible bad-visible no-nvml
#                                                      #         no-nccl foreign-job interrupted (default: all)
# Environment: LINKSCOPE (default build/ci/linkscope), PROFILE (default --quick), FOREIGN_AFTER_S (default 4),
# FOREIGN_IMPORT_S (default 8: time for the job to import torch), FOREIGN_PROFILE, INTERRUPT_AFTER_S (default 7),
# INTERRUPT_PROFILE (default PROFILE; the doctor's flags for those two states).
set -u
out=${1:?usage: doctor_states.sh OUT_DIR [STATE...]}
shift
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
profile=${PROFILE:---quick}
[[ -x $linkscope ]] || { echo "doctor_states.sh: no linkscope at $linkscope (set LINKSCOPE)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
states=("$@")
[[ ${#states[@]} -eq 0 ]] && states=(healthy no-visible bad-visible no-nvml no-nccl foreign-job interrupted)

# A foreign GPU job: bf16 matrix products for $1 seconds (PyTorch, as on the GPU machine's image). It imports
# torch first and touches the GPU only once the file $2 exists, so its work starts when the script says (importing
# torch takes seconds, longer than a quick one-GPU doctor).
foreign_job() {
  python3 - "$1" "$2" <<'PY'
import os, sys, time, torch
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
end = time.time() + float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
while time.time() < end:
    for _ in range(20):
        a = (a @ b) / 90.0
    torch.cuda.synchronize()
PY
}

# doctor STATE [env assignments...]: one doctor run in $out/STATE with its exit code and wall time.
doctor() {
  local state=$1
  shift
  local start rc
  start=$(date +%s.%N)
  env "$@" "$linkscope" doctor $profile -o "$out/$state" >"$out/$state.out" 2>"$out/$state.err"
  rc=$?
  echo "$rc $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')" >"$out/$state.rc"
  echo "doctor_states.sh: $state exit $rc" >&2
}

for state in "${states[@]}"; do
  case $state in
    healthy) doctor healthy ;;
    no-visible) doctor no-visible CUDA_VISIBLE_DEVICES= ;;
    bad-visible) doctor bad-visible CUDA_VISIBLE_DEVICES=7 ;;
    no-nvml) doctor no-nvml LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ;;
    no-nccl) doctor no-nccl LINKSCOPE_NCCL_LIBRARY=/nonexistent/libnccl.so.2 ;;
    foreign-job)
      go=$out/foreign-job.go
      rm -f "$go"
      foreign_job 60 "$go" >"$out/foreign-job.python.log" 2>&1 &
      job=$!
      sleep "${FOREIGN_IMPORT_S:-8}"  # torch imported, no CUDA context yet
      profile=${FOREIGN_PROFILE:-$profile} doctor foreign-job &
      pid=$!
      sleep "${FOREIGN_AFTER_S:-4}"
      touch "$go"
      echo "foreign job pid $job started its GPU work $(date -u +%T)" >"$out/foreign-job.pid"
      wait "$pid"
      pkill -P "$job" 2>/dev/null  # the python3 under the function's subshell, so it does not outlive this state
      kill "$job" 2>/dev/null
      wait "$job" 2>/dev/null
      ;;
    interrupted)
      start=$(date +%s.%N)
      timeout -s INT "${INTERRUPT_AFTER_S:-7}" "$linkscope" doctor ${INTERRUPT_PROFILE:-$profile} -o "$out/interrupted" \
        >"$out/interrupted.out" 2>"$out/interrupted.err"
      echo "$? $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')" >"$out/interrupted.rc"
      "$linkscope" report "$out/interrupted/run.json" --format text >"$out/interrupted.report.txt" 2>&1
      echo "report of the interrupted run: exit $?" >>"$out/interrupted.rc"
      ;;
    *) echo "doctor_states.sh: unknown state $state" >&2 ;;
  esac
done

python3 - "$out" "${states[@]}" <<'PY' | tee "$out/summary.txt"
import json, sys
out, states = sys.argv[1], sys.argv[2:]
for state in states:
    try:
        rc = open(f"{out}/{state}.rc").read().split()
    except OSError:
        rc = ["?", "?"]
    print(f"== {state}: exit {rc[0]}, {rc[1]} s")
    try:
        run = json.load(open(f"{out}/{state}/run.json"))
    except (OSError, ValueError) as e:
        print(f"   no loadable run.json: {e}")
        continue
    stopped = run.get("config", {}).get("stopped")
    if stopped:
        print(f"   stopped: {stopped}")
    for f in run.get("findings", []):
        print(f"   finding {f['severity']:7s} {f['id']}: {f['title']}")
        for line in f.get("evidence", [])[:4]:
            print(f"       {line}")
    verdicts = {}
    for h in run.get("hypotheses", []):
        verdicts.setdefault(h.get("verdict"), []).append(h["id"])
    for v, ids in verdicts.items():
        print(f"   hypotheses {v}: {', '.join(ids)}")
    for e in run.get("errors", [])[:6]:
        print(f"   error {e.get('where')}: {e.get('message')}")
    t = run.get("measurements", {}).get("telemetry")
    if t:
        foreign = [p for p in t.get("processes", []) if not p.get("owner")]
        print(f"   telemetry: {t.get('passes')} passes over {t.get('duration_s'):.1f} s, "
              f"{len(t.get('processes', []))} process(es), {len(foreign)} not the doctor's, cpu {t['cost']['cpu_seconds']:.3f} s")
PY
