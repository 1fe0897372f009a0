#include "model/diagnosis.hpp"

namespace linkscope::model {

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

nlohmann::json to_json(const Finding& finding) {
  return with_extras({{"id", finding.id},
                      {"severity", severity_name(finding.severity)},
                      {"title", finding.title},
                      {"evidence", finding.evidence},
                      {"explanation", finding.explanation},
                      {"cause", string_or_null(finding.cause)},
                      {"next_command", finding.next_command},
                      {"gpus", finding.gpus},
                      {"numbers", finding.numbers}},
                     finding.extra);
}

Finding finding_from_json(const JsonReader& r) {
  Finding finding;
  finding.id = r.string_or("id", "unknown");
  const std::string severity = r.string_or("severity", "info");
  const auto parsed = parse_severity(severity);
  if (!parsed) r.fail("severity", "unknown severity '" + severity + "' (info, warning, error)");
  finding.severity = *parsed;
  finding.title = r.string_or("title");
  // Evidence is a list of lines; a single string is read as one line.
  if (r.at("evidence").json().is_string()) {
    finding.evidence.push_back(*r.string("evidence"));
  } else {
    finding.evidence = r.strings("evidence");
  }
  finding.explanation = r.string_or("explanation");
  finding.cause = r.string_or("cause");
  finding.next_command = r.string_or("next_command");
  for (auto gpu : r.integers("gpus")) finding.gpus.push_back(static_cast<int>(gpu));
  if (r.has("numbers")) finding.numbers = r.object("numbers").json();
  finding.extra = r.extras();
  return finding;
}

nlohmann::json to_json(const Hypothesis& hypothesis) {
  return with_extras({{"id", hypothesis.id},
                      {"statement", hypothesis.statement},
                      {"prediction", hypothesis.prediction},
                      {"basis", hypothesis.basis},
                      {"needs", hypothesis.needs},
                      {"verdict", verdict_name(hypothesis.verdict)},
                      {"evidence", hypothesis.evidence},
                      {"numbers", hypothesis.numbers}},
                     hypothesis.extra);
}

Hypothesis hypothesis_from_json(const JsonReader& r) {
  Hypothesis hypothesis;
  hypothesis.id = r.string_or("id", "unknown");
  hypothesis.statement = r.string_or("statement");
  hypothesis.prediction = r.string_or("prediction");
  hypothesis.basis = r.string_or("basis");
  hypothesis.needs = r.string_or("needs");
  const std::string verdict = r.string_or("verdict", "untested");
  const auto parsed = parse_verdict(verdict);
  if (!parsed) r.fail("verdict", "unknown verdict '" + verdict + "' (confirmed, refuted, inconclusive, untested)");
  hypothesis.verdict = *parsed;
  hypothesis.evidence = r.string_or("evidence");
  if (r.has("numbers")) hypothesis.numbers = r.object("numbers").json();
  hypothesis.extra = r.extras();
  return hypothesis;
}

std::vector<Finding> findings_from_json(const JsonReader& array) {
  std::vector<Finding> findings;
  for (const auto& entry : array.elements()) findings.push_back(finding_from_json(entry));
  return findings;
}

std::vector<Hypothesis> hypotheses_from_json(const JsonReader& array) {
  std::vector<Hypothesis> hypotheses;
  for (const auto& entry : array.elements()) hypotheses.push_back(hypothesis_from_json(entry));
  return hypotheses;
}

nlohmann::json to_json(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& finding : findings) out.push_back(to_json(finding));
  return out;
}

nlohmann::json to_json(const std::vector<Hypothesis>& hypotheses) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& hypothesis : hypotheses) out.push_back(to_json(hypothesis));
  return out;
}

}  // namespace linkscope::model
