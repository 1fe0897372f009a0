#include "plan/nvbandwidth_testcases.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/text.hpp"

namespace linkscope::plan {

namespace {

using P = TestcasePattern;
constexpr CopyMethod kCe = CopyMethod::kCe;
constexpr CopyMethod kSm = CopyMethod::kSm;
constexpr Initiator kRead = Initiator::kDestination;
constexpr Initiator kWrite = Initiator::kSource;

// nvbandwidth's matrix headings are "memcpy CE|SM <what> bandwidth (GB/s)".
std::string heading(CopyMethod method, std::string_view what) {
  return fmt::format("memcpy {} {} bandwidth (GB/s)", method == kCe ? "CE" : "SM", what);
}

NvbandwidthTestcase one(std::string name, P pattern, CopyMethod method, Initiator initiator, std::string title,
                        std::string summary) {
  NvbandwidthTestcase t{name, pattern, method, initiator, {{name, std::move(title)}}, std::move(summary)};
  return t;
}

NvbandwidthTestcase device_pair(std::string name, CopyMethod method, Initiator initiator, std::string summary) {
  auto t = one(name, P::kDeviceToDevice, method, initiator,
               heading(method, initiator == kRead ? "GPU(row) -> GPU(column)" : "GPU(row) <- GPU(column)"),
               std::move(summary));
  t.all_gpus_rows = true;
  t.min_gpus = 2;
  return t;
}

// Three matrices: each direction ("Read1"/"Read2" or "Write1"/"Write2") and their sum ("Total").
NvbandwidthTestcase device_bidir(std::string name, CopyMethod method, Initiator initiator, std::string summary) {
  const std::string word = initiator == kRead ? "Read" : "Write";
  const std::string lower = initiator == kRead ? "read" : "write";
  NvbandwidthTestcase t{name, P::kDeviceToDeviceBidir, method, initiator, {}, std::move(summary)};
  for (const auto& [suffix, label] : {std::pair{lower + "1", word + "1"}, std::pair{lower + "2", word + "2"},
                                      std::pair{std::string("total"), std::string("Total")}}) {
    t.matrices.push_back({name + "_" + suffix, heading(method, "GPU(row) <-> GPU(column) " + label)});
  }
  t.all_gpus_rows = true;
  t.min_gpus = 2;
  return t;
}

NvbandwidthTestcase fan(std::string name, P pattern, CopyMethod method, Initiator initiator, std::string arrow,
                        std::string summary) {
  auto t = one(name, pattern, method, initiator, heading(method, "GPU(row) " + arrow + " GPU(column)"),
               std::move(summary));
  t.min_gpus = 2;
  return t;
}

// In nvbandwidth's order (its --list indices): the CE testcases, the SM ones, then the latency and local ones.
std::vector<NvbandwidthTestcase> build_table() {
  const std::string to = "CPU(row) -> GPU(column)", from = "CPU(row) <- GPU(column)", both = "CPU(row) <-> GPU(column)";
  std::vector<NvbandwidthTestcase> t;
  for (CopyMethod m : {kCe, kSm}) {
    const std::string suffix = m == kCe ? "_ce" : "_sm";
    const std::string how = m == kCe ? "the copy engine" : "a copy kernel";
    const std::string bidir_how = m == kCe ? "while the opposite copy (twice the bytes) runs on the same GPU"
                                           : "by one kernel moving alternate 512-byte segments each way";
    t.push_back(one("host_to_device_memcpy" + suffix, P::kHostToDevice, m, kRead, heading(m, to),
                    "pinned host -> each GPU by " + how + ", one GPU at a time"));
    t.push_back(one("device_to_host_memcpy" + suffix, P::kDeviceToHost, m, kRead, heading(m, from),
                    "each GPU -> pinned host by " + how + ", one GPU at a time"));
    t.push_back(one("host_to_device_bidirectional_memcpy" + suffix, P::kHostToDeviceBidir, m, kRead, heading(m, both),
                    "host -> GPU measured " + bidir_how));
    t.push_back(one("device_to_host_bidirectional_memcpy" + suffix, P::kDeviceToHostBidir, m, kRead, heading(m, both),
                    "GPU -> host measured " + bidir_how));
    t.push_back(device_pair("device_to_device_memcpy_read" + suffix, m, kRead,
                            "the row GPU's " + how + " pulls from the column GPU, one pair at a time"));
    t.push_back(device_pair("device_to_device_memcpy_write" + suffix, m, kWrite,
                            "the row GPU's " + how + " pushes to the column GPU, one pair at a time"));
    t.push_back(device_bidir("device_to_device_bidirectional_memcpy_read" + suffix, m, kRead,
                             "both directions of a pair at once, each pulled by its destination"));
    t.push_back(device_bidir("device_to_device_bidirectional_memcpy_write" + suffix, m, kWrite,
                             "both directions of a pair at once, each pushed by its source"));
    t.push_back(one("all_to_host_memcpy" + suffix, P::kAllToHost, m, kRead, heading(m, from),
                    "GPU -> host measured while every other GPU also copies to the host"));
    t.push_back(one("all_to_host_bidirectional_memcpy" + suffix, P::kAllToHostBidir, m, kRead, heading(m, both),
                    "GPU -> host measured while host -> GPU and the other GPUs' copies both ways run"));
    t.push_back(one("host_to_all_memcpy" + suffix, P::kHostToAll, m, kRead, heading(m, to),
                    "host -> GPU measured while the host also copies to every other GPU"));
    t.push_back(one("host_to_all_bidirectional_memcpy" + suffix, P::kHostToAllBidir, m, kRead, heading(m, both),
                    "host -> GPU measured while GPU -> host and the other GPUs' copies both ways run"));
    // nvbandwidth v0.8 issues every SM fan copy from the source's context, its *_read_sm ones included: there the
    // reading side is not the one whose SMs copy.
    const Initiator fan_read = m == kCe ? kRead : kWrite;
    t.push_back(fan("all_to_one_write" + suffix, P::kFanIn, m, kWrite, "<-",
                    "every other GPU pushes to the column GPU at once; total inbound rate"));
    t.push_back(fan("all_to_one_read" + suffix, P::kFanOut, m, fan_read, "->",
                    "every other GPU reads from the column GPU at once; total outbound rate"));
    t.push_back(fan("one_to_all_write" + suffix, P::kFanOut, m, kWrite, "->",
                    "the column GPU pushes to every other GPU at once; total outbound rate"));
    t.push_back(fan("one_to_all_read" + suffix, P::kFanIn, m, fan_read, "<-",
                    "the column GPU reads from every other GPU at once; total inbound rate"));
  }
  t.push_back(one("host_device_latency_sm", P::kHostLatency, kSm, kRead,
                  "memory latency SM CPU(row) <-> GPU(column) (ns)",
                  "latency of one dependent load by a GPU thread from 2 MiB of pinned host memory"));
  auto latency = one("device_to_device_latency_sm", P::kDeviceLatency, kSm, kRead,
                     "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)",
                     "latency of one dependent load by the row GPU from 2 MiB of the column GPU's memory");
  latency.all_gpus_rows = true;
  latency.min_gpus = 2;
  t.push_back(latency);
  t.push_back(one("device_local_copy", P::kDeviceLocalCopy, kCe, kRead, "memcpy local GPU(column) bandwidth (GB/s)",
                  "cudaMemcpyAsync between two buffers of the same GPU"));
  return t;
}

}  // namespace

CellValue NvbandwidthTestcase::value() const {
  if (pattern == P::kFanOut || pattern == P::kFanIn) return CellValue::kTotal;
  if (pattern == P::kDeviceToDeviceBidir) return CellValue::kEach;
  return CellValue::kFirst;
}

const std::vector<NvbandwidthTestcase>& nvbandwidth_testcases() {
  static const std::vector<NvbandwidthTestcase> table = build_table();
  return table;
}

std::vector<std::string> nvbandwidth_testcase_names() {
  std::vector<std::string> names;
  for (const auto& t : nvbandwidth_testcases()) names.push_back(t.name);
  return names;
}

const NvbandwidthTestcase& find_testcase(std::string_view name) {
  for (const auto& t : nvbandwidth_testcases()) {
    if (t.name == name) return t;
  }
  throw UsageError(fmt::format("--testcase {}: unknown nvbandwidth testcase; valid: {}", name,
                               join(nvbandwidth_testcase_names(), ", ")));
}

std::vector<const NvbandwidthTestcase*> select_testcases(const std::vector<std::string>& names) {
  std::vector<const NvbandwidthTestcase*> selected;
  for (const auto& name : names) {
    const NvbandwidthTestcase* t = &find_testcase(name);
    if (std::find(selected.begin(), selected.end(), t) == selected.end()) selected.push_back(t);
  }
  return selected;
}

std::uint64_t testcase_bytes(const NvbandwidthTestcase& testcase, std::uint64_t requested) {
  if (testcase.latency()) return kNvbandwidthLatencyBytes;
  return requested > 0 ? requested : kNvbandwidthBufferBytes;
}

namespace {

PlannedCopy copy(int src, int dst, int initiator, std::uint64_t bytes, bool split_warp = false) {
  return {src, dst, initiator, bytes, split_warp};
}

// Host copies of one GPU that the pattern runs next to the measured one.
void add_interference(const NvbandwidthTestcase& t, int gpu, std::uint64_t bytes, std::vector<PlannedCopy>& out) {
  const std::uint64_t twice = bytes * kInterferenceFactor;
  switch (t.pattern) {
    case P::kHostToAll: out.push_back(copy(kHostMemory, gpu, gpu, twice)); break;
    case P::kAllToHost: out.push_back(copy(gpu, kHostMemory, gpu, twice)); break;
    case P::kHostToAllBidir:
    case P::kAllToHostBidir:
      if (t.method == CopyMethod::kSm) {
        out.push_back(copy(gpu, kHostMemory, gpu, bytes, true));  // nvbandwidth: same size, split-warp
      } else {
        out.push_back(copy(gpu, kHostMemory, gpu, twice));
        out.push_back(copy(kHostMemory, gpu, gpu, twice));
      }
      break;
    default: break;
  }
}

std::vector<PlannedCopy> host_cell(const NvbandwidthTestcase& t, int gpu, std::uint64_t bytes) {
  const std::uint64_t twice = bytes * kInterferenceFactor;
  const bool sm = t.method == CopyMethod::kSm;
  switch (t.pattern) {
    case P::kHostToDevice:
    case P::kHostToAll: return {copy(kHostMemory, gpu, gpu, bytes)};
    case P::kDeviceToHost:
    case P::kAllToHost: return {copy(gpu, kHostMemory, gpu, bytes)};
    case P::kHostToDeviceBidir:
    case P::kHostToAllBidir:
      if (sm) return {copy(kHostMemory, gpu, gpu, bytes, true)};
      return {copy(kHostMemory, gpu, gpu, bytes), copy(gpu, kHostMemory, gpu, twice)};
    case P::kDeviceToHostBidir:
      // nvbandwidth's SM kernel is the same for both bidirectional host testcases.
      if (sm) return {copy(kHostMemory, gpu, gpu, bytes, true)};
      return {copy(gpu, kHostMemory, gpu, bytes), copy(kHostMemory, gpu, gpu, twice)};
    case P::kAllToHostBidir:
      if (sm) return {copy(gpu, kHostMemory, gpu, bytes, true)};
      return {copy(gpu, kHostMemory, gpu, bytes), copy(kHostMemory, gpu, gpu, twice)};
    case P::kDeviceLocalCopy: return {copy(gpu, gpu, gpu, bytes)};
    case P::kHostLatency: return {copy(kHostMemory, gpu, gpu, bytes)};
    default: return {};
  }
}

int issuer(const NvbandwidthTestcase& t, int src, int dst) { return t.initiator == kRead ? dst : src; }

}  // namespace

std::vector<CellPlan> plan_cells(const NvbandwidthTestcase& t, const std::vector<int>& gpus, std::uint64_t bytes) {
  std::vector<CellPlan> cells;
  const int n = static_cast<int>(gpus.size());
  for (int c = 0; c < n; ++c) {
    const int col = gpus[static_cast<std::size_t>(c)];
    if (t.all_gpus_rows) {
      for (int r = 0; r < n; ++r) {
        if (r == c) continue;
        const int row = gpus[static_cast<std::size_t>(r)];
        CellPlan cell{r, c, {}};
        if (t.pattern == P::kDeviceLatency) {
          cell.copies = {copy(col, row, row, bytes)};  // the row GPU reads the column GPU's memory
        } else if (t.pattern == P::kDeviceToDevice) {
          // read: the row pulls from the column; write: the row pushes to the column.
          cell.copies = {t.initiator == kRead ? copy(col, row, row, bytes) : copy(row, col, row, bytes)};
        } else {
          cell.copies = {copy(col, row, issuer(t, col, row), bytes), copy(row, col, issuer(t, row, col), bytes)};
        }
        cells.push_back(cell);
      }
      continue;
    }
    CellPlan cell{0, c, {}};
    if (t.pattern == P::kFanOut || t.pattern == P::kFanIn) {
      for (int d : gpus) {
        if (d == col) continue;
        const int src = t.pattern == P::kFanOut ? col : d;
        const int dst = t.pattern == P::kFanOut ? d : col;
        cell.copies.push_back(copy(src, dst, issuer(t, src, dst), bytes));
      }
    } else {
      cell.copies = host_cell(t, col, bytes);
      for (int d : gpus) {
        if (d != col) add_interference(t, d, bytes, cell.copies);
      }
    }
    cells.push_back(cell);
  }
  return cells;
}

std::string testcase_skip_reason(const NvbandwidthTestcase& testcase, int gpu_count) {
  if (gpu_count >= testcase.min_gpus) return {};
  return fmt::format("needs {} GPUs ({} visible)", testcase.min_gpus, gpu_count);
}

std::string list_testcases_text() {
  std::string out = "Index, Name:\n\tDescription\n=======================\n";
  const auto& table = nvbandwidth_testcases();
  for (std::size_t i = 0; i < table.size(); ++i) {
    out += fmt::format("{}, {}:\n\t{}\n\n", i, table[i].name, table[i].summary);
  }
  return out;
}

}  // namespace linkscope::plan
