#pragma once
#include <string>

#include "model/p2p.hpp"

namespace linkscope::report {

// The terminal report of `linkscope p2p`: per size a bandwidth matrix (rows = source, columns = destination,
// N/A where there is no peer access, reasons listed once), per pair a curve table, asymmetry per size, latency
// and host copies. Small copies are labelled latency-bound instead of being compared as bandwidth.
// With several SM kernel shapes (a tuning run) the SM results are one table per size, shape by pair. A --testcase
// run is rendered as render_testcases_text (nvbandwidth's layout).
std::string render_p2p_text(const model::P2pResults& results);

// What was asked, in one line: "methods ce+sm, read mode: the destination GPU's copy engine or kernel pulls;
// sizes 1K..512M (6 sizes)" (the p2p text's header and the reports' run configuration).
std::string p2p_request_text(const plan::P2pRequest& request);


}  // namespace linkscope::report
