#include "discover/pcie_config.hpp"

#include <set>

namespace linkscope::discover {

namespace {

std::optional<std::uint32_t> config_dword(std::string_view config, std::size_t offset) {
  if (offset > config.size() || config.size() - offset < 4) return std::nullopt;
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i)
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(config[offset + i])) << (8 * i);
  return value;
}

std::optional<ExtendedCapability> find_capability(std::string_view config, std::uint16_t id) {
  for (const auto& cap : extended_capabilities(config)) {
    if (cap.id == id) return cap;
  }
  return std::nullopt;
}

}  // namespace

bool has_extended_config(std::string_view config) { return config.size() > kPciExtendedConfigStart; }

std::optional<std::uint16_t> config_word(std::string_view config, std::size_t offset) {
  if (offset > config.size() || config.size() - offset < 2) return std::nullopt;
  return static_cast<std::uint16_t>(static_cast<unsigned char>(config[offset]) |
                                    (static_cast<unsigned char>(config[offset + 1]) << 8));
}

std::vector<ExtendedCapability> extended_capabilities(std::string_view config) {
  std::vector<ExtendedCapability> caps;
  std::set<std::size_t> seen;
  std::size_t offset = kPciExtendedConfigStart;
  while (offset >= kPciExtendedConfigStart && offset < kPciExtendedConfigEnd && offset % 4 == 0 &&
         seen.insert(offset).second) {
    const auto header = config_dword(config, offset);
    if (!header || *header == 0 || *header == 0xffffffffu) break;
    caps.push_back(
        {static_cast<std::uint16_t>(*header & 0xffffu), static_cast<std::uint8_t>((*header >> 16) & 0xfu), offset});
    offset = *header >> 20;
  }
  return caps;
}

std::optional<AcsRegisters> acs_registers(std::string_view config) {
  const auto cap = find_capability(config, kExtCapAcs);
  if (!cap) return std::nullopt;
  const auto capability = config_word(config, cap->offset + 4);
  const auto control = config_word(config, cap->offset + 6);
  if (!capability || !control) return std::nullopt;
  return AcsRegisters{cap->offset, *capability, *control};
}

std::vector<std::string> acs_bit_names(std::uint16_t bits) {
  static const char* const kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::vector<std::string> names;
  for (int bit = 0; bit < 7; ++bit) {
    if (bits & (1u << bit)) names.emplace_back(kNames[bit]);
  }
  return names;
}

std::optional<AtsRegisters> ats_registers(std::string_view config) {
  const auto cap = find_capability(config, kExtCapAts);
  if (!cap) return std::nullopt;
  const auto control = config_word(config, cap->offset + 6);
  if (!control) return std::nullopt;
  return AtsRegisters{cap->offset, (*control & 0x8000u) != 0};
}

}  // namespace linkscope::discover
