#include "core/run.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "linkscope/version.hpp"

namespace linkscope {

namespace {
constexpr const char* kSections[] = {"tool",     "config",       "environment", "system",   "model",
                                     "runtime",  "measurements", "hypotheses",  "findings", "errors"};

nlohmann::json& section(RunDocument& run, std::string_view name) {
  if (name == "tool") return run.tool;
  if (name == "config") return run.config;
  if (name == "environment") return run.environment;
  if (name == "system") return run.system;
  if (name == "model") return run.model;
  if (name == "runtime") return run.runtime;
  if (name == "measurements") return run.measurements;
  if (name == "hypotheses") return run.hypotheses;
  if (name == "findings") return run.findings;
  return run.errors;
}
}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

RunDocument make_run(const std::string& subcommand, const std::vector<std::string>& argv) {
  RunDocument run;
  run.tool = {{"name", "linkscope"}, {"version", kVersion}, {"git", kGitDescribe}};
  run.config = {{"subcommand", subcommand}, {"argv", argv}, {"started_at", utc_timestamp()}, {"host", host_name()}};
  return run;
}

void record_error(RunDocument& run, const std::string& where, const std::string& message) {
  run.errors.push_back({{"where", where}, {"message", message}});
}

nlohmann::json run_to_json(const RunDocument& run) {
  nlohmann::json document = nlohmann::json::object();
  document["schema_version"] = fmt::format("{}.{}", kRunSchemaMajor, kRunSchemaMinor);
  RunDocument copy = run;
  for (const char* name : kSections) document[name] = section(copy, name);
  return document;
}

RunDocument run_from_json(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object()) throw InputError(source, 0, "not a linkscope run document (expected a JSON object)");
  const auto version = document.find("schema_version");
  if (version == document.end() || !version->is_string()) {
    throw InputError(source, 0, "not a linkscope run document (no schema_version)");
  }
  const std::string text = version->get<std::string>();
  int major = -1;
  try {
    major = std::stoi(text);
  } catch (const std::exception&) {
    major = -1;
  }
  if (major != kRunSchemaMajor) {
    throw InputError(source, 0,
                     fmt::format("schema_version {} is not supported (this linkscope reads {}.x)", text, kRunSchemaMajor));
  }
  RunDocument run;
  for (const char* name : kSections) {
    const auto it = document.find(name);
    if (it != document.end()) section(run, name) = *it;
  }
  return run;
}

void write_run_file(const std::string& path, const RunDocument& run) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw InputError(path, 0, "cannot open for writing");
  out << run_to_json(run).dump(2) << '\n';
  if (!out) throw InputError(path, 0, "write failed");
}

RunDocument read_run_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open (missing or unreadable)");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into a line so the message reads FILE:LINE.
    std::ifstream again(path);
    std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
    long line = 1;
    for (std::size_t i = 0; i < text.size() && i + 1 < e.byte; ++i) {
      if (text[i] == '\n') ++line;
    }
    throw InputError(path, line, "malformed JSON");
  }
  return run_from_json(document, path);
}

}  // namespace linkscope
