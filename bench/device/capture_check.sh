#!/usr/bin/env bash
# Captures on the GPU machine (issue 24): in each state a user meets, `linkscope capture` there, the live
# `doctor --quick` there, and `doctor --capture` of that capture (there, and later on the build host from the
# returned files): the same fact-based findings are expected. States: healthy (as root, and as an unprivileged
# user: extended PCI config space unreadable), a GPU hidden (CUDA_VISIBLE_DEVICES=), NCCL missing
# (LINKSCOPE_NCCL_LIBRARY=/nonexistent), an idle process holding most of the GPU's memory.
#
#   bench/device/capture_check.sh OUT_DIR
# Environment: LINKSCOPE (default build/ci/linkscope). Writes per state: STATE.tgz, STATE-live.json (the live
# doctor's run), STATE-capture.json (doctor --capture's run), *.err and *.rc; summary.txt lists the findings.
set -u
out=${1:?usage: capture_check.sh OUT_DIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
[[ -x $linkscope ]] || { echo "capture_check.sh: no linkscope at $linkscope (set LINKSCOPE)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0

findings() {  # id/severity of each finding of a run document
  python3 -c 'import json,sys
try:
    d=json.load(open(sys.argv[1]))
    print(" ".join("%s/%s" % (f["id"], f["severity"]) for f in d.get("findings", [])) or "none")
except Exception as e:
    print("unreadable:", e)' "$1"
}

state() {  # state NAME ENV... : capture, live doctor, doctor --capture, under the environment given
  local name=$1
  shift
  local start=$SECONDS
  env "$@" "$linkscope" capture -o "$out/$name.tgz" 2>"$out/$name-capture.err"
  echo $? >"$out/$name-capture.rc"
  local captured=$((SECONDS - start))
  env "$@" "$linkscope" doctor --quick -o "$out/$name-live" --format json >"$out/$name-live.json" 2>"$out/$name-live.err"
  echo $? >"$out/$name-live.rc"
  "$linkscope" doctor --capture "$out/$name.tgz" -o "$out/$name-capture" --format json \
    >"$out/$name-capture.json" 2>"$out/$name-capture-doctor.err"
  echo $? >"$out/$name-capture-doctor.rc"
  {
    echo "== $name (env: $*) capture rc $(cat "$out/$name-capture.rc") in ${captured} s, $(stat -c %s "$out/$name.tgz" 2>/dev/null) bytes"
    tail -1 "$out/$name-capture.err"
    echo "live doctor rc $(cat "$out/$name-live.rc"): $(findings "$out/$name-live.json")"
    echo "doctor --capture rc $(cat "$out/$name-capture-doctor.rc"): $(findings "$out/$name-capture.json")"
  } >>"$out/summary.txt"
}

{
  echo "date: $(date -u +%FT%TZ)  uid: $(id -u)  kernel: $(uname -r)"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv,noheader
  echo "cmdline: $(cat /proc/cmdline)"
  echo "hypervisor flag: $(grep -c hypervisor /proc/cpuinfo) cpus; dmi: $(cat /sys/class/dmi/id/sys_vendor 2>/dev/null) $(cat /sys/class/dmi/id/product_name 2>/dev/null)"
  echo "iommu: $(ls /sys/class/iommu 2>/dev/null | tr '\n' ' ') groups: $(ls /sys/kernel/iommu_groups 2>/dev/null | wc -l)"
  echo "modules: $(grep -E '^(nvidia|nvidia_peermem|nv_peer_mem|mlx5_core|ib_core) ' /proc/modules | cut -d' ' -f1 | tr '\n' ' ')"
} >"$out/summary.txt"

state healthy
state gpu-hidden CUDA_VISIBLE_DEVICES=
state nccl-missing LINKSCOPE_NCCL_LIBRARY=/nonexistent

# Unprivileged: PCI config space past 64 bytes is unreadable; the capture says so.
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
  chmod 755 "$out" "$(dirname "$linkscope")" 2>/dev/null
  runuser -u nobody -- "$linkscope" capture -o /tmp/unprivileged.tgz --no-nccl 2>"$out/unprivileged-capture.err"
  echo "== unprivileged capture rc $?: $(tail -1 "$out/unprivileged-capture.err")" >>"$out/summary.txt"
  cp /tmp/unprivileged.tgz "$out/" 2>/dev/null
fi

# An idle process holding most of the GPU's memory while the doctor runs (seen live as noisy-measurement before).
python3 - "$out/holder.ready" <<'PY' &
import sys, time, torch
free, total = torch.cuda.mem_get_info()
held = torch.empty(int(free * 0.85), dtype=torch.uint8, device="cuda")
open(sys.argv[1], "w").write("%d of %d\n" % (held.numel(), total))
time.sleep(150)
PY
holder=$!
for _ in $(seq 1 60); do [[ -f $out/holder.ready ]] && break; sleep 0.5; done
echo "holder: $(cat "$out/holder.ready" 2>/dev/null)" >>"$out/summary.txt"
state memory-held
kill "$holder" 2>/dev/null
wait 2>/dev/null
cat "$out/summary.txt"
