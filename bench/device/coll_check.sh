#!/usr/bin/env bash
# Side-by-side check of `linkscope coll` against nccl-tests on a GPU machine (2 GPUs).
#
#   bench/device/coll_check.sh OUT_DIR
#
# Environment:
#   LINKSCOPE        linkscope binary (default build/ci/linkscope)
#   NCCL_TESTS_BIN   directory with nccl-tests binaries (all_reduce_perf ...); when set, the same nccl-tests
#                    command runs right before each linkscope command
#   LINKSCOPE_SYSTEM a Run document with a `system` section, passed to `ladder --system` for path peaks
#   NGPUS            GPUs per process (default 2)
#
# Writes every command's stdout/stderr under OUT_DIR, wall times in OUT_DIR/wall.txt, exit codes in
# OUT_DIR/exit_codes.txt and a busbw comparison in OUT_DIR/summary.txt. Keeps going when a command fails.
set -u

out=${1:?usage: coll_check.sh OUT_DIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
[[ -x $linkscope ]] || { echo "coll_check.sh: no linkscope binary at $linkscope (set LINKSCOPE)" >&2; exit 2; }
ngpus=${NGPUS:-2}
nccl_tests=${NCCL_TESTS_BIN:-}
export NCCL_NVLS_ENABLE=0  # the anchors were measured without NVLS; linkscope never enables it

: >"$out/wall.txt"
: >"$out/exit_codes.txt"

# run NAME CMD...: stdout to NAME.out, stderr to NAME.err, wall time and exit code recorded.
run() {
  local name=$1
  shift
  local start end rc
  start=$(date +%s.%N)
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  end=$(date +%s.%N)
  awk -v n="$name" -v s="$start" -v e="$end" 'BEGIN { printf "%-40s %8.2f s\n", n, e - s }' >>"$out/wall.txt"
  printf '%-40s %d   %s\n' "$name" "$rc" "$*" >>"$out/exit_codes.txt"
  echo "[$rc] $name" >&2
}

# nccl-tests, when its binaries are there.
ncclt() {
  local name=$1 bin=$2
  shift 2
  if [[ -n $nccl_tests && -x $nccl_tests/$bin ]]; then run "ncclt-$name" "$nccl_tests/$bin" "$@"; fi
}

# Largest size per op: 8 GiB, as the anchors on 2 x H200.
largest=8G
ops="all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv gather scatter"

# 1. Every op at 64 MiB, 1 GiB and the largest size: nccl-tests (-w 5 -n 20, as the anchors), then linkscope
#    (adaptive counts, per-size CV, every size verified) with its Run document.
for op in $ops; do
  for size in 64M 1G $largest; do
    ncclt "$op-$size" "${op}_perf" -b "$size" -e "$size" -g "$ngpus" -w 5 -n 20
    run "linkscope-$op-$size" "$linkscope" coll "$op" -b "$size" -e "$size" -g "$ngpus" --output "$out/linkscope-$op-$size.json"
  done
done

# 2. The full all_reduce sweep 8 B .. 8 GiB, timed: nccl-tests' defaults, linkscope's adaptive sweep, and
#    linkscope behind the all_reduce_perf name (nccl-tests' defaults and format, fixed 20 iterations).
ncclt sweep-all_reduce all_reduce_perf -b 8 -e 8G -f 2 -g "$ngpus"
run linkscope-sweep-all_reduce "$linkscope" coll all_reduce -b 8 -e 8G -f 2 -g "$ngpus" --output "$out/linkscope-sweep-all_reduce.json"
run linkscope-as-all_reduce_perf "$(dirname "$linkscope")/all_reduce_perf" -b 8 -e 8G -f 2 -g "$ngpus"

# 3. Small-message latency with CUDA graphs: nccl-tests -G 10 (10 launches of 20 operations) against the same
#    fixed counts, and linkscope's adaptive graph mode.
ncclt graph-8B all_reduce_perf -b 8 -e 8 -g "$ngpus" -G 10
run linkscope-graph-8B-fixed "$linkscope" coll all_reduce -b 8 -e 8 -g "$ngpus" -G 10 -n 20
run linkscope-graph-8B-adaptive "$linkscope" coll all_reduce -b 8 -e 8 -g "$ngpus" -G 1
run linkscope-nograph-8B "$linkscope" coll all_reduce -b 8 -e 8 -g "$ngpus"

# 4. One rank per GPU under MPI (local rank from MPI_Comm_split_type): the sweep and sendrecv at 8 GiB.
if command -v mpirun >/dev/null; then
  mpi=(mpirun --allow-run-as-root -np "$ngpus")
  if [[ -n $nccl_tests && -x $nccl_tests/all_reduce_perf_mpi ]]; then
    run ncclt-mpi-sweep-all_reduce "${mpi[@]}" "$nccl_tests/all_reduce_perf_mpi" -b 8 -e 8G -f 2 -g 1
  fi
  run linkscope-mpi-dry-run "${mpi[@]}" "$linkscope" coll all_reduce --dry-run
  run linkscope-mpi-sweep-all_reduce "${mpi[@]}" "$linkscope" coll all_reduce -b 8 -e 8G -f 2 -g 1 --output "$out/linkscope-mpi-sweep-all_reduce.json"
  run linkscope-mpi-sendrecv-8G "${mpi[@]}" "$linkscope" coll sendrecv -b 8G -e 8G -g 1
  run linkscope-mpi-nccl-tests-format "${mpi[@]}" "$linkscope" coll all_reduce -b 64M -e 1G -f 4 -g 1 --format nccl-tests
fi

# 5. The path ladder (P2P disabled should land near 27 GB/s on 2 x H200) with the transports NCCL used.
system_args=()
[[ -n ${LINKSCOPE_SYSTEM:-} ]] && system_args=(--system "$LINKSCOPE_SYSTEM")
if [[ -n $nccl_tests && -x $nccl_tests/all_reduce_perf ]]; then
  run ncclt-p2p-disabled-all_reduce-512M env NCCL_P2P_DISABLE=1 "$nccl_tests/all_reduce_perf" -b 512M -e 512M -g "$ngpus"
fi
run linkscope-ladder "$linkscope" ladder all_reduce -b 1M -e 512M -g "$ngpus" "${system_args[@]}" --output "$out/linkscope-ladder.json"

# 6. The timeout path and the device tests, when the test binary is there.
tests_bin=$(dirname "$linkscope")/tests/linkscope_device_tests
if [[ -x $tests_bin ]]; then run device-tests-coll "$tests_bin" --gtest_filter='Coll*'; fi

# Summary: out-of-place busbw of nccl-tests rows next to linkscope's median busbw, CV and samples.
{
  printf '%-16s %12s %14s %14s %8s %8s\n' op bytes ncclt-busbw linkscope-busbw cv% samples
  for op in $ops; do
    for size in 64M 1G $largest; do
      ncclt_bw=$(awk '!/^#/ && NF >= 12 {print $8}' "$out/ncclt-$op-$size.out" 2>/dev/null | tail -1)
      row=$(awk '!/^#/ && NF >= 11 && $3 == "out" {print $1, $9, $7, $11}' "$out/linkscope-$op-$size.out" 2>/dev/null | tail -1)
      read -r bytes ls_bw cv samples <<<"${row:-- - - -}"
      printf '%-16s %12s %14s %14s %8s %8s\n' "$op" "$bytes" "${ncclt_bw:--}" "$ls_bw" "$cv" "$samples"
    done
  done
  echo
  echo "wall times:"
  cat "$out/wall.txt"
} >"$out/summary.txt"
cat "$out/summary.txt"
