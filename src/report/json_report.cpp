#include "report/json_report.hpp"

namespace linkscope::report {

std::string render_json(const RunDocument& run) { return run_to_json(run).dump(2) + "\n"; }

}  // namespace linkscope::report
