#include "cluster/job_session.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "cluster/host_identity.hpp"
#include "core/stamp.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/terminal_text.hpp"
#include "linkscope/version.hpp"
#include "model/run.hpp"
#include "platform/nccl_version.hpp"

namespace linkscope::cluster {

ClusterSession::ClusterSession(platform::MpiSession& mpi, const std::vector<std::string>& argv, double timeout_s,
                               const std::function<void(RankHello&)>& fill)
    : mpi_(mpi), timeout_s_(timeout_s) {
  RankHello hello;
  hello.rank = mpi_.rank();
  hello.pid = static_cast<int>(getpid());
  hello.version = kVersion;
  hello.git = kGitDescribe;
  hello.arguments.assign(argv.begin() + (argv.empty() ? 0 : 1), argv.end());
  hello.local_rank = mpi_.local_rank();
  const std::string hostname = host_name();
  hello.host = {hostname, hostname, "hostname"};
  // A failure here is reported by rank 0 for every rank at once, instead of leaving the others waiting.
  try {
    hello.host = resolve_host_identity(Environment::from_process(), hostname, hello.rank);
    if (fill) fill(hello);
  } catch (const Error& e) {
    hello.error = e.what();
    hello.error_exit_code = to_int(e.code());
  }
  const auto hellos = gather_from_all(hello_to_json(hello).dump(), "collecting every rank's greeting");
  std::string roster_text;
  if (is_root()) {
    std::vector<RankHello> parsed;
    for (const auto& text : hellos) parsed.push_back(hello_from_json(nlohmann::json::parse(text)));
    roster_text = roster_to_json(make_roster(parsed)).dump();
  }
  roster_ = roster_from_json(nlohmann::json::parse(broadcast(roster_text, "sending the roster")));
  std::vector<std::string> labels;
  for (int rank = 0; rank < roster_.world_size; ++rank) labels.push_back(roster_.rank_label(rank));
  mpi_.set_rank_labels(labels);
  if (!roster_.refusal.empty()) throw ClusterRefused(roster_.refusal_exit_code, roster_.refusal);
}

std::vector<int> ClusterSession::all_ranks() const {
  std::vector<int> ranks;
  for (int rank = 0; rank < mpi_.size(); ++rank) ranks.push_back(rank);
  return ranks;
}

double ClusterSession::wait_s(double work_s) const {
  return is_root() ? timeout_s_ + work_s : 2 * (timeout_s_ + work_s) + 10;
}

std::vector<std::string> ClusterSession::gather_from_leaders(const std::string& text, const std::string& what,
                                                             double work_s) {
  if (!leads_host() && !is_root()) return {};
  std::vector<int> members = roster_.leaders();
  auto texts = mpi_.gather_text(text, 0, members, wait_s(work_s), what);
  return texts;
}

std::vector<std::string> ClusterSession::gather_from_all(const std::string& text, const std::string& what, double work_s) {
  return mpi_.gather_text(text, 0, all_ranks(), wait_s(work_s), what);
}

std::string ClusterSession::broadcast(const std::string& text, const std::string& what, double work_s) {
  return mpi_.broadcast_text(text, 0, all_ranks(), wait_s(work_s), what);
}

double ClusterSession::now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void ClusterSession::send_progress(double phase_start_s, const std::string& step) {
  const nlohmann::json message = {{"progress", step}, {"elapsed_s", now_s() - phase_start_s}};
  mpi_.send_text(0, message.dump(), wait_s(), "telling rank 0 about progress");
}

std::vector<std::string> ClusterSession::gather_from_leaders_with_progress(const std::string& text, const std::string& what,
                                                                           double idle_s, double phase_start_s) {
  if (!is_root()) {
    if (leads_host()) mpi_.send_text(0, nlohmann::json({{"done", text}}).dump(), wait_s(), what);
    return {};
  }
  const std::vector<int> leaders = roster_.leaders();
  std::vector<std::string> texts(leaders.size());
  std::vector<double> last_sign(leaders.size(), 0);  // elapsed seconds each leader last reported
  std::vector<bool> done(leaders.size(), false);
  for (std::size_t i = 0; i < leaders.size(); ++i) {
    if (leaders[i] == 0) {
      texts[i] = text;
      done[i] = true;
    }
  }
  for (;;) {
    std::vector<int> silent;
    bool pending = false;
    for (std::size_t i = 0; i < leaders.size(); ++i) {
      while (!done[i]) {
        const auto message = mpi_.try_receive_text(leaders[i]);
        if (!message) break;
        const auto parsed = nlohmann::json::parse(*message);
        if (parsed.contains("done")) {
          texts[i] = parsed["done"].get<std::string>();
          done[i] = true;
        } else {
          last_sign[i] = parsed.value("elapsed_s", last_sign[i]);
        }
      }
      if (done[i]) continue;
      pending = true;
      if (now_s() - phase_start_s - last_sign[i] > idle_s) silent.push_back(leaders[i]);
    }
    if (!pending) return texts;
    if (!silent.empty()) mpi_.wait_expired(silent, idle_s, what + " (no sign of life for that long)");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void ClusterSession::barrier(const std::string& what, double work_s) {
  gather_from_all("", what, work_s);
  broadcast("", what, work_s);
}

namespace {

// Ends the job from this rank: no other rank is left waiting for it.
[[noreturn]] void end_job(platform::MpiSession& mpi, const std::string& what, int code) {
  print_stderr_line(fmt::format("linkscope: error ({}): {}; ending the MPI job", mpi.rank_label(mpi.rank()), what));
  std::fflush(stderr);
  mpi.abort_job(code);
}

}  // namespace

void fill_nccl_version(HostReport& report) {
  try {
    report.nccl_version = platform::nccl_library_info().version;
  } catch (const Error& e) {
    report.nccl_version_reason = e.what();
  }
}

int run_cluster_command(const std::vector<std::string>& argv, double timeout_s,
                        const std::function<void(RankHello&)>& fill,
                        const std::function<int(ClusterSession&)>& body) {
  auto mpi = std::make_unique<platform::MpiSession>(nullptr, nullptr);
  std::unique_ptr<ClusterSession> session;
  try {
    session = std::make_unique<ClusterSession>(*mpi, argv, timeout_s, fill);
  } catch (const ClusterRefused& refused) {
    // Every rank got the same refusal at the same step, so MPI ends normally. Rank 0 says why before MPI ends
    // and carries the exit code; the others exit 0, so that the launcher does not end the job (and rank 0's
    // message with it) when they finish first.
    const bool root = mpi->rank() == 0;
    if (root) print_stderr_line(std::string("linkscope: error: ") + refused.what());
    std::fflush(stderr);
    mpi.reset();
    return root ? to_int(refused.code()) : 0;
  } catch (const Error& e) {
    end_job(*mpi, e.what(), to_int(e.code()));
  }
  try {
    const int code = body(*session);
    session.reset();
    return code;
  } catch (const Error& e) {
    end_job(*mpi, e.what(), to_int(e.code()));
  } catch (const std::exception& e) {
    end_job(*mpi, std::string("internal error: ") + e.what(), to_int(ExitCode::kInternal));
  }
}

}  // namespace linkscope::cluster
