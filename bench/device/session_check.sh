#!/usr/bin/env bash
# One device call that checks this build on whatever GPU machine it runs on: the device tests, the doctor in the
# states users meet, the portable binary (single node and under mpirun) and the telemetry sampler's overhead;
# everything goes into ONE tar file, $OUT/session.tgz (the device runner brings back a few files only).
#
#   bench/device/session_check.sh [PART...]   # parts: device-tests doctor-states portable telemetry (default: all)
#
# Environment: the parts' own (doctor_states.sh, portable_check.sh, telemetry_overhead.sh); STATES (the doctor
# states, default all); on one GPU the telemetry check times `coll sendrecv` (a 1-rank all_reduce has busbw 0).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:?session_check.sh: set OUT (the device runner does)}
work=$(mktemp -d)
parts=("$@")
[[ ${#parts[@]} -eq 0 ]] && parts=(device-tests doctor-states portable telemetry)
export NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
{ date -u; nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.width.current \
    --format=csv 2>&1; nvidia-smi topo -m 2>&1; } >"$work/machine.txt"

for part in "${parts[@]}"; do
  start=$(date +%s)
  case $part in
    device-tests)
      "$here/build/ci/tests/linkscope_device_tests" --gtest_brief=0 >"$work/device_tests.txt" 2>&1
      echo "device tests exit $?" >>"$work/device_tests.txt" ;;
    doctor-states)
      # shellcheck disable=SC2086
      "$here/bench/device/doctor_states.sh" "$work/doctor_states" ${STATES:-} >"$work/doctor_states.log" 2>&1 ;;
    portable)
      "$here/bench/device/portable_check.sh" "$work/portable" >"$work/portable.log" 2>&1 ;;
    telemetry)
      coll=${COLL_ARGS:-}
      [[ -z $coll && $gpus -lt 2 ]] && coll="sendrecv -b 1G -e 1G"
      COLL_ARGS=${coll:-all_reduce -b 1G -e 1G} ROUNDS=${ROUNDS:-3} DOCTOR_ROUNDS=${DOCTOR_ROUNDS:-1} \
        "$here/bench/device/telemetry_overhead.sh" "$work/telemetry" >"$work/telemetry.log" 2>&1 ;;
    *) echo "session_check.sh: unknown part $part" >>"$work/parts.txt"; continue ;;
  esac
  echo "$part: exit $? in $(( $(date +%s) - start )) s" >>"$work/parts.txt"
done
tar -czf "$out/session.tgz" -C "$work" .
cat "$work/parts.txt"
cat "$work/doctor_states/summary.txt" "$work/portable/summary.txt" "$work/telemetry/summary.txt" 2>/dev/null
tail -n 25 "$work/device_tests.txt" 2>/dev/null
