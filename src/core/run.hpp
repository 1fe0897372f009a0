#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace linkscope {

// Version of the Run document (docs/run-schema.md). Major bumps break readers; minor bumps add fields.
inline constexpr int kRunSchemaMajor = 1;
inline constexpr int kRunSchemaMinor = 0;

// One run of linkscope (the "Run document") as plain data. Engines fill sections, renderers read them, `report` and
// `compare` load them back. Each section holds the JSON of the struct its engine returns
// (`to_json`/`from_json` beside that struct), so modules own their part of the schema.
struct RunDocument {
  nlohmann::json tool = nlohmann::json::object();          // name, version, git
  nlohmann::json config = nlohmann::json::object();        // subcommand, argv, started_at, host
  nlohmann::json environment = nlohmann::json::object();   // relevant variables, library versions
  nlohmann::json system = nlohmann::json::object();        // hardware facts
  nlohmann::json model = nlohmann::json::object();         // NCCL topology model
  nlohmann::json runtime = nlohmann::json::object();       // what NCCL chose in a real run
  nlohmann::json measurements = nlohmann::json::object();  // p2p, patterns, collectives, ladder
  nlohmann::json hypotheses = nlohmann::json::array();
  nlohmann::json findings = nlohmann::json::array();
  nlohmann::json errors = nlohmann::json::array();         // per-item failures kept as data
};

// A new Run document stamped with tool version, command line, host name and UTC start time.
RunDocument make_run(const std::string& subcommand, const std::vector<std::string>& argv);

// Records a failure of one item (a pair, a size, a probe) without stopping the run.
void record_error(RunDocument& run, const std::string& where, const std::string& message);

nlohmann::json run_to_json(const RunDocument& run);
// Validates the document (object, schema_version with a known major); `source` names it in errors.
RunDocument run_from_json(const nlohmann::json& document, const std::string& source);

// File I/O; errors name the file (InputError / Error).
void write_run_file(const std::string& path, const RunDocument& run);
RunDocument read_run_file(const std::string& path);

// Current UTC time as ISO 8601 ("2026-11-29T23:14:09Z").
std::string utc_timestamp();
std::string host_name();

}  // namespace linkscope
