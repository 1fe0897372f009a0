#!/usr/bin/env bash
# nvbandwidth v0.8 and `linkscope p2p --testcase` side by side on one GPU machine, in one device call (~3-5 min on
# 1 x H200): builds nvbandwidth from a source copy the caller brings (never committed here), runs every testcase
# that one GPU can run in both tools, twice each and alternating, plus the kernels' device tests, and packs the raw
# outputs and a ratio table into ONE tar under $OUT (or OUT_DIR).
#
#   bench/device/nvbandwidth_side_by_side.sh NVBANDWIDTH_SRC [OUT_DIR]
#     NVBANDWIDTH_SRC  a checkout of github.com/NVIDIA/nvbandwidth at tag v0.8 (its top folder: nvbandwidth.cpp ...)
#     OUT_DIR          default $OUT, else ./nvbandwidth-side-by-side
#   env: LINKSCOPE (default build/ci/linkscope), DEVICE_TESTS (default build/ci/tests/linkscope_device_tests),
#        BUFFER (MiB per copy, default 512 = nvbandwidth's default), CUDA_HOME (default /usr/local/cuda)
#
# nvbandwidth needs nvml.h and Boost.Program_options, which the GPU image may lack: the script writes, into a
# temporary folder, a header declaring the five NVML functions nvbandwidth calls (their ABI values as
# src/discover/nvml_api.hpp has them) and, when Boost.Program_options cannot be linked, a small stand-in for the part of
# program_options nvbandwidth's main() uses. Both are written here, at run time, by this script.
#
# What comes back (nvbandwidth_side_by_side.tar): nvbandwidth-{1,2}.txt, linkscope-{1,2}.txt/.json/.log,
# device-tests.txt, build.log, machine.txt, ratios.txt (every SUM key of both tools: linkscope / nvbandwidth per
# run, bandwidth higher is better, latency lower is better; the acceptance line is >= 0.99 for bandwidth and
# <= 1.00 for latency).
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0

src=${1:?usage: nvbandwidth_side_by_side.sh NVBANDWIDTH_SRC [OUT_DIR]}
src=$(cd "$src" && pwd) || exit 2
out_root=${2:-${OUT:-nvbandwidth-side-by-side}}
work=$(mktemp -d)
out=$work/nvbandwidth_side_by_side
mkdir -p "$out" "$out_root"
LINKSCOPE=${LINKSCOPE:-build/ci/linkscope}
DEVICE_TESTS=${DEVICE_TESTS:-build/ci/tests/linkscope_device_tests}
BUFFER=${BUFFER:-512}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
started=$(date +%s)
log() { echo "nvbandwidth_side_by_side: [$(( $(date +%s) - started )) s] $*" >&2; }
pack() {
  tar -C "$work" -cf "$out_root/nvbandwidth_side_by_side.tar" nvbandwidth_side_by_side
  log "wrote $out_root/nvbandwidth_side_by_side.tar"
}
trap pack EXIT

{ nvidia-smi; nvidia-smi topo -m; "$LINKSCOPE" version; nproc; } > "$out/machine.txt" 2>&1

# ---- nvbandwidth: build from the caller's source --------------------------------------------------------------
inc=$work/include
mkdir -p "$inc/boost"
cat > "$inc/nvml.h" <<'EOF'
/* The NVML declarations nvbandwidth v0.8 uses, written by linkscope's bench/device/nvbandwidth_side_by_side.sh. */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
typedef int nvmlReturn_t;
enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3 };
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
typedef struct nvmlDevice_st* nvmlDevice_t;
#define nvmlInit nvmlInit_v2
nvmlReturn_t nvmlInit_v2(void);
const char* nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t device);
#ifdef __cplusplus
}
#endif
EOF
# The stand-in unless Boost.Program_options can be linked too (the GPU image has Boost's headers but not the
# library: the first run failed to link).
boost_lib=
if [ -e /usr/include/boost/program_options.hpp ] && ldconfig -p | grep -q 'libboost_program_options\.so '; then
  boost_lib=-lboost_program_options
else
  # The calls nvbandwidth's main() makes: options_description with add_options()(...) and add(), value<T>(&v) with
  # default_value and multitoken, bool_switch, variables_map::count, store, notify, parse_command_line, and
  # printing the options for --help. Long names ("--testcase x y") and short ones ("-t x"), as Boost parses them.
  cat > "$inc/boost/program_options.hpp" <<'EOF'
