#pragma once
// How NCCL turns XML attribute strings into numbers: C strtol/strtoull/strtof semantics, bus ids, its
// prefix dictionaries (first matching entry wins, with a fallback) and the bandwidth formulas.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

namespace linkscope::topo {

// C strtol/strtoll: leading white space, optional sign, base 0 (0x = hex, leading 0 = octal) or a given base;
// stops at the first invalid character; saturates at the int64 limits (`overflow` set).
struct CInteger {
  int64_t value = 0;
  bool parsed_digits = false;  // false: no number at all ("abc", "", "-")
  bool overflow = false;
};
CInteger c_strtol(std::string_view text, int base = 0);

// sscanf("0x%lx"): needs the literal "0x" prefix; nullopt when it does not match (NCCL then keeps 0).
std::optional<uint64_t> c_scan_hex_with_prefix(std::string_view text);
// strtoull(text, NULL, 16).
uint64_t c_strtoull_hex(std::string_view text);
// strtof(text, NULL).
float c_strtof(const std::string& text);

// NCCL busIdToInt64: hex digits, skipping ':' and '.', stopping at any other character or after 16 digits.
int64_t bus_id_to_int(std::string_view bus_id);

// A prefix-dictionary lookup: `value`, and whether an entry matched (else NCCL logs "KV Convert ...").
struct DictValue {
  int value = 0;
  bool matched = false;
};
DictValue pci_class_to_type(std::string_view text);  // -> kGpu/kPci/kNvs/kCpu/kNic (fallback kPci)
DictValue cpu_arch_value(std::string_view text);     // fallback 0
DictValue cpu_vendor_value(std::string_view text);   // fallback 0
DictValue pcie_speed_code(std::string_view text);    // link_speed -> 15/30/60/120/240/480 (fallback 60)
// The INFO line NCCL prints when a dictionary has no match.
std::string kv_convert_line(std::string_view text, int fallback);
// The lines NCCL 2.30.7 prints after each KV fallback line (xml.h printMissingTopoDictValueHint).
std::vector<std::string> topo_file_hint_lines();

// PCIe generation (1..6) for a speed code, 0 if unknown.
int pcie_generation(int speed_code);

// Bandwidths (GB/s) exactly as NCCL computes and stores them (float).
float pcie_bw(int width, int speed_code);            // width 0 means x16
float nvlink_bw_per_link(int sm);
float inter_cpu_bw(int arch, int vendor, int model);  // SYS link bw, chosen by the source CPU
int intel_cpu_model(int64_t family_id, int64_t model_id);
int zhaoxin_cpu_model(int64_t family_id, int64_t model_id);

}  // namespace linkscope::topo
