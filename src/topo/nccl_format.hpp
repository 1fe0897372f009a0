#pragma once
// NCCL's printf formats for ids and bandwidths, reproduced with the C library so rounding matches exactly.
#include <cstdint>
#include <string>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

// NCCL's info buffer: a message is cut to 1023 bytes (a real log may cut earlier, the prefix counts too).
inline constexpr std::size_t kNcclLineBytes = 1023;

// "%s/%lx-%lx": type, system id, local id in lower-case hex ("GPU/0-1a000", "CPU/0-ffffffffffffff").
std::string nccl_node_id(int type, int64_t id);
std::string nccl_node_id(const TopoSystem& system, NodeRef node);
// "%s/%ld-%ld": the same in decimal, as NCCL 2.29+ names the nodes of its GDR lines ("GPU/0-118784").
std::string nccl_node_id_decimal(const TopoSystem& system, NodeRef node);
// "%.1f" of the float widened to double (ties to even on the exact binary value: 0.3125 -> "0.3").
std::string format_bw(float bw);
// "%f" (6 decimals).
std::string format_f6(float value);
// "%lx".
std::string format_hex(uint64_t value);
std::string cap_nccl_line(std::string line);

}  // namespace linkscope::topo
