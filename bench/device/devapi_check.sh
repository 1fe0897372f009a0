#!/usr/bin/env bash
# -D/-V (NCCL's device-API kernels) of linkscope's all_reduce_perf and alltoall_perf against nccl-tests 2.19.6 itself,
# in one device call on one GPU (issue 14):
#  1. runs all_reduce_perf and alltoall_perf of both tools side by side (alternating which goes first) with
#     `-b 8 -e 1G -f 4 -g 1 -R 2` and -D 1, -D 2, each with the default 16 CTAs, -V 4 and -V 32; once without -D
#     (the NCCL call on the same symmetric windows) for reference; -D 3 and -D 4 (multimem, GIN) once on a short
#     sweep to record both tools' refusals;
#  2. runs linkscope's device tests of -D (build/ci/tests/linkscope_device_tests --gtest_filter='*Devapi*');
#  3. looks for other libnccl.so.2 copies on the machine (pip wheels, other CUDA trees): linkscope is built with
#     NCCL 2.28.9's device API, whose structures differ from those of NCCL 2.28.0-2.28.6 (2.28.3 is refused), and
#     NCCL 2.28.3 gives a one-rank communicator no symmetric memory at all, so on one GPU with 2.28.3 neither tool
#     can run -D; with a copy of 2.28.7 .. 2.28.x linkscope's -D runs and device tests are repeated against it
#     (LINKSCOPE_NCCL_LIBRARY);
#  4. writes summary.txt (per run: exit code, time at 8 B, algbw at the largest size, wrong elements) and packs
#     everything into ONE tar under $OUT.
# nccl-tests is NOT built here: $1 is a directory of PREBUILT nccl-tests binaries (built against NCCL >= 2.28 headers
# with nccl_device.h, or its -D does nothing of the sort). With one GPU busbw is 0 for both ops ((n-1)/n = 0):
# compare time and algbw.
#
#   bench/device/devapi_check.sh NCCL_TESTS_BIN_DIR
#
# Environment: OUT (where the tar goes; default ./out), LINKSCOPE_BUILD (default build/ci), TIME_BUDGET_S (default
# 500: later steps are skipped, and named in summary.txt, past it). NCCL_NVLS_ENABLE stays 0.
set -u

bin_dir=${1:?usage: devapi_check.sh NCCL_TESTS_BIN_DIR}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${LINKSCOPE_BUILD:-$here/build/ci}
out_root=${OUT:-$PWD/out}
budget=${TIME_BUDGET_S:-500}
# shellcheck source=bench/device/side_by_side_lib.sh
source "$here/bench/device/side_by_side_lib.sh"
start_results devapi_check runs refusals

[[ -x $build/linkscope ]] || { log "no linkscope at $build/linkscope (set LINKSCOPE_BUILD)"; exit 2; }
machine_header "$build/linkscope"
for op in all_reduce alltoall; do
  [[ -x $bin_dir/${op}_perf ]] || log "no nccl-tests ${op}_perf in $bin_dir: its runs are recorded as rc=127"
done

# run TOOL OP NAME ARGS...: one run of nccl-tests' binary or linkscope's personality link, its text, stderr, exit code.
run() {
  local tool=$1 op=$2 name=$3
  shift 3
  local bin=$bin_dir/${op}_perf
  [[ $tool == linkscope ]] && bin=$build/${op}_perf
  echo "$bin $*" >"$res/$name.cmd"
  capture 120 "$bin" "$res/$name" "$@"
}

