#pragma once
#include <string>
#include <vector>

#include "model/p2p_testcases.hpp"

namespace linkscope::report {

// `linkscope p2p --testcase`: each testcase as nvbandwidth v0.8 prints it ("Running NAME.", the heading, the
// matrix with 10-wide columns and N/A cells, "SUM KEY VALUE"), so the two outputs diff side by side; a skipped
// testcase is nvbandwidth's "Waived: " line with the reason. Cells that failed are listed after their testcase.
std::string render_testcases_text(const std::vector<model::TestcaseResult>& testcases);

// One matrix in nvbandwidth's layout (heading, column ids, rows, blank line, SUM line).
std::string render_testcase_matrix(const model::TestcaseMatrix& matrix, const std::vector<int>& gpus);

}  // namespace linkscope::report
