#!/usr/bin/env bash
# Checks `linkscope topo` against nvidia-smi on a GPU machine (written for nvidia-h200-x2) and times it.
#
#   bench/device/topo_check.sh OUTPUT_DIR          (binary: $LINKSCOPE, default build/ci/linkscope)
#
# Writes every command's stdout/stderr/exit code under OUTPUT_DIR, then OUTPUT_DIR/summary.txt with one
# PASS/FAIL line per expectation:
#   - linkscope's matrix equals `nvidia-smi topo -m` (ANSI underline removed)
#   - every active NVLink speed equals `nvidia-smi nvlink -s`, and the link counts match
#   - GPU bus ids and UUIDs equal `nvidia-smi -q -x`, CUDA peer access both ways
#   - with CUDA_VISIBLE_DEVICES=1: one CUDA device, every NVML GPU, and the hidden one named with the cause
#   - the synthesized XML gives the same path lines as NCCL's own dump (both through linkscope's model), and
#     as the paths NCCL printed (NET entries missing from NCCL < 2.28.7 are expected)
#   - wall time of `linkscope topo` (5 runs; budget 2 s on 8 GPUs) with and without the NCCL child
set -uo pipefail

out=${1:?usage: topo_check.sh OUTPUT_DIR}
bin=${LINKSCOPE:-build/ci/linkscope}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
mkdir -p "$out"

# run NAME COMMAND... : stdout, stderr and exit code of one command under $out/NAME.*
run() {
  local name=$1
  shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
}

run nvidia-smi-topo-m nvidia-smi topo -m
run nvidia-smi-nvlink-s nvidia-smi nvlink -s
run nvidia-smi-q nvidia-smi -q -x
run nvidia-smi-topo-p2p-r nvidia-smi topo -p2p r
run linkscope-version "$bin" version
run linkscope-topo "$bin" topo
run linkscope-topo-json "$bin" topo --format json
run linkscope-topo-cvd1 env CUDA_VISIBLE_DEVICES=1 "$bin" topo
run linkscope-topo-cvd1-json env CUDA_VISIBLE_DEVICES=1 "$bin" topo --format json
run linkscope-topo-dump-xml "$bin" topo --no-nccl --dump-xml "$out/synthesized-topo.xml"
run linkscope-topo-nccl-log "$bin" topo --format nccl-log

: >"$out/timing.txt"
for mode in "" "--no-nccl"; do
  for i in 1 2 3 4 5; do
    start=$(date +%s.%N)
    "$bin" topo $mode >/dev/null 2>&1
    rc=$?
    end=$(date +%s.%N)
    echo "linkscope topo ${mode:-(with NCCL)} run $i: $(awk "BEGIN { printf \"%.3f\", $end - $start }") s (exit $rc)" >>"$out/timing.txt"
  done
done

python3 - "$out" <<'PY'
import json, os, re, sys
import xml.etree.ElementTree as ET

out = sys.argv[1]
lines = []