// Stand-in for the part of Boost.Program_options nvbandwidth v0.8 uses; written by linkscope's
// bench/device/nvbandwidth_side_by_side.sh where the GPU image has no Boost headers. nvbandwidth.cpp relies on
// Boost's headers for <algorithm> (find_if) and <unistd.h> (gethostname), so this includes them too.
#pragma once
#include <unistd.h>
#include <algorithm>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
namespace boost { namespace program_options {
struct value_semantic {
  virtual ~value_semantic() = default;
  virtual bool takes_value() const = 0;
  virtual bool many() const { return false; }
  virtual void set(const std::vector<std::string>& words) = 0;
  virtual void set_default() = 0;
};
template <typename T> struct typed_value : value_semantic {
  explicit typed_value(T* target) : target_(target) {}
  typed_value* default_value(const T& v) { default_ = v; has_default_ = true; return this; }
  typed_value* multitoken() { many_ = true; return this; }
  bool takes_value() const override { return true; }
  bool many() const override { return many_; }
  void set(const std::vector<std::string>& words) override {
    if (words.empty()) throw std::runtime_error("missing value");
    std::istringstream in(words.back());
    if (!(in >> *target_)) throw std::runtime_error("bad value " + words.back());
  }
  void set_default() override { if (has_default_) *target_ = default_; }
  T* target_; T default_{}; bool has_default_ = false, many_ = false;
};
template <> inline void typed_value<std::vector<std::string>>::set(const std::vector<std::string>& words) {
  target_->insert(target_->end(), words.begin(), words.end());
}
struct bool_value : value_semantic {
  explicit bool_value(bool* target) : target_(target) {}
  bool_value* default_value(bool v) { *target_ = v; return this; }
  bool takes_value() const override { return false; }
  void set(const std::vector<std::string>&) override { *target_ = true; }
  void set_default() override {}
  bool* target_;
};
template <typename T> typed_value<T>* value(T* target) { return new typed_value<T>(target); }
inline bool_value* bool_switch(bool* target) { return new bool_value(target); }
struct option { std::string long_name, short_name, help; std::shared_ptr<value_semantic> semantic; };
class options_description {
 public:
  explicit options_description(std::string caption = "") : caption_(std::move(caption)) {}
  struct adder {
    options_description* d;
    adder& operator()(const char* names, const char* help) { d->add_one(names, nullptr, help); return *this; }
    adder& operator()(const char* names, value_semantic* s, const char* help) { d->add_one(names, s, help); return *this; }
  };
  adder add_options() { return adder{this}; }
  options_description& add(const options_description& other) {
    options_.insert(options_.end(), other.options_.begin(), other.options_.end());
    return *this;
  }
  const std::vector<option>& options() const { return options_; }
  const std::string& caption() const { return caption_; }
 private:
  void add_one(const std::string& names, value_semantic* s, const char* help) {
    option o;
    const auto comma = names.find(',');
    o.long_name = names.substr(0, comma);
    if (comma != std::string::npos) o.short_name = names.substr(comma + 1);
    o.help = help;
    o.semantic.reset(s);
    options_.push_back(o);
  }
  std::string caption_;
  std::vector<option> options_;
};
inline std::ostream& operator<<(std::ostream& os, const options_description& d) {
  os << d.caption() << ":\n";
  for (const auto& o : d.options()) {
    os << "  " << (o.short_name.empty() ? "" : "-" + o.short_name + " [ ") << "--" << o.long_name
       << (o.short_name.empty() ? "" : " ]") << "    " << o.help << "\n";
  }
  return os;
}
struct parsed_options { std::vector<std::pair<const option*, std::vector<std::string>>> items; const options_description* d; };
inline parsed_options parse_command_line(int argc, char** argv, const options_description& d) {
  parsed_options p{{}, &d};
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    const option* found = nullptr;
    for (const auto& o : d.options()) {
      if (word == "--" + o.long_name || (!o.short_name.empty() && word == "-" + o.short_name)) found = &o;
    }
    if (found == nullptr) throw std::runtime_error("unknown option " + word);
    std::vector<std::string> words;
    if (found->semantic && found->semantic->takes_value()) {
      while (i + 1 < argc && argv[i + 1][0] != '-') {
        words.push_back(argv[++i]);
        if (!found->semantic->many()) break;
      }
      if (words.empty()) throw std::runtime_error("missing value for " + word);
    }
    p.items.emplace_back(found, words);
  }
  return p;
}
class variables_map {
 public:
  std::size_t count(const std::string& name) const { return given_.count(name); }
  std::set<std::string> given_;
  const options_description* d = nullptr;
};
inline void store(const parsed_options& p, variables_map& vm) {
  vm.d = p.d;
  for (const auto& [o, words] : p.items) {
    vm.given_.insert(o->long_name);
    if (o->semantic) o->semantic->set(words);
  }
}
inline void notify(variables_map& vm) {
  for (const auto& o : vm.d->options()) {
    if (o.semantic && !vm.count(o.long_name)) o.semantic->set_default();
  }
}
} }  // namespace boost::program_options
EOF
fi
nvml_dir=$(dirname "$(ldconfig -p | awk '/libnvidia-ml.so.1 /{print $NF; exit}')")
bin=$work/nvbandwidth
log "building nvbandwidth from $src (NVML from $nvml_dir)"
(
  cd "$work" || exit 1
  pids=()
  # As nvbandwidth's CMakeLists: C++17, Release (-O3), kernels.cu by nvcc for this GPU (sm_90), the rest by g++.
  "$CUDA_HOME/bin/nvcc" -std=c++17 -O3 -arch=sm_90 -I"$inc" -I"$src" -c "$src/kernels.cu" -o "$work/kernels.cu.o" &
  pids+=($!)
  for f in testcase.cpp testcases_ce.cpp testcases_sm.cpp memcpy.cpp nvbandwidth.cpp multinode_memcpy.cpp \
           multinode_testcases.cpp output.cpp json_output.cpp json/jsoncpp.cpp; do
    g++ -std=c++17 -O3 -I"$inc" -I"$src" -I"$CUDA_HOME/include" -DGIT_VERSION='"v0.8"' \
      -c "$src/$f" -o "$work/$(basename "$f").o" &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  [ $rc -eq 0 ] || exit 1
  "$CUDA_HOME/bin/nvcc" -arch=sm_90 -o "$bin" "$work"/*.o -L"$CUDA_HOME/lib64/stubs" -lcuda -L"$nvml_dir" \
    -l:libnvidia-ml.so.1 $boost_lib
) > "$out/build.log" 2>&1 || { log "nvbandwidth did not build (see build.log)"; exit 1; }

# ---- the runs --------------------------------------------------------------------------------------------------
# Every testcase of the table; the device-to-device ones are waived on one GPU by both tools.
testcases=$("$LINKSCOPE" p2p --list-testcases | sed -n 's/^[0-9]*, \(.*\):$/\1/p')
# nvbandwidth binds itself to each GPU's NUMA node before allocating host memory; linkscope is given that node.
bdf=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i 0 | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
node=$(cat "/sys/bus/pci/devices/$bdf/numa_node" 2>/dev/null || echo -1)
cpu_node=()
[ "$node" -ge 0 ] 2>/dev/null && cpu_node=(--cpu-node "$node")
ls_args=()
for t in $testcases; do ls_args+=(--testcase "$t"); done
status=0
for round in 1 2; do
  log "round $round: linkscope"
  "$LINKSCOPE" p2p "${ls_args[@]}" --buffer-size "${BUFFER}M" "${cpu_node[@]}" --output "$out/linkscope-$round.json" \
    > "$out/linkscope-$round.txt" 2> "$out/linkscope-$round.log" || { status=1; log "linkscope exit $?"; }
  log "round $round: nvbandwidth"
  "$bin" -b "$BUFFER" > "$out/nvbandwidth-$round.txt" 2>&1 || { status=1; log "nvbandwidth exit $?"; }
done
log "device tests"
"$DEVICE_TESTS" --gtest_filter='P2pTestcase.*:P2pLatency.*' > "$out/device-tests.txt" 2>&1 || status=1

# ---- ratios: every "SUM key value" line of both tools ------------------------------------------------------------
python3 - "$out" > "$out/ratios.txt" <<'EOF'
import re, sys, os
out = sys.argv[1]
def sums(path):
    found = {}
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            m = re.match(r"^SUM (\S+) ([0-9.eE+-]+)$", line.strip())
            if m:
                found[m.group(1)] = float(m.group(2))
    return found
runs = [(sums(f"{out}/linkscope-{r}.txt"), sums(f"{out}/nvbandwidth-{r}.txt")) for r in (1, 2)]
keys = sorted(set().union(*[set(a) | set(b) for a, b in runs]))
print(f"{'SUM key (1 GPU: the one cell)':<48} {'linkscope 1':>11} {'nvbw 1':>9} {'ratio 1':>8} "
      f"{'linkscope 2':>11} {'nvbw 2':>9} {'ratio 2':>8}  verdict")
worst = {}
for k in keys:
    latency = "latency" in k
    cells, verdict = [], "ok"
    for a, b in runs:
        x, y = a.get(k), b.get(k)
        r = x / y if x and y else None
        cells += [f"{x:11.2f}" if x is not None else f"{'-':>11}", f"{y:9.2f}" if y is not None else f"{'-':>9}",
                  f"{r:8.4f}" if r is not None else f"{'-':>8}"]
        if r is None:
            verdict = "missing"
        elif (latency and r > 1.00) or (not latency and r < 0.99):
            verdict = "BELOW TARGET" if verdict == "ok" else verdict
    print(f"{k:<48} {' '.join(cells)}  {verdict}{' (ns: lower is better)' if latency else ''}")
EOF
cat "$out/ratios.txt"
log "done (status $status)"
exit $status
