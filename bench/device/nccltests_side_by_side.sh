#!/usr/bin/env bash
# linkscope's nccl-tests personalities against nccl-tests 2.19.6 itself, in one device call on one GPU (issue 14):
#  1. takes nccl-tests' binaries from the folder given as $1 (the caller builds them from public source for the
#     device call: this repository holds neither nccl-tests' code nor a script that builds it);
#  2. runs each op with both, alternating, `-b 8 -e 1G -f 4 -g 1`, text on stdout and -J JSON with -I 1;
#  3. runs nccl-tests' tools/analyze_perf_json.py (python3, --all) on both JSON files;
#  4. smoke-tests the personality's flag matrix (every nccl-tests 2.19.6 flag once, and NCCL_TESTS_MIN_BW), nccl-tests
#     beside it where it has the flag, recording each exit code;
#  5. writes summary.txt (per op: time at 8 B and busbw at the largest size, both tools) and packs everything into ONE
#     tar under $OUT.
#
#   bench/device/nccltests_side_by_side.sh NCCL_TESTS_BIN_DIR [ANALYZE_PERF_JSON]
#     NCCL_TESTS_BIN_DIR  nccl-tests 2.19.6's *_perf binaries
#     ANALYZE_PERF_JSON   its tools/analyze_perf_json.py (default: NCCL_TESTS_BIN_DIR/../tools/analyze_perf_json.py)
#
# Environment: OUT (where the tar goes; default ./out), LINKSCOPE_BUILD (default build/ci), ROUNDS (default 2),
# TIME_BUDGET_S (default 480: later steps are skipped, and named in summary.txt, past it).
set -u

refbin=${1:?usage: nccltests_side_by_side.sh NCCL_TESTS_BIN_DIR [ANALYZE_PERF_JSON]}
analyzer=${2:-$refbin/../tools/analyze_perf_json.py}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${LINKSCOPE_BUILD:-$here/build/ci}
out_root=${OUT:-$PWD/out}
rounds=${ROUNDS:-2}
budget=${TIME_BUDGET_S:-480}
# shellcheck source=bench/device/side_by_side_lib.sh
source "$here/bench/device/side_by_side_lib.sh"
start_results nccltests_side_by_side runs json analyze flags

[[ -x $refbin/all_reduce_perf ]] || { log "no nccl-tests binaries at $refbin (expected $refbin/all_reduce_perf)"; exit 2; }
[[ -x $build/linkscope ]] || { log "no linkscope at $build/linkscope (set LINKSCOPE_BUILD)"; exit 2; }
machine_header "$build/linkscope"

# run TOOL OP NAME ARGS...: one run of nccl-tests' binary or linkscope's personality link, its text, stderr and exit code.
run() {
  local tool=$1 op=$2 name=$3
  shift 3
  local bin=$refbin/${op}_perf
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
  python3 "$analyzer" --all "$f" >"$res/analyze/$b.txt" 2>&1
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