def read(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""

def check(ok, what, detail=""):
    lines.append(("PASS" if ok else "FAIL") + ": " + what + (f" ({detail})" if detail and not ok else ""))

strip = lambda text: re.sub(r"\x1b\[[0-9;]*m", "", text)

# 1. the matrix, as printed between its heading and the GPU table
text = read("linkscope-topo.out")
m = re.search(r"Topology \(as nvidia-smi topo -m; GPUn = NVML index\):\n(.*?)\nGPUs:\n", text, re.S)
ours = m.group(1).rstrip("\n") if m else ""
smi = strip(read("nvidia-smi-topo-m.out")).rstrip("\n")
check(ours == smi, "matrix equals nvidia-smi topo -m", "see linkscope-topo.out and nvidia-smi-topo-m.out")

# 2. NVLink speeds
try:
    run = json.loads(read("linkscope-topo-json.out"))
    system = run["system"]
except (ValueError, KeyError) as e:
    check(False, "linkscope topo --format json parses", str(e))
    system = {"gpus": [], "pairs": []}
smi_speeds = {}
gpu = None
for line in read("nvidia-smi-nvlink-s.out").splitlines():
    g = re.match(r"GPU (\d+):", line)
    if g:
        gpu = int(g.group(1))
    s = re.match(r"\s+Link (\d+): ([0-9.]+) GB/s", line)
    if s and gpu is not None:
        smi_speeds[(gpu, int(s.group(1)))] = float(s.group(2))
ours_speeds = {}
for g in system["gpus"]:
    for link in g.get("nvlinks", []):
        if link.get("active") and link.get("speed_gbps") is not None:
            ours_speeds[(g["nvml_index"], link["link"])] = link["speed_gbps"]
check(smi_speeds and ours_speeds == smi_speeds, f"{len(ours_speeds)} active NVLinks with nvidia-smi nvlink -s speeds",
      f"ours {sorted(ours_speeds.items())[:3]}... smi {sorted(smi_speeds.items())[:3]}...")

# 3. bus ids and UUIDs against nvidia-smi -q -x, P2P
try:
    root = ET.fromstring(read("nvidia-smi-q.out"))
    smi_gpus = [(gpu.findtext("pci/pci_bus_id"), gpu.findtext("uuid")) for gpu in root.findall("gpu")]
except ET.ParseError as e:
    smi_gpus = []
canon = lambda bdf: bdf.lower()[-12:] if bdf else ""
ours_gpus = [(g["pci_bdf"], g["uuid"]) for g in sorted(system["gpus"], key=lambda g: g["nvml_index"])]
check(smi_gpus and [(canon(b), u) for b, u in smi_gpus] == [(canon(b), u) for b, u in ours_gpus],
      "GPU bus ids and UUIDs equal nvidia-smi -q -x", f"ours {ours_gpus} smi {smi_gpus}")
peer = [p.get("cuda_peer_access") for p in system["pairs"]]
check(peer and all(peer), "CUDA peer access in every direction", str(peer))
nvml_p2p = [p.get("nvml_p2p", {}) or {} for p in system["pairs"]]
check(nvml_p2p and all(x.get("read") == "OK" and x.get("write") == "OK" for x in nvml_p2p), "NVML P2P read and write OK both ways")

# 4. CUDA_VISIBLE_DEVICES=1
try:
    cvd = json.loads(read("linkscope-topo-cvd1-json.out"))["system"]
    vis = cvd["visibility"]
    check(vis["cuda_device_count"] == 1 and vis["nvml_gpu_count"] == len(smi_gpus), "CUDA_VISIBLE_DEVICES=1: 1 CUDA device, all NVML GPUs",
          json.dumps(vis))
    check(any("CUDA_VISIBLE_DEVICES=1" in h["reason"] for h in vis["hidden"]), "the hidden GPU is named with its cause", json.dumps(vis))
except (ValueError, KeyError) as e:
    check(False, "CUDA_VISIBLE_DEVICES=1 linkscope topo --format json parses", str(e))

# 5. synthesized vs NCCL
nccl = system.get("nccl_topology", {})
check(nccl.get("status") == "ok", f"NCCL {nccl.get('nccl_version', '?')} built its topology in the child", nccl.get("reason", ""))
dump = nccl.get("versus_nccl_dump") or {}
check(dump.get("identical") is True, "synthesized XML and NCCL's dump give identical path lines", json.dumps(dump)[:400])
log = nccl.get("versus_nccl_log") or {}
check(log.get("equivalent") is True, "linkscope's paths equal the paths NCCL printed (version differences explained)", json.dumps(log)[:400])
check(read("linkscope-topo-dump-xml.rc").strip() == "0" and os.path.getsize(os.path.join(out, "synthesized-topo.xml")) > 0
      if os.path.exists(os.path.join(out, "synthesized-topo.xml")) else False, "--dump-xml wrote the synthesized XML")
for name in ["linkscope-topo", "linkscope-topo-json", "linkscope-topo-cvd1", "linkscope-topo-nccl-log"]:
    check(read(name + ".rc").strip() == "0", f"{name} exited 0", read(name + ".err").strip()[:300])

with open(os.path.join(out, "summary.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
    f.write(read("timing.txt"))
print("\n".join(lines))
print(read("timing.txt"), end="")
PY
