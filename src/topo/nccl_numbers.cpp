#include "topo/nccl_numbers.hpp"

#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

namespace {

bool is_c_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

struct DictEntry {
  std::string_view prefix;
  int value;
};

DictValue lookup(std::string_view text, const DictEntry* entries, std::size_t n, int fallback) {
  for (std::size_t i = 0; i < n; ++i) {
    if (text.substr(0, entries[i].prefix.size()) == entries[i].prefix) return {entries[i].value, true};
  }
  return {fallback, false};
}

}  // namespace

CInteger c_strtol(std::string_view text, int base) {
  CInteger result;
  std::size_t i = 0;
  while (i < text.size() && is_c_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  const auto has_hex_prefix = [&] {
    return i + 2 < text.size() && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
           digit_value(text[i + 2]) < 16;
  };
  if (base == 0) {
    if (has_hex_prefix()) {
      base = 16;
      i += 2;
    } else if (i < text.size() && text[i] == '0') {
      base = 8;
    } else {
      base = 10;
    }
  } else if (base == 16 && has_hex_prefix()) {
    i += 2;
  }
  // Accumulate as a negative number so INT64_MIN is reachable, then saturate like strtol.
  const int64_t min = std::numeric_limits<int64_t>::min();
  int64_t accumulated = 0;
  for (; i < text.size(); ++i) {
    const int d = digit_value(text[i]);
    if (d >= base) break;
    result.parsed_digits = true;
    if (result.overflow) continue;
    if (accumulated < (min + d) / base) {
      result.overflow = true;
      continue;
    }
    accumulated = accumulated * base - d;
  }
  if (result.overflow) {
    result.value = negative ? min : std::numeric_limits<int64_t>::max();
  } else if (negative) {
    result.value = accumulated;
  } else {
    result.value = accumulated == min ? std::numeric_limits<int64_t>::max() : -accumulated;
    if (accumulated == min) result.overflow = true;
  }
  return result;
}

std::optional<uint64_t> c_scan_hex_with_prefix(std::string_view text) {
  if (text.substr(0, 2) != "0x") return std::nullopt;
  text.remove_prefix(2);
  // %lx: like strtoul base 16 (white space, sign, an optional second 0x); needs at least one digit.
  std::size_t i = 0;
  while (i < text.size() && is_c_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  if (i + 2 < text.size() && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
      digit_value(text[i + 2]) < 16) {
    i += 2;
  }
  uint64_t value = 0;
  bool any = false;
  bool overflow = false;
  for (; i < text.size() && digit_value(text[i]) < 16; ++i) {
    any = true;
    const auto d = static_cast<uint64_t>(digit_value(text[i]));
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 16) overflow = true;
    if (!overflow) value = value * 16 + d;
  }
  if (!any) return std::nullopt;
  if (overflow) return std::numeric_limits<uint64_t>::max();
  return negative ? (~value + 1) : value;
}

uint64_t c_strtoull_hex(std::string_view text) {
  const std::string prefixed = "0x" + std::string(text.substr(0, 2) == "0x" || text.substr(0, 2) == "0X"
                                                      ? text.substr(2)
                                                      : text);
  return c_scan_hex_with_prefix(prefixed).value_or(0);
}

float c_strtof(const std::string& text) { return std::strtof(text.c_str(), nullptr); }

int64_t bus_id_to_int(std::string_view bus_id) {
  std::string hex;
  for (std::size_t i = 0; i < bus_id.size() && hex.size() < 16; ++i) {
    const char c = bus_id[i];
    if (c == '.' || c == ':') continue;
    if (digit_value(c) < 16) {
      hex.push_back(c);
    } else {
      break;
    }
  }
  return c_strtol(hex, 16).value;
}

DictValue pci_class_to_type(std::string_view text) {
  static constexpr DictEntry kEntries[] = {{"0x060400", kPci}, {"0x080100", kPci}, {"0x068000", kNvs},
                                           {"0x068001", kCpu}, {"0x03", kGpu},     {"0x02", kNic}};
  return lookup(text, kEntries, std::size(kEntries), kPci);
}

DictValue cpu_arch_value(std::string_view text) {
  static constexpr DictEntry kEntries[] = {{"x86_64", kArchX86}, {"arm64", kArchArm}, {"ppc64", kArchPower}};
  return lookup(text, kEntries, std::size(kEntries), 0);
}

DictValue cpu_vendor_value(std::string_view text) {
  static constexpr DictEntry kEntries[] = {{"GenuineIntel", kVendorIntel},
                                           {"AuthenticAMD", kVendorAmd},
                                           {"CentaurHauls", kVendorZhaoxin},
                                           {"  Shanghai  ", kVendorZhaoxin}};
  return lookup(text, kEntries, std::size(kEntries), 0);
}

DictValue pcie_speed_code(std::string_view text) {
  // Order matters: "5.0 GT/s" without the "PCIe" suffix matches nothing and falls back to 60 (Gen3).
  static constexpr DictEntry kEntries[] = {
      {"2.5 GT/s", 15},       {"5 GT/s", 30},         {"8 GT/s", 60},          {"16 GT/s", 120},
      {"32 GT/s", 240},       {"2.5 GT/s PCIe", 15},  {"5.0 GT/s PCIe", 30},   {"8.0 GT/s PCIe", 60},
      {"16.0 GT/s PCIe", 120}, {"32.0 GT/s PCIe", 240}, {"64.0 GT/s PCIe", 480}};
  return lookup(text, kEntries, std::size(kEntries), 60);
}

std::string kv_convert_line(std::string_view text, int fallback) {
  return fmt::format("KV Convert to int : could not find value of '{}' in dictionary, falling back to {}", text,
                     fallback);
}

std::vector<std::string> topo_file_hint_lines() {
  return {"HINT: In many cases this issue indicates missing or faulty information in the provided topology file.",
          "HINT: To confirm, set NCCL_TOPO_DUMP_FILE=topo.xml to produce the topology NCCL has detected and compare "
          "to the one provided."};
}

int pcie_generation(int speed_code) {
  switch (speed_code) {
    case 15: return 1;
    case 30: return 2;
    case 60: return 3;
    case 120: return 4;
    case 240: return 5;
    case 480: return 6;
    default: return 0;
  }
}

float pcie_bw(int width, int speed_code) {
  if (width == 0) width = 16;
  return static_cast<float>(static_cast<double>(width) * speed_code / 80.0);
}

float nvlink_bw_per_link(int sm) {
  if (sm >= 100) return 40.1f;
  if (sm >= 90) return 20.6f;
  if (sm == 86) return 12.0f;
  if (sm >= 80) return 20.0f;
  if (sm >= 70) return 20.0f;
  if (sm >= 60) return 18.0f;
  return 20.0f;  // unknown architectures fall back to the SM80 value
}

float inter_cpu_bw(int arch, int vendor, int model) {
  if (arch == kArchPower) return 32.0f;
  if (arch == kArchArm) return 6.0f;
  if (arch == kArchX86 && vendor == kVendorIntel) {
    if (model == kModelIntelErp) return 40.0f;
    if (model == kModelIntelSrp) return 22.0f;
    if (model == kModelIntelSkl) return 10.0f;
    return 6.0f;
  }
  if (arch == kArchX86 && vendor == kVendorAmd) return 16.0f;
  if (arch == kArchX86 && vendor == kVendorZhaoxin) return model == kModelYongfeng ? 9.0f : 6.0f;
  return kLocBw;
}

int intel_cpu_model(int64_t family_id, int64_t model_id) {
  if (family_id == 6 && model_id >= 0xCF) return kModelIntelErp;
  if (family_id == 6 && model_id >= 0x8F) return kModelIntelSrp;
  if (family_id == 6 && model_id >= 0x55) return kModelIntelSkl;
  return kModelIntelBdw;
}

int zhaoxin_cpu_model(int64_t family_id, int64_t model_id) {
  return family_id == 7 && model_id == 0x5B ? kModelYongfeng : kUndefined;
}

}  // namespace linkscope::topo
