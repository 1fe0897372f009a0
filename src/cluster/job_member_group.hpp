#pragma once
#include <memory>
#include <string>
#include <vector>

#include "measure/collective_process_group.hpp"
#include "platform/mpi_session.hpp"

namespace linkscope::cluster {

// The collective benchmark's process group over some ranks of an MPI job (the two ranks of a host pair, or
// every rank), built on the session's deadline-bound messages: a member that stops answering for
// `timeout_s` seconds throws MpiWaitTimeout naming it, instead of leaving the others blocked in MPI.
std::unique_ptr<measure::ProcessGroup> make_member_group(platform::MpiSession& mpi, std::vector<int> members,
                                                         double timeout_s, std::string what);

}  // namespace linkscope::cluster
