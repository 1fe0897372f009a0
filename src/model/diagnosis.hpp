#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// Findings (diagnoses) and hypotheses (predictions with verdicts) as plain data (docs/run-schema.md,
// "hypotheses and findings"). src/diagnose makes them; renderers and `compare` read them.
namespace linkscope::model {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };
std::string_view severity_name(Severity severity);  // "info", "warning", "error"
std::optional<Severity> parse_severity(std::string_view text);

struct Finding {
  std::string id;  // stable: scripts and `compare` key on it
  Severity severity = Severity::kInfo;
  std::string title;                  // one line naming what and where
  std::vector<std::string> evidence;  // the numbers, one fact a line
  std::string explanation;            // why it matters / what it means
  std::string cause;                  // the most likely cause, "" when unknown
  std::string next_command;           // the command to run next
  std::vector<int> gpus;              // CUDA ordinals involved (NVML indices for hidden GPUs are in evidence)
  nlohmann::json numbers = nlohmann::json::object();  // key numbers for scripts (compare, dashboards)
  nlohmann::json extra;
};

enum class Verdict { kConfirmed, kRefuted, kInconclusive, kUntested };
std::string_view verdict_name(Verdict verdict);  // "confirmed", "refuted", "inconclusive", "untested"
std::optional<Verdict> parse_verdict(std::string_view text);

struct Hypothesis {
  std::string id;
  std::string statement;   // what we believe about the machine, from hardware facts and the model
  std::string prediction;  // what the measurement should show if the statement holds (with numbers)
  std::string basis;       // where the statement comes from ("system: ...", "model: ...")
  std::string needs;       // the measurement that judges it ("measurements.p2p")
  Verdict verdict = Verdict::kUntested;
  std::string evidence;    // the measured numbers behind the verdict
  // Predicted values (judged as stored, so a saved run keeps its predictions) and measured ones.
  nlohmann::json numbers = nlohmann::json::object();
  nlohmann::json extra;
};

nlohmann::json to_json(const Finding& finding);
Finding finding_from_json(const JsonReader& reader);
nlohmann::json to_json(const Hypothesis& hypothesis);
Hypothesis hypothesis_from_json(const JsonReader& reader);

std::vector<Finding> findings_from_json(const JsonReader& array);
std::vector<Hypothesis> hypotheses_from_json(const JsonReader& array);
nlohmann::json to_json(const std::vector<Finding>& findings);
nlohmann::json to_json(const std::vector<Hypothesis>& hypotheses);

}  // namespace linkscope::model
