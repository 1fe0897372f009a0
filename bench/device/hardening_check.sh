#!/usr/bin/env bash
# Issue 13's usage checks and output handling on a machine with a GPU: the checks that must refuse before any
# device work still refuse (exit 2, one line, quickly), and the same options used correctly still measure:
# --cpu-node, -d, --output, -T, ladder -g, doctor over an earlier report, standard output on /dev/full.
#
#   bench/device/hardening_check.sh [OUT_DIR]      (default: $OUT, as the device runner sets it)
#
# Environment: LINKSCOPE, the binary (default build/ci/linkscope; carry build/ci).
# Everything (each command's stdout/stderr, exit codes, wall seconds, PASS/FAIL lines in summary.txt) goes into
# one tar file, OUT_DIR/hardening_check.tar. Exits 1 when any check failed.
set -u

out=${1:-${OUT:?usage: hardening_check.sh OUT_DIR (or set OUT)}}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
[[ -x $linkscope ]] || { echo "hardening_check.sh: no linkscope binary at $linkscope (set LINKSCOPE)" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d)
log=$work/log
mkdir -p "$log"
failed=0

say() { echo "$*" | tee -a "$log/summary.txt"; }
# expect NAME ALLOWED_CODES CMD...: PASS when the exit code is one of ALLOWED_CODES; records code and seconds.
expect() {
  local name=$1 allowed=$2
  shift 2
  local start end rc
  start=$(date +%s.%N)
  "$@" >"$log/$name.out" 2>"$log/$name.err"
  rc=$?
  end=$(date +%s.%N)
  printf '%-32s rc=%-3d %6.2fs  %s\n' "$name" "$rc" "$(awk "BEGIN{print $end - $start}")" "$*" >>"$log/exit_codes.txt"
  if [[ " $allowed " == *" $rc "* ]]; then
    say "PASS $name (exit $rc)"
  else
    say "FAIL $name: exit $rc, expected one of: $allowed; stderr: $(head -c 300 "$log/$name.err")"
    failed=1
  fi
  return 0
}
# one_line NAME: the command's stderr is a single line.
one_line() {
  local lines
  lines=$(wc -l <"$log/$1.err")
  if [[ $lines -eq 1 ]]; then say "PASS $1 one stderr line"; else say "FAIL $1: $lines stderr lines"; failed=1; fi
}

nvidia-smi -L >"$log/nvidia-smi-L.txt" 2>&1
small=(-b 1M -e 1M)

# Refused before any device work (exit 2, one line).
for case in "coll-T-nan:coll -T nan" "coll-max-time-inf:coll --max-time inf" \
            "p2p-cpu-node-neg:p2p --cpu-node -5" "p2p-d-empty:p2p -d \"\"" "ladder-g-huge:ladder -g 100000" \
            "ladder-system-missing:ladder --system /nonexistent.json" \
            "coll-output-missing-dir:coll --output /nonexistent/dir/x.json" \
            "p2p-output-missing-dir:p2p --output /nonexistent/dir/x.json" "topo-xml-empty:topo --xml \"\""; do
  name=${case%%:*}
  eval "expect $name 2 \"$linkscope\" ${case#*:}"
  one_line "$name"
done
# More GPUs than visible: a usage error naming the count.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
expect ladder-g-too-many 2 "$linkscope" ladder -g $((gpus + 1)) "${small[@]}"

# The same options, used correctly, measure.
expect p2p-cpu-node-0 0 "$linkscope" p2p --cpu-node 0 "${small[@]}" --format json
if grep -q '"cpu_node": 0' "$log/p2p-cpu-node-0.out"; then say "PASS p2p-cpu-node-0 recorded"
else say "FAIL p2p-cpu-node-0: cpu_node not in the run"; failed=1; fi
expect p2p-d-0-output 0 "$linkscope" p2p -d 0 "${small[@]}" --output "$work/p2p.json"
if python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$work/p2p.json"; then say "PASS p2p --output is JSON"
else say "FAIL p2p --output"; failed=1; fi
expect coll-output 0 "$linkscope" coll -g 1 "${small[@]}" -T 30 --output "$work/coll.json"
[[ -s $work/coll.json ]] && say "PASS coll --output written" || { say "FAIL coll --output missing"; failed=1; }
expect ladder-g-1 0 "$linkscope" ladder -g 1 "${small[@]}" -q
expect patterns-cpu-node-0 "0 3" "$linkscope" patterns --cpu-node 0 --size 1M

# doctor over an earlier report (a 2-GPU fixture's, with charts one GPU does not draw): no chart of the earlier
# report is left unless the new one drew it again, a user's own file stays (docs/reports.md "Writing the report
# directory"); its summary on /dev/full is exit 2.
expect report-earlier 0 "$linkscope" report "$here/tests/fixtures/runs/h200x2-healthy.json" --output "$work/report/"
earlier_files=$(grep -v '^#' "$work/report/.linkscope-files" 2>/dev/null)
echo "mine" >"$work/report/users-own-chart.svg"
expect doctor-quick-1 "0 6 7" "$linkscope" doctor --quick -o "$work/report"
stale=0
for name in $earlier_files; do
  grep -qx "$name" "$work/report/.linkscope-files" || [[ ! -e $work/report/$name ]] || stale=1
done
[[ -n $earlier_files && $stale == 0 ]] && say "PASS no stale chart" || { say "FAIL stale chart left"; failed=1; }
[[ $(cat "$work/report/users-own-chart.svg" 2>/dev/null) == mine ]] && say "PASS user file kept" ||
  { say "FAIL user file removed"; failed=1; }
expect doctor-from-again "0 6 7" "$linkscope" doctor --from "$work/report/run.json" -o "$work/report2"
cp "$work/report/run.json" "$work/run-first.json"
expect doctor-dev-full 2 sh -c "exec \"$linkscope\" doctor --from \"$work/run-first.json\" -o \"$work/report3\" >/dev/full"
one_line doctor-dev-full
expect version-dev-full 2 sh -c "exec \"$linkscope\" version >/dev/full"

cp "$work"/*.json "$log"/ 2>/dev/null
tar -cf "$out/hardening_check.tar" -C "$work" log
rm -rf "$work"
exit $failed
