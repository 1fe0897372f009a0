// linkscope_mpi_check: MpiSession through the run-time MPI loader, without the rest of linkscope, so the adapters
// and the launchers (mpirun, mpiexec.hydra, srun) are tested on the CPU. tests/mpi/mpi_launcher_test.cpp runs it.
//   linkscope_mpi_check hello   every rank's greeting gathered at rank 0 (blocking and deadline-bound), reductions
//                               and broadcasts checked; rank 0 prints one line per rank, then "ok: N ranks"
//   linkscope_mpi_check stall   the last rank never answers; rank 0 names it after 2 s and ends the job (exit 4)
//   linkscope_mpi_check die     the last rank aborts (SIGABRT) once the session is up; the others wait for it
// Without a launcher it opens no MPI: "no launcher: single process, no MPI library loaded".
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "platform/mpi_library.hpp"
#include "platform/mpi_session.hpp"
#include "runtime/launch_environment.hpp"

namespace {

using linkscope::platform::MpiSession;

// Whether a libmpi is mapped into this process.
bool mpi_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libmpi") != std::string::npos || line.find("/libmpich") != std::string::npos) return true;
  }
  return false;
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw linkscope::Error(linkscope::ExitCode::kInternal, "check failed: " + what);
}

int hello(MpiSession& mpi) {
  const int n = mpi.size();
  const auto& lib = linkscope::platform::mpi_library();
  const std::string greeting = fmt::format("rank {} of {} on {}: local rank {} of {}, {} adapter, {}", mpi.rank(), n,
                                           mpi.host(), mpi.local_rank(), mpi.local_size(), lib.family, lib.library);
  std::vector<int> everyone(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) everyone[static_cast<std::size_t>(r)] = r;

  std::vector<long long> sums = {mpi.rank(), 1};
  mpi.allreduce(sums.data(), sums.size(), MpiSession::Op::kSum);
  expect(sums[0] == static_cast<long long>(n) * (n - 1) / 2 && sums[1] == n, "allreduce sum of the ranks");
  std::vector<double> lowest = {static_cast<double>(mpi.rank()) + 0.5};
  mpi.allreduce(lowest.data(), lowest.size(), MpiSession::Op::kMin);
  std::vector<double> highest = {static_cast<double>(mpi.rank())};
  mpi.allreduce(highest.data(), highest.size(), MpiSession::Op::kMax);
  expect(lowest[0] == 0.5 && highest[0] == n - 1, "allreduce min and max");
  long long token = mpi.rank() == 0 ? 0x5eed : 0;
  mpi.broadcast(&token, sizeof token, 0);
  expect(token == 0x5eed, "broadcast from rank 0");

  const auto blocking = mpi.gather(greeting, 0);
  const auto polled = mpi.gather_text(greeting, 0, everyone, 20, "gathering the greetings");
  const auto word = mpi.broadcast_text(mpi.rank() == 0 ? "from rank 0" : "", 0, everyone, 20, "broadcasting a word");
  expect(word == "from rank 0", "broadcast_text");
  mpi.barrier();
  if (mpi.rank() != 0) return 0;
  expect(blocking == polled, "gather and gather_text agree");
  expect(blocking.size() == static_cast<std::size_t>(n), "one greeting per rank");
  for (int r = 0; r < n; ++r) {
    expect(blocking[static_cast<std::size_t>(r)].rfind(fmt::format("rank {} of {} ", r, n), 0) == 0,
           "greetings in rank order");
    std::printf("%s\n", blocking[static_cast<std::size_t>(r)].c_str());
  }
  std::printf("library: %s (%s)\nok: %d ranks\n", lib.library.c_str(), lib.library_version.c_str(), n);
  return 0;
}

int stall(MpiSession& mpi) {
  const int last = mpi.size() - 1;
  if (mpi.rank() == last) {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  std::vector<int> everyone;
  for (int r = 0; r < mpi.size(); ++r) everyone.push_back(r);
  try {
    mpi.gather_text("here", 0, everyone, mpi.rank() == 0 ? 2 : 4, "gathering the greetings");
    mpi.barrier();
  } catch (const linkscope::platform::MpiWaitTimeout& e) {
    std::fprintf(stderr, "linkscope_mpi_check: error (rank %d): %s; ending the MPI job\n", mpi.rank(), e.what());
    mpi.abort_job(linkscope::to_int(e.code()));
  }
  return 0;
}

int die(MpiSession& mpi) {
  if (mpi.rank() == mpi.size() - 1) std::abort();
  std::vector<int> everyone;
  for (int r = 0; r < mpi.size(); ++r) everyone.push_back(r);
  mpi.gather_text("here", 0, everyone, 20, "waiting for a rank that died");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "hello";
  try {
    const auto launch = linkscope::runtime::detect_launch(linkscope::Environment::from_process());
    if (!launch.parallel()) {
      std::printf("no launcher: single process, %s\n", mpi_mapped() ? "an MPI library is loaded" : "no MPI library loaded");
      return mpi_mapped() ? 1 : 0;
    }
    MpiSession mpi(&argc, &argv);
    if (mode == "hello") return hello(mpi);
    if (mode == "stall") return stall(mpi);
    if (mode == "die") return die(mpi);
    throw linkscope::UsageError("unknown mode '" + mode + "' (hello, stall, die)");
  } catch (const linkscope::Error& e) {
    std::fprintf(stderr, "linkscope_mpi_check: error: %s\n", e.what());
    return linkscope::to_int(e.code());
  }
}
