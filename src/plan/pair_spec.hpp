#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::plan {

// One directed copy: data flows from GPU `src` to GPU `dst` (CUDA ordinals). src == dst is a local copy.
struct DirectedPair {
  int src = 0;
  int dst = 0;
  bool local() const { return src == dst; }
  friend bool operator==(const DirectedPair& a, const DirectedPair& b) { return a.src == b.src && a.dst == b.dst; }
  friend bool operator!=(const DirectedPair& a, const DirectedPair& b) { return !(a == b); }
  friend bool operator<(const DirectedPair& a, const DirectedPair& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  }
};

// "0>1"
std::string to_string(const DirectedPair& pair);
// "0>1,2>3"
std::string to_string(const std::vector<DirectedPair>& pairs);

// Parses "0>1,2>3" (spaces around items allowed). Syntax only: GPU ids are checked against the machine
// later (check_in_range). Throws UsageError naming the bad item for "", "0>", "a>b", "0>0>1", "-1>2".
std::vector<DirectedPair> parse_pairs(std::string_view text, std::string_view what = "--pairs");

// Parses a GPU list "0,1,3" (syntax only; duplicates rejected). Throws UsageError.
std::vector<int> parse_device_list(std::string_view text, std::string_view what = "--devices");

// Throws UsageError when an id is not in [0, gpu_count): "GPU 3 in --pairs 0>3 is out of range: 2 GPUs
// present (ids 0-1)".
void check_in_range(const std::vector<DirectedPair>& pairs, int gpu_count, std::string_view what = "--pairs");
void check_in_range(const std::vector<int>& devices, int gpu_count, std::string_view what = "--devices");

// Every directed pair between distinct devices, in order (0>1, 0>2, ..., 1>0, ...). With one device there is
// nothing to pair: the result is that device's local copy {d>d}.
std::vector<DirectedPair> all_directed_pairs(const std::vector<int>& devices);

// {0, 1, ..., count-1}
std::vector<int> first_devices(int count);

// Devices named by any pair, sorted and unique.
std::vector<int> devices_of(const std::vector<DirectedPair>& pairs);

// For bidirectional runs: each unordered pair {a, b} (a < b) once, in first-seen order; local pairs are
// kept as they are (a local copy has no reverse direction).
std::vector<DirectedPair> bidirectional_groups(const std::vector<DirectedPair>& pairs);

}  // namespace linkscope::plan
