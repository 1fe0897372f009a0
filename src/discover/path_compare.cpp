#include "discover/path_compare.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "runtime/log_lines.hpp"

namespace linkscope::discover {

namespace {

std::string_view strip_prefix(std::string_view line) {
  constexpr std::string_view kMarker = "NCCL INFO ";
  const auto at = line.find(kMarker);
  if (at != std::string_view::npos) line.remove_prefix(at + kMarker.size());
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  return line;
}

bool is_node_id(std::string_view text) {
  const auto slash = text.find('/');
  const auto dash = text.find('-', slash == std::string_view::npos ? 0 : slash);
  return slash != std::string_view::npos && slash >= 3 && dash != std::string_view::npos && dash > slash + 1 &&
         dash + 1 < text.size() && text.find(' ') == std::string_view::npos;
}

bool is_net(const std::string& id) { return id.rfind("NET/", 0) == 0; }

}  // namespace

std::optional<PathLine> parse_path_line(std::string_view raw) {
  const std::string_view line = strip_prefix(raw);
  const auto colon = line.find(" :");
  if (colon == std::string_view::npos || !is_node_id(line.substr(0, colon))) return std::nullopt;
  PathLine parsed;
  parsed.node = std::string(line.substr(0, colon));
  std::string_view rest = line.substr(colon + 2);
  while (!rest.empty()) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.empty()) break;
    const auto open = rest.find(" (");
    const auto close = rest.find(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
    PathEntry entry;
    entry.target = std::string(rest.substr(0, open));
    entry.value = std::string(rest.substr(open + 2, close - open - 2));
    if (!is_node_id(entry.target)) return std::nullopt;
    parsed.entries.push_back(std::move(entry));
    rest.remove_prefix(close + 1);
  }
  if (parsed.entries.empty()) return std::nullopt;
  return parsed;
}

std::vector<std::string> nccl_log_path_lines(std::string_view log) {
  // Ranks print concurrently; follow the thread ("host:pid:tid") that printed the first system block.
  std::string thread;
  bool after_block = false, done = false;
  std::vector<std::string> paths;
  runtime::for_each_log_line(log, [&](std::string_view line) {
    if (done || line.find(" NCCL INFO ") == std::string_view::npos) return;
    const std::string_view prefix = line.substr(0, line.find(' '));
    const std::string_view message = strip_prefix(line);
    if (thread.empty()) {
      if (message.rfind("=== System : ", 0) == 0) thread = std::string(prefix);
      return;
    }
    if (prefix != thread) return;
    if (!after_block) {
      after_block = message.find_first_not_of('=') == std::string_view::npos && !message.empty();
      return;
    }
    if (!parse_path_line(message)) {
      done = true;
      return;
    }
    paths.emplace_back(message);
  });
  return paths;
}

bool nccl_version_before(const std::string& version, int major, int minor, int patch) {
  int parts[3] = {0, 0, 0};
  std::istringstream in(version);
  std::string piece;
  for (int i = 0; i < 3 && std::getline(in, piece, '.'); ++i) {
    // Leading digits ("3" of "3+cuda13"); atoi was undefined on a number past INT_MAX.
    parts[i] = runtime::parse_log_int(piece.substr(0, piece.find_first_not_of("0123456789"))).value_or(0);
  }
  if (parts[0] != major) return parts[0] < major;
  if (parts[1] != minor) return parts[1] < minor;
  return parts[2] < patch;
}

bool PathComparison::equivalent() const {
  return std::all_of(differences.begin(), differences.end(), [](const PathDifference& d) { return d.expected; });
}

PathComparison compare_path_lines(const std::vector<std::string>& ours, const std::vector<std::string>& theirs,
                                  const std::string& their_version) {
  PathComparison comparison;
  std::map<std::string, PathLine> theirs_by_node, ours_by_node;
  std::map<std::string, std::string> our_text, their_text;
  std::vector<std::string> order;
  for (const auto& text : ours) {
    if (auto line = parse_path_line(text)) {
      if (ours_by_node.count(line->node)) continue;  // NCCL prints duplicate NET ids twice (quirk Q1)
      order.push_back(line->node);
      our_text[line->node] = std::string(strip_prefix(text));
      ours_by_node.emplace(line->node, std::move(*line));
    }
  }
  for (const auto& text : theirs) {
    if (auto line = parse_path_line(text)) {
      if (theirs_by_node.count(line->node)) continue;
      if (!ours_by_node.count(line->node)) order.push_back(line->node);
      their_text[line->node] = std::string(strip_prefix(text));
      theirs_by_node.emplace(line->node, std::move(*line));
    }
  }
  const bool trims_nets = !their_version.empty() && !nccl_version_before(their_version, 2, 19, 0) &&
                          nccl_version_before(their_version, 2, 28, 7);
  const auto explain = [&](PathDifference& d) {
    const bool net = is_net(d.node) || is_net(d.target);
    if (net && d.theirs.empty() && trims_nets) {
      d.expected = true;
      d.explanation = "NCCL " + their_version +
                      " removes NET nodes when every rank is on one host (2.19 to 2.28.6; 2.28.7 keeps them, as "
                      "linkscope's model does)";
    } else if (net) {
      d.explanation = "the NICs differ: NCCL's net plugin saw other devices, speeds or GPUDirect support than sysfs shows";
    } else if (d.ours.empty() || d.theirs.empty()) {
      d.explanation = "the GPU sets differ: NCCL built its topology over other GPUs than CUDA shows here";
    } else {
      d.explanation = "the detected topology differs (PCI path, link width/speed, NVLink counts or CPU model); compare "
                      "the synthesized XML (--dump-xml) with NCCL's dump";
    }
  };
  for (const auto& node : order) {
    const auto mine = ours_by_node.find(node);
    const auto other = theirs_by_node.find(node);
    ++comparison.compared_lines;
    if (mine == ours_by_node.end() || other == theirs_by_node.end()) {
      PathDifference d;
      d.node = node;
      d.ours = our_text[node];
      d.theirs = their_text[node];
      explain(d);
      comparison.differences.push_back(std::move(d));
      continue;
    }
    std::map<std::string, std::string> their_entries;
    for (const auto& entry : other->second.entries) their_entries.emplace(entry.target, entry.value);
    std::map<std::string, std::string> my_entries;
    for (const auto& entry : mine->second.entries) my_entries.emplace(entry.target, entry.value);
    std::vector<std::string> targets;
    for (const auto& entry : mine->second.entries) targets.push_back(entry.target);
    for (const auto& entry : other->second.entries) {
      if (!my_entries.count(entry.target)) targets.push_back(entry.target);
    }
    for (const auto& target : targets) {
      const std::string a = my_entries.count(target) ? my_entries[target] : "";
      const std::string b = their_entries.count(target) ? their_entries[target] : "";
      if (a == b) continue;
      PathDifference d{node, target, a, b, false, ""};
      explain(d);
      comparison.differences.push_back(std::move(d));
    }
  }
  return comparison;
}

}  // namespace linkscope::discover
