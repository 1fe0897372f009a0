#!/usr/bin/env bash
# linkscope's nccl-tests personalities against nccl-tests 2.19.6 itself, in one device call on one GPU (issue 14):
#  1. builds nccl-tests from the source tree given as $1 (a copy the caller carries, e.g. build/ref/nccl-tests, an
#     ignored path: nothing of it is committed) for this GPU's architecture only;
#  2. runs each op with both, alternating, `-b 8 -e 1G -f 4 -g 1`, text on stdout and -J JSON with -I 1;
#  3. runs nccl-tests' tools/analyze_perf_json.py (python3, --all) on both JSON files;
#  4. smoke-tests the personality's flag matrix (every nccl-tests 2.19.6 flag once, and NCCL_TESTS_MIN_BW), nccl-tests
#     beside it where it has the flag, recording each exit code;
#  5. writes summary.txt (per op: time at 8 B and busbw at the largest size, both tools) and packs everything into ONE
#     tar under $OUT.
#
#   bench/device/nccltests_side_by_side.sh NCCL_TESTS_SOURCE
#
# Environment: OUT (where the tar goes; default ./out), LINKSCOPE_BUILD (default build/ci), CUDA_HOME (default
# /usr/local/cuda), NCCL_HOME (headers and libnccl; found from nccl.h and libnccl.so.2 when unset), ROUNDS (default 2),
# TIME_BUDGET_S (default 480: later steps are skipped, and named in summary.txt, past it).
set -u

src=${1:?usage: nccltests_side_by_side.sh NCCL_TESTS_SOURCE}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${LINKSCOPE_BUILD:-$here/build/ci}
out_root=${OUT:-$PWD/out}
rounds=${ROUNDS:-2}
budget=${TIME_BUDGET_S:-480}
# shellcheck source=bench/device/side_by_side_lib.sh
source "$here/bench/device/side_by_side_lib.sh"
start_results nccltests_side_by_side runs json analyze flags

[[ -d $src/src ]] || { log "no nccl-tests source at $src (expected $src/src/common.cu)"; exit 2; }
[[ -x $build/linkscope ]] || { log "no linkscope at $build/linkscope (set LINKSCOPE_BUILD)"; exit 2; }
machine_header "$build/linkscope"

