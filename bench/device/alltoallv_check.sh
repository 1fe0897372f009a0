#!/usr/bin/env bash
# alltoallv_perf of linkscope beside nccl-tests 2.19.6's, and NCCL_TESTS_SPLIT_MASK under mpirun, on one GPU (issue 14).
# The nccl-tests binaries are prebuilt by the caller (this script never builds nccl-tests):
#   $1/alltoallv_perf, $1/all_reduce_perf            nccl-tests without MPI
#   $1/alltoallv_perf_mpi, $1/all_reduce_perf_mpi    optional: nccl-tests built with MPI=1 NAME_SUFFIX=_mpi, for the
#                                                    mpirun part (without them nccl-tests' side of it is skipped)
# Runs, each with both tools, text on stdout:
#  1. the generated pattern, -b 8 -e 1G -f 4 -g 1, NCCL_TESTS_ALLTOALLV_SPREAD 1 (default) and 0, with -J;
#  2. matrix mode (a 2x2 matrix file; 1 GPU uses its first row and column), with and without _MATRIX_SCALE;
#  3. NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1;
#  4. the matrix rules and a malformed matrix (exit codes and messages);
#  5. when mpirun is there: mpirun --allow-run-as-root -np 2 with NCCL_TESTS_SPLIT_MASK=0x1 and NCCL_TESTS_DEVICE=0 (two
#     one-rank communicators on the one GPU), alltoallv_perf and all_reduce_perf;
#  6. summary.txt: exit codes, the size/count columns of both tools compared row by row, time at the smallest size,
#     algbw at the largest, #wrong; everything packed into ONE tar under $OUT.
#
#   bench/device/alltoallv_check.sh NCCL_TESTS_BIN_DIR
#
# Environment: OUT (default ./out), LINKSCOPE_BUILD (default build/ci), TIME_BUDGET_S (default 420). NVLS stays off.
set -u

bin_dir=${1:?usage: alltoallv_check.sh NCCL_TESTS_BIN_DIR}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${LINKSCOPE_BUILD:-$here/build/ci}
out_root=${OUT:-$PWD/out}
budget=${TIME_BUDGET_S:-420}
# shellcheck source=bench/device/side_by_side_lib.sh
source "$here/bench/device/side_by_side_lib.sh"
start_results alltoallv_check runs json

[[ -x $bin_dir/alltoallv_perf ]] || { log "no nccl-tests alltoallv_perf in $bin_dir"; exit 2; }
[[ -x $build/alltoallv_perf ]] || { log "no linkscope alltoallv_perf link in $build (set LINKSCOPE_BUILD)"; exit 2; }
machine_header "$build/linkscope"

# run TOOL NAME PROGRAM ARGS... (environment from the caller): text, stderr and exit code under runs/NAME.TOOL.*
run() {
  local tool=$1 run_name=$2 program=$3
  shift 3
  local bin=$bin_dir/$program
  [[ $tool == linkscope ]] && bin=$build/$program
  capture 150 "$bin" "$res/runs/$run_name.$tool" "$@"
}
both() {  # both NAME PROGRAM ARGS...: nccl-tests first, then linkscope
  local run_name=$1
  shift
  over_budget && { log "budget: $run_name skipped"; return; }
  run nccl-tests "$run_name" "$@"
  run linkscope "$run_name" "$@"
}

sweep=(-b 8 -e 1G -f 4 -g 1)
# --- 1. generated pattern, spread 1 and 0, with -J.
for spread in 1 0; do
  for tool in nccl-tests linkscope; do
    rm -f "$res/json/spread$spread.$tool.json"*
    NCCL_TESTS_ALLTOALLV_SPREAD=$spread run "$tool" "spread$spread" alltoallv_perf "${sweep[@]}" \
      -J "$res/json/spread$spread.$tool.json"
  done
done

# --- 2. matrix mode: 2x2 (the one rank uses row and column 0); values not multiples of 16 are rounded down.
matrix=$res/matrix.txt
printf '1048583 2048\n4096 65536\n' >"$matrix"
export NCCL_TESTS_ALLTOALLV_MATRIX_FILE=$matrix
both matrix alltoallv_perf -b 1M -e 1M -g 1
NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=4 both matrix_scale4 alltoallv_perf -b 5M -e 5M -g 1
NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 both matrix_summary alltoallv_perf -b 1M -e 1M -g 1
# --- 4. the matrix rules and a malformed file: nccl-tests exits 1 (testInternalError), linkscope 2.
both rule_b_ne_e alltoallv_perf -b 8 -e 1M -g 1
both rule_e_small alltoallv_perf -b 64K -e 64K -g 1
printf '64 32\n16 x\n' >"$res/bad_matrix.txt"
NCCL_TESTS_ALLTOALLV_MATRIX_FILE=$res/bad_matrix.txt both rule_bad_value alltoallv_perf -b 1M -e 1M -g 1
unset NCCL_TESTS_ALLTOALLV_MATRIX_FILE

