// libFuzzer target: the cross-host NCCL log reader (src/cluster/nccl_net_log.cpp): the net plugin's device list, the
// per-HCA GPUDirect RDMA lines and the NIC of every NET connection, on the whole input and on its second half with
// the whole as the device list (as one communicator's part of a process's log). Any exception, crash, sanitizer
// report or hang is a finding (issue 23: a 40 KB "Using" line overflowed std::regex, an index past INT_MAX threw).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cluster/nccl_net_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace linkscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)cluster::logged_net_devices(text);
  int connections = 0;
  for (const auto& use : cluster::nics_used(text)) {
    if (use.connections <= 0 || use.nic.empty()) __builtin_trap();
    connections += use.connections;
  }
  (void)connections;
  (void)cluster::nics_used(text.substr(size / 2), text);
  return 0;
}
