#include "diagnose/finding.hpp"

#include "diagnose/json_access.hpp"

namespace linkscope::diagnose {

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: break;
  }
  return "info";
}

std::optional<Severity> parse_severity(std::string_view text) {
  if (text == "info") return Severity::kInfo;
  if (text == "warning") return Severity::kWarning;
  if (text == "error") return Severity::kError;
  return std::nullopt;
}

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kConfirmed: return "confirmed";
    case Verdict::kRefuted: return "refuted";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kUntested: break;
  }
  return "untested";
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  if (text == "confirmed") return Verdict::kConfirmed;
  if (text == "refuted") return Verdict::kRefuted;
  if (text == "inconclusive") return Verdict::kInconclusive;
  if (text == "untested") return Verdict::kUntested;
  return std::nullopt;
}

nlohmann::json finding_to_json(const Finding& finding) {
  nlohmann::json object = {{"id", finding.id},
                           {"severity", severity_name(finding.severity)},
                           {"title", finding.title},
                           {"evidence", finding.evidence},
                           {"explanation", finding.explanation},
                           {"cause", finding.cause.empty() ? nlohmann::json() : nlohmann::json(finding.cause)},
                           {"next_command", finding.next_command},
                           {"gpus", finding.gpus},
                           {"numbers", finding.numbers}};
  return object;
}

Finding finding_from_json(const nlohmann::json& object) {
  Finding finding;
  finding.id = string_or(object, "id", "unknown");
  finding.severity = parse_severity(string_or(object, "severity", "info")).value_or(Severity::kInfo);
  finding.title = string_or(object, "title", "");
  if (const auto* evidence = find_field(object, "evidence")) {
    if (evidence->is_array()) {
      for (const auto& line : *evidence) {
        if (line.is_string()) finding.evidence.push_back(line.get<std::string>());
      }
    } else if (evidence->is_string()) {
      finding.evidence.push_back(evidence->get<std::string>());
    }
  }
  finding.explanation = string_or(object, "explanation", "");
  finding.cause = string_or(object, "cause", "");
  finding.next_command = string_or(object, "next_command", "");
  for (const auto& gpu : array_or_empty(object, "gpus")) {
    if (gpu.is_number_integer()) finding.gpus.push_back(gpu.get<int>());
  }
  finding.numbers = object_or_empty(object, "numbers");
  return finding;
}

nlohmann::json hypothesis_to_json(const Hypothesis& hypothesis) {
  return {{"id", hypothesis.id},         {"statement", hypothesis.statement},
          {"prediction", hypothesis.prediction}, {"basis", hypothesis.basis},
          {"needs", hypothesis.needs},   {"verdict", verdict_name(hypothesis.verdict)},
          {"evidence", hypothesis.evidence}, {"numbers", hypothesis.numbers}};
}

Hypothesis hypothesis_from_json(const nlohmann::json& object) {
  Hypothesis hypothesis;
  hypothesis.id = string_or(object, "id", "unknown");
  hypothesis.statement = string_or(object, "statement", "");
  hypothesis.prediction = string_or(object, "prediction", "");
  hypothesis.basis = string_or(object, "basis", "");
  hypothesis.needs = string_or(object, "needs", "");
  hypothesis.verdict = parse_verdict(string_or(object, "verdict", "untested")).value_or(Verdict::kUntested);
  hypothesis.evidence = string_or(object, "evidence", "");
  hypothesis.numbers = object_or_empty(object, "numbers");
  return hypothesis;
}

std::vector<Finding> findings_from_json(const nlohmann::json& array) {
  std::vector<Finding> findings;
  if (!array.is_array()) return findings;
  for (const auto& entry : array) {
    if (entry.is_object()) findings.push_back(finding_from_json(entry));
  }
  return findings;
}

std::vector<Hypothesis> hypotheses_from_json(const nlohmann::json& array) {
  std::vector<Hypothesis> hypotheses;
  if (!array.is_array()) return hypotheses;
  for (const auto& entry : array) {
    if (entry.is_object()) hypotheses.push_back(hypothesis_from_json(entry));
  }
  return hypotheses;
}

}  // namespace linkscope::diagnose
