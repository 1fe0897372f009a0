#!/usr/bin/env bash
# The portable binary on a GPU machine: what it links, which glibc it needs, and that it runs `doctor --quick`
# and `coll` single-node and under mpirun, with MPI opened at run time (no MPI linked).
#
#   bench/device/portable_check.sh [OUT_DIR]      (default: $OUT, as the device runner sets it)
#
# Environment:
#   LINKSCOPE   the binary (default build/ci/linkscope; its adapters are in lib/linkscope beside it, so carry
#               build/ci/linkscope and build/ci/lib together)
#   NGPUS       GPUs for the single-process coll (default: every visible GPU)
#
# Writes each command's stdout/stderr under OUT_DIR, exit codes in OUT_DIR/exit_codes.txt and PASS/FAIL/SKIP lines
# in OUT_DIR/summary.txt (also printed). Keeps going when a command fails; exits 1 when any check failed.
set -u

out=${1:-${OUT:?usage: portable_check.sh OUT_DIR (or set OUT)}}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
[[ -x $linkscope ]] || { echo "portable_check.sh: no linkscope binary at $linkscope (set LINKSCOPE)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
: >"$out/exit_codes.txt"
: >"$out/summary.txt"
failed=0

say() { echo "$*" | tee -a "$out/summary.txt"; }
# run NAME CMD...: stdout to NAME.out, stderr to NAME.err; returns the exit code.
run() {
  local name=$1
  shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  printf '%-28s %d   %s\n' "$name" "$rc" "$*" >>"$out/exit_codes.txt"
  return $rc
}
# expect NAME ALLOWED_CODES CMD...: PASS when the exit code is one of ALLOWED_CODES (e.g. "0 7").
expect() {
  local name=$1 allowed=$2
  shift 2
  run "$name" "$@"
  local rc=$?
  if [[ " $allowed " == *" $rc "* ]]; then
    say "PASS $name (exit $rc)"
  else
    say "FAIL $name (exit $rc; see $name.err)"
    failed=1
  fi
}

# 1. What the binary needs from the machine.
{ uname -a; ldd --version 2>&1 | head -n1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1; } >"$out/machine.txt"
ldd "$linkscope" >"$out/ldd.txt" 2>&1
readelf -d "$linkscope" | grep NEEDED >"$out/needed.txt"
objdump -T "$linkscope" | grep -o 'GLIBC_[0-9.]*' | sort -uV >"$out/glibc_versions.txt"
ls -l "$(dirname "$linkscope")/lib/linkscope" >"$out/adapters.txt" 2>&1
if grep -vqE '\[(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2)\]' "$out/needed.txt"; then
  say "FAIL needed: $(tr -s ' \n' ' ' <"$out/needed.txt")"
  failed=1
else
  say "PASS needed: glibc only ($(grep -o '\[[^]]*\]' "$out/needed.txt" | tr -d '[]' | tr '\n' ' '))"
fi
if grep -q 'not found' "$out/ldd.txt"; then say "FAIL ldd: $(grep 'not found' "$out/ldd.txt" | tr '\n' ' ')"; failed=1; fi
say "INFO newest GLIBC_ symbol version: $(tail -n1 "$out/glibc_versions.txt"); this machine: $(ldd --version 2>&1 | head -n1)"

# 2. Single node: the doctor (exit 0, or 7 when it found a problem of severity error) and coll.
expect doctor-quick "0 7" "$linkscope" doctor --quick -o "$out/doctor-quick"
[[ -s $out/doctor-quick/report.html ]] || { say "FAIL doctor-quick wrote no report.html"; failed=1; }
gpus=${NGPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
expect coll "0" "$linkscope" coll all_reduce -b 8M -e 256M -f 4 -g "${gpus:-1}"
grep -q 'NCCL' "$out/coll.out" || say "INFO coll printed no NCCL line (see coll.out)"
# MPI must not have been loaded without a launcher: the doctor ran in processes of their own, coll in this one.
if grep -q 'libmpi' "$out/ldd.txt"; then say "FAIL the binary links an MPI"; failed=1; fi

# 3. Under mpirun: one rank per GPU, MPI and linkscope's adapter opened at run time.
mpirun=$(command -v mpirun || true)
if [[ -z $mpirun ]]; then
  say "SKIP mpirun: not installed on this machine"
else
  "$mpirun" --version >"$out/mpirun_version.txt" 2>&1
  expect coll-mpirun-np1 "0" "$mpirun" --allow-run-as-root -np 1 "$linkscope" coll all_reduce -b 8M -e 256M -f 4
  if [[ ${gpus:-1} -ge 2 ]]; then
    expect coll-mpirun-np2 "0" "$mpirun" --allow-run-as-root -np 2 "$linkscope" coll all_reduce -b 8M -e 256M -f 4
  fi
  expect coll-mpirun-dry-run "0" "$mpirun" --allow-run-as-root -np 1 "$linkscope" coll --dry-run
  grep -h 'processes:' "$out/coll-mpirun-dry-run.out" | tee -a "$out/summary.txt"
fi

[[ $failed -eq 0 ]] && say "PASS portable_check" || say "FAIL portable_check"
exit $failed
