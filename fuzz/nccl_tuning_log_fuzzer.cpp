// libFuzzer target: NCCL's per-call TUNING lines (src/runtime/nccl_tuning_log.cpp), one call per input line, with the
// communicator's rank count taken from the input's first byte (AllGather/ReduceScatter multiply by it). Any
// exception, crash, sanitizer report or hang is a finding; a call it returns must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/log_lines.hpp"
#include "runtime/nccl_tuning_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linkscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<int> nranks = size == 0 ? std::nullopt : std::optional<int>(static_cast<int>(data[0]) - 8);
  runtime::for_each_log_line(text, [&](std::string_view line) {
    const auto call = runtime::parse_tuning_line(line, nranks);
    if (!call) return;
    if (call->calls != 1 || call->collective.empty() || call->algorithm.empty()) __builtin_trap();
    if (call->size_bytes != 0 && call->size_bytes < call->bytes) __builtin_trap();  // a product that wrapped
  });
  return 0;
}
