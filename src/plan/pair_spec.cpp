#include "plan/pair_spec.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::plan {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// A GPU id: decimal digits only, at most 4 of them (no machine has 10000 GPUs).
bool parse_gpu_id(std::string_view text, int& id) {
  text = trim(text);
  if (text.empty() || text.size() > 4) return false;
  int value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  id = value;
  return true;
}

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string id_range(int gpu_count) {
  if (gpu_count <= 0) return "no GPUs present";
  return fmt::format("{} GPU{} present (ids 0-{})", gpu_count, gpu_count == 1 ? "" : "s", gpu_count - 1);
}

}  // namespace

std::string to_string(const DirectedPair& pair) { return fmt::format("{}>{}", pair.src, pair.dst); }

std::string to_string(const std::vector<DirectedPair>& pairs) {
  std::string out;
  for (const auto& pair : pairs) {
    if (!out.empty()) out += ',';
    out += to_string(pair);
  }
  return out;
}

std::vector<DirectedPair> parse_pairs(std::string_view text, std::string_view what) {
  if (trim(text).empty()) throw UsageError(fmt::format("{} is empty (expected e.g. 0>1,2>3)", what));
  std::vector<DirectedPair> pairs;
  for (std::string_view item : split_commas(text)) {
    const std::string_view shown = trim(item);
    const std::size_t arrow = item.find('>');
    DirectedPair pair;
    const bool ok = arrow != std::string_view::npos && item.find('>', arrow + 1) == std::string_view::npos &&
                    parse_gpu_id(item.substr(0, arrow), pair.src) && parse_gpu_id(item.substr(arrow + 1), pair.dst);
    if (!ok) {
      throw UsageError(fmt::format("{}: bad pair '{}' (expected SRC>DST with GPU ids, e.g. 0>1,2>3)", what, shown));
    }
    pairs.push_back(pair);
  }
  return pairs;
}

std::vector<int> parse_device_list(std::string_view text, std::string_view what) {
  if (trim(text).empty()) throw UsageError(fmt::format("{} is empty (expected e.g. 0,1)", what));
  std::vector<int> devices;
  for (std::string_view item : split_commas(text)) {
    int id = 0;
    if (!parse_gpu_id(item, id)) {
      throw UsageError(fmt::format("{}: bad GPU id '{}' (expected e.g. 0,1,3)", what, trim(item)));
    }
    if (std::find(devices.begin(), devices.end(), id) != devices.end()) {
      throw UsageError(fmt::format("{}: GPU {} is listed twice", what, id));
    }
    devices.push_back(id);
  }
  return devices;
}

void check_in_range(const std::vector<DirectedPair>& pairs, int gpu_count, std::string_view what) {
  for (const auto& pair : pairs) {
    for (int id : {pair.src, pair.dst}) {
      if (id >= gpu_count) {
        throw UsageError(fmt::format("GPU {} in {} {} is out of range: {}", id, what, to_string(pair), id_range(gpu_count)));
      }
    }
  }
}

void check_in_range(const std::vector<int>& devices, int gpu_count, std::string_view what) {
  for (int id : devices) {
    if (id < 0 || id >= gpu_count) {
      throw UsageError(fmt::format("GPU {} in {} is out of range: {}", id, what, id_range(gpu_count)));
    }
  }
}

std::vector<DirectedPair> all_directed_pairs(const std::vector<int>& devices) {
  if (devices.size() == 1) return {{devices[0], devices[0]}};
  std::vector<DirectedPair> pairs;
  for (int src : devices) {
    for (int dst : devices) {
      if (src != dst) pairs.push_back({src, dst});
    }
  }
  return pairs;
}

std::vector<int> first_devices(int count) {
  std::vector<int> devices;
  for (int i = 0; i < count; ++i) devices.push_back(i);
  return devices;
}

std::vector<int> devices_of(const std::vector<DirectedPair>& pairs) {
  std::set<int> ids;
  for (const auto& pair : pairs) {
    ids.insert(pair.src);
    ids.insert(pair.dst);
  }
  return {ids.begin(), ids.end()};
}

std::vector<DirectedPair> bidirectional_groups(const std::vector<DirectedPair>& pairs) {
  std::vector<DirectedPair> groups;
  for (const auto& pair : pairs) {
    const DirectedPair key = pair.local() ? pair : DirectedPair{std::min(pair.src, pair.dst), std::max(pair.src, pair.dst)};
    if (std::find(groups.begin(), groups.end(), key) == groups.end()) groups.push_back(key);
  }
  return groups;
}

}  // namespace linkscope::plan
