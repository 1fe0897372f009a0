#include "report_golden.hpp"

#include "core/environment.hpp"
#include "support/run_command.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::test {

RunDocument diagnosed_topology_file(const std::string& relative_xml) {
  RunDocument run;
  run.tool = {{"name", "linkscope"}, {"version", "fixture"}, {"git", "fixture"}};
  run.config = {{"subcommand", "doctor"},
                {"argv", {"linkscope", "doctor", "--xml", relative_xml}},
                {"started_at", "2026-11-29T22:38:56Z"},
                {"host", "fixture"}};
  const Environment env = Environment::from_map({});
  run.environment = {{"variables", env.relevant()}};
  // Loaded under its repository-relative name so the golden output does not depend on where the clone lives.
  run.model = topo::model_to_json(topo::load_topology_string(read_text(fixture(relative_xml)), relative_xml, env));
  diagnose::diagnose(run, true);
  return run;
}

}  // namespace linkscope::test
