#!/usr/bin/env bash
# NCCL's per-call choices (NCCL_DEBUG_SUBSYS=TUNING) recorded by `coll` and `doctor`, against NCCL 2.28.9's model of
# the same machine (model.tuning) on a GPU machine.
#
#   bench/device/prediction_check.sh                 # writes $OUT/prediction_check.tar (or ./prediction_check.tar)
#
# Environment: LINKSCOPE (default build/ci/linkscope), NGPUS (default: every GPU nvidia-smi lists).
# With one GPU NCCL copies the buffer itself and never asks its tuner, so there are no TUNING call lines and no
# prediction ("one rank"): the script then checks that the capture asked for them, that nothing breaks, and says so.
# With two or more GPUs it compares, per op and size, what NCCL launched with what the model predicts.
set -u
export NCCL_NVLS_ENABLE=0

here=$(cd "$(dirname "$0")/../.." && pwd)
linkscope=${LINKSCOPE:-$here/build/ci/linkscope}
dest=${OUT:-$PWD}
work=$(mktemp -d)
out=$work/prediction_check
mkdir -p "$out"
ngpus=${NGPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[[ $ngpus -ge 1 ]] || ngpus=1

run() {  # run NAME CMD...: stdout/stderr/exit code under $out
  local name=$1
  shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo "$? $name: $*" >>"$out/exit_codes.txt"
}

{ nvidia-smi -L; nvidia-smi topo -m; } >"$out/nvidia-smi.txt" 2>&1
run version "$linkscope" version
# The live model with its prediction, and NCCL's own topology.
run topo-json "$linkscope" topo --format json
run topo-predict-xml "$linkscope" topo --xml "$here/tests/fixtures/h200x2/nccl-topo-dump.xml" --predict all_reduce
# Every collective NCCL tunes, 8 B .. 1 GiB by 4x, with the log captured (TUNING lines per launch).
for op in all_reduce all_gather reduce_scatter broadcast reduce; do
  run "coll-$op" "$linkscope" coll "$op" -b 8 -e 1G -f 4 -g "$ngpus" --output "$out/coll-$op.json"
done
# The doctor: its hypotheses and the two rules over the same facts.
run doctor "$linkscope" doctor --quick -o "$out/doctor"

python3 - "$out" "$ngpus" >"$out/summary.txt" 2>&1 <<'PY'
import json, os, sys
out, ngpus = sys.argv[1], int(sys.argv[2])
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as e:
        print(f"{name}: cannot read ({e})")
        return None
topo = load("topo-json.out")
pred = (topo or {}).get("model", {})
print("GPUs:", ngpus, "| prediction:", pred.get("prediction"), "| graphs:",
      [(g["graph"], g["n_channels"], g["bw_intra"], g["type_intra"]) for g in pred.get("graphs", [])])
choices = {(c["collective"], c["size_bytes"]): c for c in pred.get("tuning", [])}
agree = differ = 0
for op in ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce"]:
    run = load(f"coll-{op}.json")
    if not run:
        continue
    for r in run.get("runtime", {}).get("runs", []):
        print(f"{op}: runtime status {r.get('status')} nranks {r.get('nranks')} tuning lines {len(r.get('tuning', []))}"
              f" reason {r.get('reason')}")
        for t in r.get("tuning", []):
            c = choices.get((t["collective"], t["size_bytes"]))
            used = f'{t["algorithm"]}/{t["protocol"]}/{t["channels"]}'
            model = f'{c["algorithm"]}/{c["protocol"]}/{c["channels"]}' if c and c.get("algorithm") else "-"
            same = c is not None and c.get("algorithm") == t["algorithm"] and c.get("protocol") == t["protocol"]
            agree += same
            differ += not same
            print(f"  {t['collective']:15} {t['size_bytes']:>11} used {used:22} model {model:22} calls {t['calls']}")
    for s in run.get("measurements", {}).get("collectives", []):
        for p in s.get("points", []):
            c = choices.get((op, p["bytes"]))
            if p.get("in_place") or not c or not c.get("busbw_gbps") or p.get("busbw_gbps") is None:
                continue
            print(f"  busbw {op:15} {p['bytes']:>11} measured {p['busbw_gbps']:8.2f} predicted {c['busbw_gbps']:8.2f}"
                  f" ratio {p['busbw_gbps'] / c['busbw_gbps']:.2f}")
print(f"algorithm/protocol: {agree} calls as predicted, {differ} not")
doctor = load("doctor/run.json")
if doctor:
    for h in doctor.get("hypotheses", []):
        if h["id"] == "nccl-model-busbw":
            print("hypothesis nccl-model-busbw:", h["verdict"], "|", h["evidence"])
    print("findings:", [f["id"] for f in doctor.get("findings", [])])
PY

tar -C "$work" -cf "$dest/prediction_check.tar" prediction_check
echo "wrote $dest/prediction_check.tar"
cat "$out/summary.txt"
