#include "report_golden.hpp"

#include "core/environment.hpp"
#include "support/run_command.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::test {

model::Run diagnosed_topology_file(const std::string& relative_xml) {
  model::Run run;
  run.tool = {"linkscope", "fixture", "fixture"};
  run.config.subcommand = "doctor";
  run.config.argv = {"linkscope", "doctor", "--xml", relative_xml};
  run.config.started_at = "2026-11-29T22:38:56Z";
  run.config.host = "fixture";
  const Environment env = Environment::from_map({});
  run.environment.variables = env.relevant();
  // Loaded under its repository-relative name so the golden output does not depend on where the clone lives.
  run.topology = topo::topology_view(topo::load_topology_string(read_text(fixture(relative_xml)), relative_xml, env, test::nccl_2_28_9()));
  diagnose::diagnose_into(run, true);
  return run;
}

}  // namespace linkscope::test