# --- 1. side by side.
sweep=(-b 8 -e 1G -f 4 -g 1 -R 2)
configs=("" "-D 1" "-D 1 -V 4" "-D 1 -V 32" "-D 2" "-D 2 -V 4" "-D 2 -V 32")
n=0
for op in all_reduce alltoall; do
  for c in "${configs[@]}"; do
    over_budget && { log "budget: $op '$c' and later side-by-side runs skipped"; break 2; }
    n=$((n + 1))
    read -r -a extra <<<"$c"
    tag=${c// /}
    order=(nccl-tests linkscope)
    (( n % 2 == 0 )) && order=(linkscope nccl-tests)
    for tool in "${order[@]}"; do run "$tool" "$op" "runs/$op${tag:+.$tag}.$tool" "${sweep[@]}" "${extra[@]}"; done
  done
done
for op in all_reduce alltoall; do
  for d in 3 4; do
    over_budget && { log "budget: refusal $op -D $d skipped"; continue; }
    for tool in nccl-tests linkscope; do run "$tool" "$op" "refusals/$op.-D$d.$tool" -b 8 -e 64K -f 8 -g 1 -R 2 -D "$d"; done
  done
done

# --- 2. linkscope's device tests of -D.
if over_budget; then
  log "budget: device tests skipped"
else
  timeout 300 "$build/tests/linkscope_device_tests" --gtest_filter='*Devapi*' >"$res/device_tests.txt" 2>&1
  echo $? >"$res/device_tests.rc"
fi

# --- 3. another NCCL of linkscope's device ABI (2.28.7 .. 2.28.x), if the machine has one.
other=""
while read -r lib; do
  v=$(nccl_version_of "$lib")
  echo "$lib ${v:-unknown}" >>"$res/nccl_copies.txt"
  minor=$(echo "$v" | cut -d. -f2)
  patch=$(echo "$v" | cut -d. -f3)
  [[ -z $other && $minor == 28 && ${patch:-0} -ge 7 ]] && other=$lib
done < <(timeout 60 find / -xdev \( -name 'libnccl.so.2' -o -name 'libnccl.so.2.[0-9]*' \) -type f 2>/dev/null | sort -u)
if [[ -z $other ]]; then
  log "no NCCL 2.28.7 .. 2.28.x on this machine (nccl_copies.txt): -D is refused by linkscope's version gate here"
elif over_budget; then
  log "budget: runs against $other skipped"
else
  log "NCCL of linkscope's device ABI: $other ($(nccl_version_of "$other")): -D runs and device tests repeated with it"
  mkdir -p "$res/other_nccl"
  for op in all_reduce alltoall; do
    for c in "-D 1" "-D 2" "-D 2 -V 32"; do
      read -r -a extra <<<"$c"
      LINKSCOPE_NCCL_LIBRARY=$other run linkscope "$op" "other_nccl/$op.${c// /}.linkscope" "${sweep[@]}" "${extra[@]}"
    done
  done
  LINKSCOPE_NCCL_LIBRARY=$other timeout 300 "$build/tests/linkscope_device_tests" --gtest_filter='*Devapi*' \
    >"$res/other_nccl/device_tests.txt" 2>&1
  echo $? >"$res/other_nccl/device_tests.rc"
fi

# --- 4. summary.
{
  echo
  echo "## side by side (out of place): run rc, time at the smallest size (us), algbw at the largest (GB/s), #wrong"
  echo "## over all rows (out of place + in place), the '# Out of bounds values' line"
  for f in "$res"/runs/*.txt "$res"/refusals/*.txt "$res"/other_nccl/*.linkscope.txt; do
    [[ -e $f ]] || continue
    b=${f#"$res"/}
    b=${b%.txt}
    awk -v name="$b" -v rc="$(cat "$res/$b.rc")" '
      !/^#/ && NF >= 8 { if (first == "") first = $6; algbw = $7; wrong += ($9 ~ /^[0-9]+$/ ? $9 : 0) + ($13 ~ /^[0-9]+$/ ? $13 : 0) }
      /Out of bounds/ { oob = $0 }
      END { printf "%-44s rc=%s time@first=%s algbw@last=%s wrong=%s |%s\n", name, rc, first, algbw, wrong + 0, oob }' "$f"
  done
  echo
  echo "## refusals: first line of stderr/stdout per tool"
  for f in "$res"/refusals/*.err; do
    b=${f%.err}
    echo "$(basename "$b"): rc=$(cat "$b.rc") err: $(grep -v '^$' "$f" | head -1) | out: $(grep -iv '^#' "$b.txt" | grep -v '^$' | head -1)"
  done
  echo
  echo "## device tests: rc=$(cat "$res/device_tests.rc" 2>/dev/null || echo skipped)"
  grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) *\]' "$res/device_tests.txt" 2>/dev/null
  if [[ -e $res/other_nccl/device_tests.rc ]]; then
    echo "## device tests against $other: rc=$(cat "$res/other_nccl/device_tests.rc")"
    grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) *\]' "$res/other_nccl/device_tests.txt"
  fi
  echo
  echo "## linkscope -D: first stderr line of each side-by-side run that failed"
  for f in "$res"/runs/*.linkscope.err; do
    b=${f%.err}
    [[ $(cat "$b.rc") == 0 ]] || echo "$(basename "$b"): rc=$(cat "$b.rc") $(head -1 "$f")"
  done
  echo
  echo "wall $((SECONDS - started)) s"
} >>"$summary"
cat "$summary" >&2
