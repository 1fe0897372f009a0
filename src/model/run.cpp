#include "model/run.hpp"

#include <regex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/stamp.hpp"
#include "linkscope/version.hpp"

namespace linkscope::model {

using nlohmann::json;

namespace {
// How much of a malformed schema_version an error quotes.
constexpr std::size_t kShownVersionChars = 40;
}  // namespace

void Run::record_error(const std::string& where, const std::string& message) { errors.push_back({where, message}); }

Run make_run(const std::string& subcommand, const std::vector<std::string>& argv) {
  Run run;
  run.tool = {"linkscope", kVersion, kGitDescribe};
  run.config.subcommand = subcommand;
  run.config.argv = argv;
  run.config.started_at = utc_timestamp();
  run.config.host = host_name();
  return run;
}

json to_json(const Run& run) {
  json config = with_extras({{"subcommand", run.config.subcommand},
                             {"argv", run.config.argv},
                             {"started_at", run.config.started_at},
                             {"host", run.config.host}},
                            run.config.extra);
  if (run.config.profile) config["profile"] = *run.config.profile;
  if (run.config.measured_seconds) config["measured_seconds"] = *run.config.measured_seconds;
  if (run.config.stopped) config["stopped"] = *run.config.stopped;
  if (!run.config.skipped.empty()) {
    config["skipped"] = json::array();
    for (const auto& s : run.config.skipped) config["skipped"].push_back({{"step", s.step}, {"reason", s.reason}});
  }
  json environment = with_extras({{"variables", run.environment.variables}}, run.environment.extra);
  if (run.environment.nccl_library) environment["nccl_library"] = *run.environment.nccl_library;
  if (run.environment.nccl_version) environment["nccl_version"] = *run.environment.nccl_version;
  if (run.environment.nccl_headers) environment["nccl_headers"] = *run.environment.nccl_headers;
  if (run.environment.launch) environment["launch"] = *run.environment.launch;
  if (run.environment.nccl_unavailable) environment["nccl_unavailable"] = *run.environment.nccl_unavailable;
  json errors = json::array();
  for (const auto& e : run.errors) errors.push_back({{"where", e.where}, {"message", e.message}});
  json document = with_extras({{"schema_version", fmt::format("{}.{}", kRunSchemaMajor, kRunSchemaMinor)},
                      {"tool", {{"name", run.tool.name}, {"version", run.tool.version}, {"git", run.tool.git}}},
                      {"config", config},
                      {"environment", environment},
                      // Under MPI the hosts are facts of the job even when rank 0's own discovery failed.
                      {"system", run.system.present || !run.system.hosts.empty() ? to_json(run.system) : json::object()},
                      {"model", run.topology.present ? to_json(run.topology) : json::object()},
                      {"runtime", run.runtime.empty() ? json::object() : to_json(run.runtime)},
                      {"measurements", to_json(run.measurements)},
                      {"hypotheses", to_json(run.hypotheses)},
                      {"findings", to_json(run.findings)},
                      {"errors", errors}},
                     run.extra);
  if (run.fleet) document["fleet"] = to_json(*run.fleet);
  return document;
}

Run run_from_json(const json& document, const std::string& source) {
  if (!document.is_object()) throw InputError(source, 0, "not a linkscope run document (expected a JSON object)");
  const auto version = document.find("schema_version");
  if (version == document.end()) throw InputError(source, 0, "not a linkscope run document (no schema_version)");
  // Exactly "MAJOR.MINOR": "1.3.1", " 1.3", "1.3x" or a number would otherwise read as some major version.
  static const std::regex kVersionForm("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");
  const bool well_formed = version->is_string() && version->get_ref<const std::string&>().size() <= 19 &&
                          std::regex_match(version->get_ref<const std::string&>(), kVersionForm);
  if (!well_formed) {
    const std::string found = version->dump();  // JSON spelling: quotes, and escapes for any control character
    throw InputError(source, 0,
                     fmt::format("schema_version: expected a string \"MAJOR.MINOR\" such as \"{}.{}\", found {}",
                                 kRunSchemaMajor, kRunSchemaMinor,
                                 found.size() <= kShownVersionChars ? found : found.substr(0, kShownVersionChars) + "..."));
  }
  const std::string text = version->get<std::string>();
  const int major = std::stoi(text);
  if (major != kRunSchemaMajor) {
    throw InputError(source, 0,
                     fmt::format("schema_version {} is not supported (this linkscope reads {}.x)", text, kRunSchemaMajor));
  }
  const JsonReader r = JsonReader::root(document, source);
  r.skip({"schema_version"});
  Run run;
  const JsonReader tool = r.object("tool");
  run.tool = {tool.string_or("name", "linkscope"), tool.string_or("version"), tool.string_or("git")};
  const JsonReader config = r.object("config");
  run.config.subcommand = config.string_or("subcommand");
  run.config.argv = config.strings("argv");
  run.config.started_at = config.string_or("started_at");
  run.config.host = config.string_or("host");
  run.config.profile = config.string("profile");
  run.config.measured_seconds = config.number("measured_seconds");
  run.config.stopped = config.string("stopped");
  for (const auto& s : config.array("skipped")) run.config.skipped.push_back({s.string_or("step"), s.string_or("reason")});
  run.config.extra = config.extras();
  const JsonReader environment = r.object("environment");
  run.environment.variables = environment.string_map("variables");
  run.environment.nccl_library = environment.string("nccl_library");
  run.environment.nccl_version = environment.string("nccl_version");
  run.environment.nccl_headers = environment.string("nccl_headers");
  run.environment.launch = environment.string("launch");
  run.environment.nccl_unavailable = environment.string("nccl_unavailable");
  run.environment.extra = environment.extras();
  run.system = system_from_json(r.object("system"));
  run.topology = topology_view_from_json(r.object("model"));
  run.runtime = runtime_from_json(r.object("runtime"));
  run.measurements = measurements_from_json(r.object("measurements"));
  run.hypotheses = hypotheses_from_json(r.at("hypotheses"));
  run.findings = findings_from_json(r.at("findings"));
  for (const auto& e : r.array("errors")) run.errors.push_back({e.string_or("where"), e.string_or("message")});
  if (r.has("fleet")) run.fleet = fleet_from_json(r.object("fleet"));
  run.extra = r.extras();
  return run;
}

}  // namespace linkscope::model
