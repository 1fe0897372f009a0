#!/usr/bin/env python3
"""Writes the fault corpus's bases and cases (tests/corpus, see README.md) from the captures in tests/fixtures.

Run from anywhere: python3 tests/corpus/make_corpus.py (stdlib only; rewrites bases/*.json and cases/*.json).
A base is a whole Run document; a case is a base plus an RFC 6902 JSON patch that plants one fault (or an NCCL
topology XML with --env). What each case should produce is in manifest.tsv, not here. Numbers come from captures
or published measurements named beside them; planted values say SYNTHETIC.
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "..", "fixtures", "runs")
MiB = 1024 * 1024
GiB = 1024 * MiB


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write(path, document):
    with open(os.path.join(HERE, path), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1)
        f.write("\n")


def host_point(gpu, direction, gbps, bytes_=256 * MiB, method="ce", both=False):
    return {"gpu": gpu, "direction": direction, "method": method, "bidirectional": both, "bytes": bytes_,
            "bandwidth_gbps": {"median": gbps}, "cv": 0.002, "wrong": 0, "status": "ok", "reason": None}


def local_copy(gpu, bytes_, gbps):
    return {"src": gpu, "dst": gpu, "method": "ce", "direction": "uni", "bytes": bytes_, "samples": 5,
            "bandwidth_gbps": {"median": gbps}, "cv": 0.003, "wrong": 0, "status": "ok", "reason": None}


def one_gpu_h200():
    """1 x H200 PCIe Gen5 x16, `doctor --quick`: GPU facts of the captured h200x2 GPU0 (nvidia-smi -q); host copies
    h2d 55.4 / d2h 55.3 GB/s at 256 MiB and the local copy 1978.8 GB/s at 1 GiB as measured by linkscope on a real
    one-GPU H200 (issue 12); collectives and the ladder skipped as the doctor records them."""
    healthy = load(os.path.join(RUNS, "h200x2-healthy.json"))
    run = {key: copy.deepcopy(healthy[key]) for key in ("schema_version", "tool", "environment")}
    run["config"] = {"subcommand": "doctor", "argv": ["linkscope", "doctor", "--quick"], "profile": "quick",
                     "host": "h200-1gpu",
                     "skipped": [{"step": "patterns", "reason": "one GPU: no GPU pair to measure"}] +
                                [{"step": "coll " + op,
                                  "reason": "one GPU: a collective over one rank moves no data between GPUs"}
                                 for op in ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv")] +
                                [{"step": "ladder all_reduce",
                                  "reason": "one GPU: a collective over one rank moves no data between GPUs"}]}
    system = copy.deepcopy(healthy["system"])
    system["gpus"] = system["gpus"][:1]
    system["pairs"] = []
    system["cuda"]["device_count"] = 1
    system["visibility"] = {"nvml_gpu_count": 1, "cuda_device_count": 1, "hidden": []}
    run["system"] = system
    run["model"] = {}
    run["runtime"] = {}
    run["measurements"] = {"p2p": {
        "config": {"methods": ["ce", "sm"], "sizes_bytes": [4096, 65536, MiB, 16 * MiB, 256 * MiB, GiB]},
        "points": [local_copy(0, GiB, 1978.8)],
        "latency": [],
        "host": [host_point(0, "h2d", 55.4), host_point(0, "d2h", 55.3)],
        "notes": ["only one GPU (0): nothing to pair; measured its local copy"]}}
    run["hypotheses"] = []
    run["findings"] = []
    run["errors"] = []
    return run


def one_gpu_gh200():
    """1 x GH200 over C2C (10 x 45 GB/s = 450 GB/s per direction, NCCL's <c2c bw="45000" count="10"/>): host copies
    H2D CE 346, SM 342 GB/s (nvbandwidth#23), D2H CE 301 GB/s (the same report: H2D about 15% above D2H;
    346 / 1.15). SYNTHETIC: the rest of the GPU's facts are the H200's with the GH200's name; no local copy."""
    run = one_gpu_h200()
    gpu = run["system"]["gpus"][0]
    gpu["name"] = "NVIDIA GH200 480GB"
    gpu["c2c"] = {"active_links": 10, "max_bw_gbps": 45.0}
    run["config"]["host"] = "gh200-1gpu"
    run["measurements"]["p2p"]["points"] = []
    run["measurements"]["p2p"]["host"] = [host_point(0, "h2d", 346.0), host_point(0, "h2d", 342.0, method="sm"),
                                          host_point(0, "d2h", 301.0)]
    return run


def telemetry(gpus, steps, processes=(), xids=()):
    """measurements.telemetry the way the doctor's sampler writes it (docs/diagnosis.md, 'Evidence during the run')."""
    doc = {"interval_s": 0.1, "started_at": "2026-12-01T10:00:00Z", "duration_s": 10.0, "passes": 100,
           "doctor_pid": 1000, "own_pids": [1001], "steps": [], "processes": list(processes), "xid_events": list(xids),
           "gpus": [{"nvml_index": g, "cuda_ordinal": g, "pci_bdf": bdf, "uuid": "GPU-%d" % g, "samples": {"t_s": []}}
                    for g, bdf in enumerate(gpus)]}
    for name, start, end, before, after in steps:
        doc["steps"].append({"name": name, "start_s": start, "end_s": end, "pids": [1001],
                             "gpus": [{"nvml_index": g, "before": before[g], "after": after[g]}
                                      for g in range(len(gpus))]})
    return doc


def quiet(counters, gpus):
    return [copy.deepcopy(counters) for _ in range(gpus)]


def case(name, description, base, patch):
    """One planted fault; `description` is what manifest.tsv says of it."""
    del description
    write(os.path.join("cases", name + ".json"), {"base": base, "patch": patch})


H200X2 = "fixtures/runs/h200x2-healthy.json"
ONE = "corpus/bases/h200-1gpu-pcie.json"
NO_MEASUREMENTS = {"op": "replace", "path": "/measurements", "value": {}}


def main():
    write("bases/h200-1gpu-pcie.json", one_gpu_h200())
    write("bases/gh200-1gpu-c2c.json", one_gpu_gh200())
    one_bdf = ["0000:00:06.0"]
    two_bdf = ["0000:00:06.0", "0000:00:07.0"]

    case("driver-module-not-loaded", "no NVIDIA driver: NVML and CUDA both fail; sysfs shows the GPU", ONE, [
        {"op": "replace", "path": "/system/driver",
         "value": {"available": False, "reason": "libnvidia-ml.so.1: cannot open shared object file"}},
        {"op": "replace", "path": "/system/cuda",
         "value": {"available": False, "device_count": 0,
                   "reason": "cudaGetDeviceCount: no CUDA-capable device is detected (cudaErrorNoDevice)"}},
        {"op": "replace", "path": "/system/gpus", "value": []},
        {"op": "add", "path": "/system/pci_display_devices",
         "value": [{"pci_bdf": "0000:00:06.0", "class": "0x030200", "vendor": "0x10de", "device": "0x2335",
                    "current_link_speed": "32.0 GT/s PCIe", "current_width": 16}]},
        NO_MEASUREMENTS])
    case("nvml-missing-cuda-works", "LINKSCOPE_NVML_LIBRARY=/nonexistent: CUDA measured, NVML's facts missing", ONE, [
        {"op": "replace", "path": "/system/driver",
         "value": {"available": False, "reason": "/nonexistent: cannot open shared object file"}}])
    case("nvls-fabric-manager-not-running", "2 x H200 on NVSwitch: NVML fabric state not_started on both GPUs, "
         "nv-fabricmanager not running (SYNTHETIC fabric facts)", H200X2, [
        {"op": "add", "path": "/system/gpus/0/fabric",
         "value": {"state": "not_started", "status": "Success", "status_ok": True, "clique_id": 0,
                   "cluster_uuid": "0" * 32, "health_mask": None, "health_mask_reason": "not read"}},
        {"op": "add", "path": "/system/gpus/1/fabric",
         "value": {"state": "not_started", "status": "Success", "status_ok": True, "clique_id": 0,
                   "cluster_uuid": "0" * 32, "health_mask": None, "health_mask_reason": "not read"}},
        {"op": "add", "path": "/system/nvidia_services", "value": ["nvidia-persiste"]}])
    case("cuda-sees-fewer-gpus-unexplained", "NVML sees 2 GPUs, CUDA 1, no mask and no MIG", H200X2, [
        {"op": "replace", "path": "/system/visibility/cuda_device_count", "value": 1}])
    case("mig-enabled-without-instances", "MIG on GPU0: CUDA lists 7 instances where NVML lists 2 GPUs", H200X2, [
        {"op": "replace", "path": "/system/visibility/cuda_device_count", "value": 7},
        {"op": "replace", "path": "/system/gpus/0/mig_mode", "value": "enabled"}])
    case("nvlink-inactive-on-gpu1", "GPU1 with 17 of 18 NVLinks active", H200X2, [
        {"op": "replace", "path": "/system/gpus/1/nvlinks/17/active", "value": False}])
    case("pcie-trained-x8", "GPU0's PCIe link trained to x8 of x16; host copies at half (SYNTHETIC 55.4 / 2)", ONE, [
        {"op": "replace", "path": "/system/gpus/0/pcie/current_width", "value": 8},
        {"op": "replace", "path": "/measurements/p2p/host/0/bandwidth_gbps/median", "value": 27.7},
        {"op": "replace", "path": "/measurements/p2p/host/1/bandwidth_gbps/median", "value": 27.65}])
    case("peer-access-off-on-nvlink", "CUDA reports no peer access on the NV18 pair", H200X2, [
        {"op": "replace", "path": "/system/pairs/0/cuda_peer_access", "value": False}])
    case("ecc-uncorrected-volatile", "a volatile uncorrected ECC error on GPU1", H200X2, [
        {"op": "replace", "path": "/system/gpus/1/ecc/volatile_uncorrected", "value": 1}])
    case("ecc-uncorrected-lifetime", "2 uncorrected ECC errors over the one GPU's life, none since boot", ONE, [
        {"op": "replace", "path": "/system/gpus/0/ecc/aggregate_uncorrected", "value": 2}])
    case("xid-79-during-p2p", "Xid 79 (GPU fallen off the bus) reported during the p2p step", ONE, [
        {"op": "add", "path": "/measurements/telemetry", "value": telemetry(
            one_bdf, [("p2p", 0.5, 4.0, quiet({"pcie_replay": 0}, 1), quiet({"pcie_replay": 0}, 1))],
            xids=[{"t_s": 2.5, "nvml_index": 0, "xid": 79, "step": 0}])}])
    case("pcie-replays-during-p2p", "the PCIe replay counter grew by 37 during p2p", ONE, [
        {"op": "add", "path": "/measurements/telemetry", "value": telemetry(
            one_bdf, [("p2p", 0.5, 4.0, quiet({"pcie_replay": 0}, 1), [{"pcie_replay": 37}])])}])
    case("pcie-aer-fatal-during-p2p", "a fatal PCIe AER error counted during p2p", ONE, [
        {"op": "add", "path": "/measurements/telemetry", "value": telemetry(
            one_bdf, [("p2p", 0.5, 4.0, quiet({"pcie_replay": 0, "aer_fatal": 0}, 1),
                       [{"pcie_replay": 0, "aer_fatal": 1}])])}])
    links = [{"link": 3, "replay": 0, "recovery": 0, "crc_flit": 10}]
    grown = [{"link": 3, "replay": 0, "recovery": 0, "crc_flit": 250}]
    case("nvlink-crc-during-p2p", "NVLink CRC flit errors +240 on GPU1 link 3 during p2p", H200X2, [
        {"op": "add", "path": "/measurements/telemetry", "value": telemetry(
            two_bdf, [("p2p", 0.5, 4.0, quiet({"pcie_replay": 0, "nvlinks": links}, 2),
                       [{"pcie_replay": 0, "nvlinks": links}, {"pcie_replay": 0, "nvlinks": grown}])])}])
    case("local-copy-wrong-data", "the local copy delivered 12 wrong words", ONE, [
        {"op": "replace", "path": "/measurements/p2p/points/0/status", "value": "wrong"},
        {"op": "replace", "path": "/measurements/p2p/points/0/wrong", "value": 12}])
    case("thermal-slowdown", "GPU0 held down by HW thermal slowdown", H200X2, [
        {"op": "replace", "path": "/system/gpus/0/throttle_reasons", "value": ["hw_thermal_slowdown"]}])
    case("nccl-newer-than-modelled", "the run loaded NCCL 2.31.2, newer than every release modelled (SYNTHETIC)",
         H200X2, [
        {"op": "add", "path": "/model/nccl_version", "value": "2.31.2"},
        {"op": "add", "path": "/model/nccl_version_modelled", "value": "2.29.7"},
        {"op": "add", "path": "/model/nccl_version_from", "value": "the libnccl NCCL's topology child loaded"},
        {"op": "add", "path": "/model/nccl_version_note", "value":
            "NCCL 2.31.2 is not modelled exactly; modelled as NCCL 2.29.7 (the nearest version modelled), so "
            "predictions may differ from what it does"}])
    case("power-cap-only", "GPU0 at its software power cap (information)", ONE, [
        {"op": "replace", "path": "/system/gpus/0/throttle_reasons", "value": ["sw_power_cap"]}])
    case("shm-where-p2p-allowed", "NCCL connected the NV18 pair through SHM without any variable asking", H200X2, [
        {"op": "replace", "path": "/runtime/runs/0/connections/%d/transport" % c, "value": "SHM/direct/direct"}
        for c in range(len(load(os.path.join(RUNS, "h200x2-healthy.json"))["runtime"]["runs"][0]["connections"]))])
    case("foreign-process-one-gpu", "python3 (pid 519) on the one GPU during p2p, seen by the sampler", ONE, [
        {"op": "add", "path": "/measurements/telemetry", "value": telemetry(
            one_bdf, [("p2p", 0.5, 4.0, quiet({"pcie_replay": 0}, 1), quiet({"pcie_replay": 0}, 1))],
            processes=[{"pid": 519, "name": "python3", "nvml_index": 0, "owner": None, "visible": True,
                        "first_seen_s": 1.0, "last_seen_s": 4.0, "samples": 30, "steps": [0],
                        "samples_outside_steps": 0, "max_used_memory_bytes": 2 * GiB}])}])
    held = int(137.8 * GiB)
    idle_holder = telemetry(one_bdf, [("p2p", 2.0, 6.0, quiet({"pcie_replay": 0}, 1), quiet({"pcie_replay": 0}, 1))])
    idle_holder["gpus"][0]["samples"] = {
        "t_s": [1.2, 1.3, 1.4], "span_s": [0.1, 0.1, 0.1], "step": [None, None, None],
        "gpu_util_percent": [0, 0, 0], "memory_used_bytes": [held, held, held]}
    case("idle-process-holds-most-memory", "an idle process (none NVML lists, as in the VM) holds 137.8 GiB of the "
         "one H200's memory before p2p; the 4 GiB local copy did not fit (as seen live, 2026-12-02)", ONE, [
        {"op": "add", "path": "/measurements/telemetry", "value": idle_holder},
        {"op": "add", "path": "/measurements/p2p/points/-", "value": {
            "src": 0, "dst": 0, "method": "ce", "direction": "uni", "bytes": 4 * GiB, "samples": 0,
            "bandwidth_gbps": None, "cv": None, "wrong": 0, "status": "na",
            "reason": "local copy needs 8.5 GiB on GPU 0 (8.0 GiB for buffers + 0.5 GiB kept for the CUDA context), "
                      "but only 2.2 GiB is free"}}])
    def soak(values, widths=None, crc=None):
        metric = ('linkscope_collective_bus_bandwidth_bytes_per_second{gpu="all",op="all_reduce",size="268435456",'
                  'dtype="float",redop="sum",ranks="2"}')
        cycles = []
        for i, gbps in enumerate(values):
            states = {"GPU0 PCIe width": "16", "GPU1 PCIe width": widths[i] if widths else "16",
                      "GPU0 active NVLinks": "18", "GPU1 active NVLinks": "18"}
            counters = {"GPU0 NVLink 3 CRC flit errors": crc[i] if crc else 0, "GPU0 NVLink 3 replay errors": 0}
            cycles.append({"index": i, "start_s": 40.0 * i, "seconds": 38.5, "metrics": {metric: gbps * 1e9},
                           "states": states, "counters": counters, "findings": []})
        return {"requested_s": 40.0 * len(values), "ended": "duration reached", "cycles": cycles}
    case("soak-all-reduce-steps-down", "doctor --soak: all_reduce 256 MiB busbw 360 GB/s for 3 cycles, then 270 "
         "(SYNTHETIC)", H200X2, [
        {"op": "add", "path": "/measurements/soak", "value": soak([360.2, 361.0, 359.8, 270.4, 271.1, 269.9])}])
    case("soak-gpu1-pcie-width-flaps", "doctor --soak: GPU1's PCIe link trained x16, then x8 in cycle 2, x16 again "
         "(SYNTHETIC)", H200X2, [
        {"op": "add", "path": "/measurements/soak", "value": soak([360.2, 361.0, 359.8, 360.5],
                                                                   ["16", "16", "8", "16"])}])
    case("soak-gpu0-nvlink-errors-grow", "doctor --soak: GPU0's NVLink 3 CRC flit errors 0, 0, 12, 40 over the "
         "cycles, the link up all along (SYNTHETIC)", H200X2, [
        {"op": "add", "path": "/measurements/soak", "value": soak([360.2, 361.0, 359.8, 360.5], None, [0, 0, 12, 40])}])
    case("sm-read-one-direction-slow", "SM read 1->0 at 512 MiB 300.0 GB/s against 376.2 (SYNTHETIC)", H200X2, [
        {"op": "replace", "path": "/measurements/p2p/points/13/bandwidth_gbps/median", "value": 300.0}])
    case("ce-copies-far-below-link", "CE copies both ways at 512 MiB 250.0 GB/s of 478.1 (SYNTHETIC)", H200X2, [
        {"op": "replace", "path": "/measurements/p2p/points/10/bandwidth_gbps/median", "value": 250.0},
        {"op": "replace", "path": "/measurements/p2p/points/11/bandwidth_gbps/median", "value": 250.0}])
    case("hosts-differ-in-driver", "under MPI: node-b runs another driver", H200X2, [
        {"op": "add", "path": "/system/host_differences", "value": [
            {"trait": "driver", "label": "NVIDIA driver", "common_value": "580.159.04", "common_hosts": ["node-a"],
             "others": [{"host": "node-b", "value": "570.86.15"}]}]}])
    case("cross-host-pair-timeout", "under MPI: the sendrecv between node-a and node-b timed out", H200X2, [
        {"op": "add", "path": "/measurements/cross_host", "value": {
            "hosts": ["node-a", "node-b"], "schedule": "rounds", "sizes_bytes": [GiB],
            "pairs": [{"round": 0, "a": {"host": "node-a", "rank": 0}, "b": {"host": "node-b", "rank": 2},
                       "status": "timeout", "reason": "no progress for 60 s", "bytes": GiB, "bandwidth_gbps": None}],
            "all_reduce": {"status": "not run"}, "slow": [], "notes": []}}])
    case("nccl-library-missing", "LINKSCOPE_NCCL_LIBRARY=/nonexistent: no collective could run", H200X2, [
        {"op": "add", "path": "/environment/nccl_unavailable", "value": "/nonexistent: cannot open shared object file"},
        {"op": "remove", "path": "/measurements/collectives"},
        {"op": "remove", "path": "/measurements/ladder"},
        {"op": "add", "path": "/config/skipped", "value": [
            {"step": "coll all_reduce", "reason": "NCCL: /nonexistent: cannot open shared object file"}]}])
    case("interrupted-during-collectives", "Ctrl-C during coll all_gather", H200X2, [
        {"op": "add", "path": "/config/stopped", "value": "interrupted (SIGINT) during coll all_gather, 3 of 9 steps done"}])
    case("host-link-gen4-under-load", "h2d/d2h at half the Gen5 rate (a link running Gen4 under load, SYNTHETIC)", ONE, [
        {"op": "replace", "path": "/measurements/p2p/host/0/bandwidth_gbps/median", "value": 27.7},
        {"op": "replace", "path": "/measurements/p2p/host/1/bandwidth_gbps/median", "value": 27.65}])
    case("host-link-outlier-gpu", "H2D 14.2 GB/s on one GPU (nvbandwidth#6's outlier)", ONE, [
        {"op": "replace", "path": "/measurements/p2p/host/0/bandwidth_gbps/median", "value": 14.2}])
    case("host-link-slow-gpu1-of-2", "GPU1's H2D CE 14.2 GB/s while GPU0 reaches 55.2 (multi-GPU host check)", H200X2, [
        {"op": "replace", "path": "/measurements/p2p/host/1/bandwidth_gbps/median", "value": 14.2}])
    case("host-sm-both-ways-slow", "SM copies both ways at 20.0 GB/s per direction (SYNTHETIC)", ONE, [
        {"op": "add", "path": "/measurements/p2p/host/-", "value": host_point(0, "h2d", 20.0, method="sm", both=True)},
        {"op": "add", "path": "/measurements/p2p/host/-", "value": host_point(0, "d2h", 20.0, method="sm", both=True)}])
    case("host-latency-slow", "pointer chase into host memory 4100 ns against 1190 (SYNTHETIC)", ONE, [
        {"op": "add", "path": "/measurements/p2p/latency/-", "value": {
            "src": -1, "dst": 0, "method": "sm_pointer_chase", "bytes": 2 * MiB, "latency_ns": {"median": 4100.0},
            "samples": 5, "cv": 0.01, "status": "ok", "reason": None}}])
    case("outside-fleet-baseline", "CE GPU0->GPU1 at 301.2 GB/s where 24 hosts of its type have median 393.8, "
         "MAD 1.5 (SYNTHETIC fleet)", H200X2, [
        {"op": "add", "path": "/fleet", "value": {
            "baseline": "baseline.json", "host": "vm", "machine_type":
            "2 x NVIDIA H200 | 2 x NVLink 18 @ 26.562 GB/s | NCCL 2.28.3", "type_in_baseline": True,
            "baseline_hosts": 24, "relative_threshold": 0.10, "z_threshold": 3.5, "not_in_baseline": 0,
            "metrics": [{"category": "p2p", "metric": "ce uni NV18 at 512 MiB", "subject": "GPU0->GPU1",
                         "unit": "GB/s", "higher_is_better": True, "value": 301.2,
                         "fleet": {"median": 393.8, "mad": 1.5, "p5": 390.9, "p95": 396.0, "count": 48},
                         "relative": -0.2351, "robust_z": -41.64, "outside": True}]}}])
    case("c2c-host-copies-slow", "GH200 H2D over C2C at 120 GB/s of 450 (SYNTHETIC)", "corpus/bases/gh200-1gpu-c2c.json", [
        {"op": "replace", "path": "/measurements/p2p/host/0/bandwidth_gbps/median", "value": 120.0}])


if __name__ == "__main__":
    main()
