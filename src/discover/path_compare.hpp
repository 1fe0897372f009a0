#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linkscope::discover {

// One NCCL path line, "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL) ...", split up.
struct PathEntry {
  std::string target;  // "GPU/0-70"
  std::string value;   // "2/370.8/NVL" (hops/bandwidth/type)
};
struct PathLine {
  std::string node;  // "GPU/0-60"
  std::vector<PathEntry> entries;
};

// Parses a path line, with or without NCCL's "host:pid:tid [dev] NCCL INFO " prefix; nullopt for other lines.
std::optional<PathLine> parse_path_line(std::string_view line);

// The path lines of the first rank that printed its topology in an NCCL INFO log (each rank prints one block).
std::vector<std::string> nccl_log_path_lines(std::string_view log);

// "2.28.3" < "2.28.7"; unparsable versions compare as 0.0.0.
bool nccl_version_before(const std::string& version, int major, int minor, int patch);

struct PathDifference {
  std::string node;
  std::string target;  // empty when a whole line is missing on one side
  std::string ours;    // "" = absent
  std::string theirs;
  bool expected = false;    // a known, explained version or detection difference
  std::string explanation;
};

struct PathComparison {
  std::vector<PathDifference> differences;
  int compared_lines = 0;
  bool identical() const { return differences.empty(); }
  // Only differences that are explained by NCCL's version (NET trimming before 2.28.7).
  bool equivalent() const;
};

// Compares our model's path lines with NCCL's (from its log, `their_version` its version, "" = our own model
// of NCCL's dump). NCCL 2.19 to 2.28.6 removes NET nodes when every rank is on one host; such missing NET
// entries are marked expected.
PathComparison compare_path_lines(const std::vector<std::string>& ours, const std::vector<std::string>& theirs,
                                  const std::string& their_version);

}  // namespace linkscope::discover