# --- 3. the per-rank summary on a short generated sweep.
NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 both summary alltoallv_perf -b 8 -e 1M -f 4 -g 1

# --- 5. two one-rank communicators on the one GPU.
if command -v mpirun >/dev/null; then
  mpi=("$(command -v mpirun)" --allow-run-as-root --oversubscribe -np 2 -x NCCL_TESTS_SPLIT_MASK=0x1 -x NCCL_TESTS_DEVICE=0
       -x NCCL_NVLS_ENABLE=0 -x LD_LIBRARY_PATH)
  for program in alltoallv_perf all_reduce_perf; do
    over_budget && { log "budget: mpirun $program skipped"; break; }
    for tool in nccl-tests linkscope; do
      bin=$bin_dir/${program}_mpi
      [[ $tool == linkscope ]] && bin=$build/$program
      if [[ -x $bin ]]; then
        capture 150 "${mpi[0]}" "$res/runs/mpi_split.$program.$tool" "${mpi[@]:1}" "$bin" -b 8 -e 1M -f 4 -g 1
      else
        capture 1 "$bin" "$res/runs/mpi_split.$program.$tool"
      fi
    done
  done
else
  log "no mpirun: the NCCL_TESTS_SPLIT_MASK part is skipped"
fi

# --- 6. summary.
{
  echo
  echo "## runs: name.tool rc, rows, time at the smallest size (us), algbw at the largest (GB/s), #wrong out of place"
  for f in "$res"/runs/*.txt; do
    b=$(basename "$f" .txt)
    awk -v name="$b" -v rc="$(cat "$res/runs/$b.rc")" '
      /^ *[0-9]/ && NF >= 9 { rows++; if (first == "") first = $6; algbw = $7; wrong = wrong " " $9 }
      END { printf "%-40s rc=%s rows=%d time@first=%s algbw@last=%s wrong=%s\n", name, rc, rows, first, algbw, wrong }' "$f"
  done
  echo
  echo "## size and count columns, nccl-tests vs linkscope (identical expected)"
  for f in "$res"/runs/*.nccl-tests.txt; do
    b=$(basename "$f" .nccl-tests.txt)
    l=$res/runs/$b.linkscope.txt
    [[ -e $l ]] || continue
    if diff <(awk '/^ *[0-9]/ && NF >= 9 {print $1, $2, $3, $4, $5}' "$f") \
            <(awk '/^ *[0-9]/ && NF >= 9 {print $1, $2, $3, $4, $5}' "$l") >"$res/runs/$b.columns.diff"; then
      echo "$b: same"
    else
      echo "$b: DIFFERENT (runs/$b.columns.diff)"
    fi
  done
  echo
  echo "## summary lines (PRINT_SUMMARY), first 6 of each"
  for f in "$res"/runs/*summary*.txt; do echo "--- $(basename "$f")"; grep -m 6 "NCCL_TESTS_ALLTOALLV\|rank=" "$f"; done
  echo
  echo "## rule errors: stdout and stderr of each tool"
  for f in "$res"/runs/rule_*.txt; do
    b=$(basename "$f" .txt)
    echo "--- $b rc=$(cat "$res/runs/$b.rc")"
    grep -v "^#" "$f" | head -3
    head -3 "$res/runs/$b.err"
  done
  echo
  echo "## mpirun split: rank lines"
  for f in "$res"/runs/mpi_split.*.txt; do
    [[ -e $f ]] || continue
    echo "--- $(basename "$f") rc=$(cat "${f%.txt}.rc")"
    grep "Rank\|Avg bus\|Out of bounds" "$f"
  done
  echo
  echo "## -J files parse as JSON"
  for f in "$res"/json/*.json; do
    [[ -e $f ]] || continue
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split("/")[-1], "rows", len(d.get("results", [])))' "$f" 2>&1
  done
  echo
  echo "wall $((SECONDS - started)) s"
} >>"$summary" 2>&1
