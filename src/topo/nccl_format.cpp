#include "topo/nccl_format.hpp"

#include <cinttypes>
#include <cstdio>

namespace linkscope::topo {

std::string nccl_node_id(int type, int64_t id) {
  const auto bits = static_cast<uint64_t>(id);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s/%" PRIx64 "-%" PRIx64, node_type_name(type), bits >> 56,
                static_cast<uint64_t>(bits & 0x00ffffffffffffffULL));
  return buffer;
}

std::string nccl_node_id(const TopoSystem& system, NodeRef node) {
  return nccl_node_id(node.type, system.at(node).id);
}

std::string nccl_node_id_decimal(const TopoSystem& system, NodeRef node) {
  const auto bits = static_cast<uint64_t>(system.at(node).id);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s/%" PRId64 "-%" PRId64, node_type_name(node.type),
                static_cast<int64_t>(bits >> 56), static_cast<int64_t>(bits & 0x00ffffffffffffffULL));
  return buffer;
}

std::string format_bw(float bw) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", static_cast<double>(bw));
  return buffer;
}

std::string format_f6(float value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%f", static_cast<double>(value));
  return buffer;
}

std::string format_hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%" PRIx64, value);
  return buffer;
}

std::string cap_nccl_line(std::string line) {
  if (line.size() > kNcclLineBytes) line.resize(kNcclLineBytes);
  return line;
}

}  // namespace linkscope::topo
