#include "core/environment.hpp"

#include <cctype>

#include <fmt/format.h>

#include "core/error.hpp"

extern char** environ;

namespace linkscope {

Environment Environment::from_process() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.variables_.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

Environment Environment::from_map(std::map<std::string, std::string> variables) {
  Environment env;
  for (auto& [name, value] : variables) env.variables_.emplace(name, std::move(value));
  return env;
}

std::optional<std::string> Environment::get(std::string_view name) const {
  const auto it = variables_.find(name);
  if (it == variables_.end()) return std::nullopt;
  return it->second;
}

std::map<std::string, std::string> Environment::relevant() const {
  std::map<std::string, std::string> kept;
  for (const auto& [name, value] : variables_) {
    if (is_relevant_variable(name)) kept.emplace(name, value);
  }
  return kept;
}

std::map<std::string, std::string> Environment::nccl_variables() const {
  std::map<std::string, std::string> kept;
  for (const auto& [name, value] : relevant()) {
    if (name.rfind("NCCL_", 0) == 0) kept.emplace(name, value);
  }
  return kept;
}

bool is_relevant_variable(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {"NCCL_", "CUDA_", "NVIDIA_", "LINKSCOPE_"};
  static constexpr std::string_view kExact[] = {
      "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_SIZE", "PMI_RANK",
      "PMIX_RANK", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_NODELIST"};
  for (std::string_view prefix : kPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) {
      // Never record anything that looks like a credential, even under an allowed prefix.
      for (std::string_view secret : {"TOKEN", "SECRET", "PASSWORD", "KEY"}) {
        if (name.find(secret) != std::string_view::npos) return false;
      }
      return true;
    }
  }
  for (std::string_view exact : kExact) {
    if (name == exact) return true;
  }
  return false;
}

std::pair<std::string, std::string> parse_env_assignment(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw UsageError(fmt::format("invalid --env '{}': expected NAME=VALUE", text));
  }
  const std::string_view name = text.substr(0, eq);
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      throw UsageError(fmt::format("invalid --env '{}': variable names use letters, digits and '_'", text));
    }
  }
  return {std::string(name), std::string(text.substr(eq + 1))};
}

}  // namespace linkscope
