#include "report/json_report.hpp"

#include "model/run_file.hpp"

namespace linkscope::report {

std::string render_json(const model::Run& run) { return model::run_text(run); }

}  // namespace linkscope::report
