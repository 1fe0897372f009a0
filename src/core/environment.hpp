#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace linkscope {

// Environment variables as the tool sees them: the process environment, optionally overridden by
// `--env NAME=VALUE` so a user can ask "what would NCCL do if ...".
class Environment {
 public:
  // Snapshot of the current process environment.
  static Environment from_process();
  // Only the given variables, nothing from the process (tests, saved runs).
  static Environment from_map(std::map<std::string, std::string> variables);

  void set(const std::string& name, const std::string& value) { variables_[name] = value; }
  void unset(const std::string& name) { variables_.erase(name); }
  std::optional<std::string> get(std::string_view name) const;
  bool has(std::string_view name) const { return get(name).has_value(); }

  // The variables worth recording in a Run: NCCL_*, CUDA_*, NVIDIA_*, launcher rank/size variables.
  // Never the whole environment (tokens, passwords).
  std::map<std::string, std::string> relevant() const;
  // The relevant NCCL_* variables alone: what a collective run records as the settings NCCL ran with.
  std::map<std::string, std::string> nccl_variables() const;
  const std::map<std::string, std::string, std::less<>>& all() const { return variables_; }

 private:
  std::map<std::string, std::string, std::less<>> variables_;
};

// Parses "NAME=VALUE" (VALUE may be empty or contain '='); throws UsageError naming the text.
std::pair<std::string, std::string> parse_env_assignment(std::string_view text);

// True for variable names recorded in a Run (see Environment::relevant).
bool is_relevant_variable(std::string_view name);

}  // namespace linkscope
