#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// PCIe extended capabilities in a function's configuration space, as the sysfs `config` file holds it (PCIe base
// spec 7.6: the list starts at 0x100; each header is a dword: id in bits 15:0, version 19:16, next offset 31:20).
// A non-root reader gets only the 64-byte header, so the extended list is then unknown, not empty.
namespace linkscope::discover {

inline constexpr std::size_t kPciExtendedConfigStart = 0x100;
inline constexpr std::size_t kPciExtendedConfigEnd = 0x1000;
inline constexpr std::uint16_t kExtCapAcs = 0x000D;
inline constexpr std::uint16_t kExtCapAts = 0x000F;

struct ExtendedCapability {
  std::uint16_t id = 0;
  std::uint8_t version = 0;
  std::size_t offset = 0;
};

// True when `config` reaches into the extended space (more than the 256-byte legacy space).
bool has_extended_config(std::string_view config);

// The extended capability list. The walk stops at a zero or all-ones header, a next offset below 0x100, past the
// data or not dword-aligned, and at an offset seen before (a cycle), so any bytes end it in at most 960 steps.
std::vector<ExtendedCapability> extended_capabilities(std::string_view config);

// Little-endian word at `offset`; nullopt past the data.
std::optional<std::uint16_t> config_word(std::string_view config, std::size_t offset);

// ACS (7.7.8): capability register at +4, control register at +6.
struct AcsRegisters {
  std::size_t offset = 0;
  std::uint16_t capability = 0, control = 0;
};
std::optional<AcsRegisters> acs_registers(std::string_view config);
// The ACS bits set in a capability or control word, as lspci names them (SrcValid TransBlk ReqRedir CmpltRedir
// UpstreamFwd EgressCtrl DirectTrans: bits 0-6).
std::vector<std::string> acs_bit_names(std::uint16_t bits);

// ATS (10.5.1): control register at +6, Enable in bit 15.
struct AtsRegisters {
  std::size_t offset = 0;
  bool enabled = false;
};
std::optional<AtsRegisters> ats_registers(std::string_view config);

}  // namespace linkscope::discover