# --- 1. nccl-tests from the carried source, for this GPU only (a full gencode list would not fit the budget).
cuda=${CUDA_HOME:-/usr/local/cuda}
nccl_home=${NCCL_HOME:-}
if [[ -z $nccl_home ]]; then
  lib=$(ldconfig -p | awk '/libnccl\.so\.2 /{print $NF; exit}')
  if [[ -z $lib ]]; then
    for d in ${LD_LIBRARY_PATH//:/ } /usr/lib/x86_64-linux-gnu /usr/local/lib "$cuda/lib64"; do
      [[ -e $d/libnccl.so.2 ]] && { lib=$d/libnccl.so.2; break; }
    done
  fi
  inc=$(ls /usr/include/nccl.h "$cuda/include/nccl.h" /usr/local/include/nccl.h 2>/dev/null | head -1)
  nccl_home=$work/nccl_home
  mkdir -p "$nccl_home/lib" "$nccl_home/include"
  [[ -n $lib ]] && ln -sf "$lib" "$nccl_home/lib/libnccl.so" && ln -sf "$lib" "$nccl_home/lib/libnccl.so.2"
  [[ -n $inc ]] && ln -sf "$inc" "$nccl_home/include/nccl.h"
  log "NCCL for the nccl-tests build: library ${lib:-none}, header ${inc:-none}"
fi
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
ref=$work/nccl-tests
cp -a "$src" "$ref"
if ! make -C "$ref/src" -j"$(nproc)" CUDA_HOME="$cuda" NCCL_HOME="$nccl_home" \
     NVCC_GENCODE="-gencode=arch=compute_${cc},code=sm_${cc}" BUILDDIR="$ref/build" >"$res/nccl-tests-build.log" 2>&1; then
  log "nccl-tests build failed (nccl-tests-build.log)"
  exit 1
fi
log "nccl-tests built for sm_${cc} in $((SECONDS - started)) s"
export LD_LIBRARY_PATH=$nccl_home/lib:${LD_LIBRARY_PATH:-}

# run TOOL OP NAME ARGS...: one run of nccl-tests' binary or linkscope's personality link, its text, stderr and exit code.
run() {
  local tool=$1 op=$2 name=$3
  shift 3
  local bin=$ref/build/${op}_perf
  [[ $tool == linkscope ]] && bin=$build/${op}_perf
  capture 120 "$bin" "$res/$name" "$@"
}

# --- 2. side by side, alternating which tool goes first.
ops=(all_reduce all_gather reduce_scatter sendrecv alltoall alltoallv hypercube)
sweep=(-b 8 -e 1G -f 4 -g 1)
for ((r = 1; r <= rounds; r++)); do
  for op in "${ops[@]}"; do
    over_budget && { log "budget: side-by-side round $r $op and later skipped"; break 2; }
    order=(nccl-tests linkscope)
    (( r % 2 == 0 )) && order=(linkscope nccl-tests)
    for tool in "${order[@]}"; do run "$tool" "$op" "runs/$op.$tool.r$r" "${sweep[@]}"; done
  done
done
# -J with -I 1 (per-iteration rows, what analyze_perf_json.py reads), once per op and tool.
for op in "${ops[@]}"; do
  over_budget && { log "budget: -J runs from $op on skipped"; break; }
  for tool in nccl-tests linkscope; do
    rm -f "$res/json/$op.$tool.json"
    run "$tool" "$op" "json/$op.$tool" "${sweep[@]}" -I 1 -J "$res/json/$op.$tool.json"
  done
done

# --- 3. nccl-tests' analyzer, unchanged, on both tools' JSON.
for f in "$res"/json/*.json; do
  [[ -e $f ]] || continue
  b=$(basename "$f" .json)
  python3 "$ref/tools/analyze_perf_json.py" --all "$f" >"$res/analyze/$b.txt" 2>&1
  echo $? >"$res/analyze/$b.rc"
done

# --- 4. the flag matrix: each flag alone on a short sweep, linkscope and nccl-tests.
short=(-b 8 -e 64K -f 4 -g 1)
flags=("-p 1" "-z 1" "-z 2" "-z 3" "-y 1" "-R 1" "-R 2" "-x 0" "-x 1" "-x 2" "-S 1" "-M 1" "-u 1" "-u 3 -d double"
       "-I 1" "-I 1 -K 2" "-I 1 -z 3" "-C 1" "-G 2" "-G 2 -n 5" "-a 0" "-a 2" "-a 3" "-N 2" "-m 2" "-m 2 -z 1" "-w 0"
       "-n 5" "-c 0" "-d all" "-o all" "-D 1 -R 2" "-V 32")
i=0
for f in "${flags[@]}"; do
  over_budget && { log "budget: flag matrix from '$f' on skipped"; break; }
  i=$((i + 1))
  read -r -a extra <<<"$f"
  for tool in linkscope nccl-tests; do run "$tool" all_reduce "flags/$i.$tool" "${short[@]}" "${extra[@]}"; done
  echo "$i: $f" >>"$res/flags/index.txt"
done
for tool in linkscope nccl-tests; do
  NCCL_TESTS_MIN_BW=100000 run "$tool" all_reduce "flags/min_bw.$tool" "${short[@]}"
  rm -f "$res/flags/exists.json"*
  : >"$res/flags/exists.json"  # -J never overwrites: both write exists.json.0
  run "$tool" all_reduce "flags/json_exists.$tool" "${short[@]}" -J "$res/flags/exists.json"
  ls "$res/flags/" | grep exists.json >"$res/flags/json_exists.$tool.files"
done

# --- 5. summary: exit codes, time at the smallest size and busbw at the largest (out of place), per tool and round.
{
  echo
  echo "## side by side (out of place): op.tool.round rc, time at the smallest size (us), algbw and busbw at the largest"
  echo "## (GB/s; with one GPU busbw is 0 for all_reduce, all_gather, reduce_scatter and alltoall: (n-1)/n = 0)"
  for f in "$res"/runs/*.txt; do
    b=$(basename "$f" .txt)
    awk -v name="$b" -v rc="$(cat "$res/runs/$b.rc")" '
      !/^#/ && NF >= 8 { if (first == "") first = $6; algbw = $7; busbw = $8 }
      END { printf "%-36s rc=%s time@first=%s algbw@last=%s busbw@last=%s\n", name, rc, first, algbw, busbw }' "$f"
  done
  echo
  echo "## analyze_perf_json.py exit codes"
  for f in "$res"/analyze/*.rc; do echo "$(basename "$f" .rc) rc=$(cat "$f")"; done
  echo
  echo "## flag matrix: n flags linkscope-rc nccl-tests-rc"
  while read -r line; do
    n=${line%%:*}
    echo "$line | linkscope rc=$(cat "$res/flags/$n.linkscope.rc") nccl-tests rc=$(cat "$res/flags/$n.nccl-tests.rc")"
  done <"$res/flags/index.txt"
  for tool in linkscope nccl-tests; do
    echo "NCCL_TESTS_MIN_BW=100000 $tool rc=$(cat "$res/flags/min_bw.$tool.rc") $(grep 'Avg bus' "$res/flags/min_bw.$tool.txt")"
    echo "-J onto an existing file, $tool: $(tr '\n' ' ' <"$res/flags/json_exists.$tool.files")"
  done
  echo
  echo "wall $((SECONDS - started)) s"
} >>"$summary"
cat "$summary" >&2
