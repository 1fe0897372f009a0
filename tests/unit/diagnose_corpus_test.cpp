// The fault corpus (tests/corpus/manifest.tsv): every planted fault gives its finding first, with its severity; every
// healthy capture gives no warning; every rule of src/diagnose/rules.cpp is the top finding of at least one case.
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "capture/captured_machine.hpp"
#include "core/environment.hpp"
#include "core/text.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose/rules.hpp"
#include "model/run_file.hpp"
#include "model/prediction.hpp"
#include "topo/prediction_view.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"
#include "support/temp_dir.hpp"
#include "unit/planted_capture.hpp"

namespace linkscope::diagnose {
namespace {

const std::string kTests = std::string(LINKSCOPE_SOURCE_DIR) + "/tests/";

struct Case {
  std::string id, input, top, severity, planted;
};

std::vector<Case> manifest() {
  std::ifstream file(kTests + "corpus/manifest.tsv");
  std::vector<Case> cases;
  std::string line;
  bool header = true;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // the column names
      header = false;
      continue;
    }
    const auto fields = split_list(line, '\t');
    if (fields.size() != 5) {
      ADD_FAILURE() << "manifest.tsv: not 5 tab-separated fields: " << line;
      continue;
    }
    cases.push_back({fields[0], fields[1], fields[2], fields[3], fields[4]});
  }
  return cases;
}

nlohmann::json read_json(const std::string& relative) {
  std::ifstream file(kTests + relative);
  if (!file) throw std::runtime_error("cannot open " + kTests + relative);
  return nlohmann::json::parse(file);
}

// What `doctor --xml FILE --env ...` diagnoses: the topology alone, or NCCL's refusal of it.
model::Run topology_run(const std::string& spec) {
  std::istringstream words(spec);
  std::string path, assignment;
  words >> path;
  std::map<std::string, std::string> env;
  while (words >> assignment) env[assignment.substr(0, assignment.find('='))] = assignment.substr(assignment.find('=') + 1);
  const Environment environment = Environment::from_map(env);
  model::Run run;
  run.environment.variables = environment.relevant();
  try {
    run.topology = topo::topology_view(topo::load_topology_file(kTests + path, environment, test::nccl_2_28_9()));
  } catch (const topo::TopologyRefused& refused) {
    run.topology.present = true;
    run.topology.source = path;
    run.topology.refused = refused.what();
  }
  return run;
}

// What `doctor --capture FILE` diagnoses: a planted capture (unit/planted_capture.hpp) through the same discovery.
model::Run capture_run(const std::string& relative) {
  const test::TempDir work;
  // A capture taken as it is, or a planted one built from its case file.
  const bool taken = relative.size() > 4 && relative.compare(relative.size() - 4, 4, ".tgz") == 0;
  const std::string file = taken ? kTests + relative
                                 : test::build_planted_capture(read_json(relative), kTests, work.path());
  return capture::captured_run(capture::load_capture(file, Environment::from_map({})), {}, {});
}

model::Run case_run(const Case& c) {
  if (c.input.rfind("xml:", 0) == 0) return topology_run(c.input.substr(4));
  if (c.input.rfind("capture:", 0) == 0) return capture_run(c.input.substr(8));
  nlohmann::json document = read_json(c.input);
  // "prediction_from": a topology XML whose NCCL model (graphs, tuning) the case's run carries, as the doctor
  // records it live, for the rules that compare with NCCL's own prediction.
  const std::string prediction_from = document.value("prediction_from", "");
  if (document.contains("patch")) document = read_json(document["base"].get<std::string>()).patch(document["patch"]);
  if (!prediction_from.empty()) {
    const auto topology = topo::load_topology_file(kTests + prediction_from, Environment{}, test::nccl_2_28_9());
    model::put_prediction(document["model"], topo::predict_topology(topology, Environment{}));
  }
  return model::run_from_json(document, c.input);
}

std::string findings_text(const model::Run& run) {
  std::string text;
  for (const auto& f : run.findings) text += fmt::format("{} {}: {}\n", model::severity_name(f.severity), f.id, f.title);
  return text.empty() ? "no finding\n" : text;
}

class Corpus : public ::testing::TestWithParam<Case> {};

TEST_P(Corpus, TopFindingIsThePlantedFault) {
  const Case& c = GetParam();
  model::Run run = case_run(c);
  diagnose_into(run, true);
  if (c.top == "healthy") {
    for (const auto& f : run.findings) {
      EXPECT_LT(f.severity, Severity::kWarning) << c.id << ": " << findings_text(run);
    }
    return;
  }
  ASSERT_FALSE(run.findings.empty()) << c.id << " (" << c.planted << "): no finding";
  EXPECT_EQ(run.findings.front().id, c.top) << c.id << " (" << c.planted << "):\n" << findings_text(run);
  EXPECT_EQ(std::string(model::severity_name(run.findings.front().severity)), c.severity) << c.id << ":\n" << findings_text(run);
  EXPECT_FALSE(run.findings.front().next_command.empty()) << c.id;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name;
  for (char ch : info.param.id) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Manifest, Corpus, ::testing::ValuesIn(manifest()), case_name);

TEST(CorpusManifest, AtLeastThirtyFaultsTenHealthyAndEveryRuleOnTop) {
  std::set<std::string> tops;
  int faults = 0, healthy = 0;
  for (const auto& c : manifest()) {
    (c.top == "healthy" ? healthy : faults) += 1;
    tops.insert(c.top);
  }
  EXPECT_GE(faults, 30);
  EXPECT_GE(healthy, 10);
  for (const auto& rule : all_rules()) {
    EXPECT_EQ(tops.count(std::string(rule.id)), 1u) << "no corpus case has rule " << rule.id << " on top";
  }
}

}  // namespace
}  // namespace linkscope::diagnose
