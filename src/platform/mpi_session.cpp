#include "platform/mpi_session.hpp"

#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/stamp.hpp"
#include "platform/mpi_library.hpp"
#include "runtime/launch_environment.hpp"

namespace linkscope::platform {

namespace {

const lsmpi_api& api() { return mpi_library().api; }

void mpi_check(int code, const char* call) {
  if (code == 0) return;
  char text[512] = {};
  api().error_string(code, text, sizeof text);
  throw Error(ExitCode::kDevice, fmt::format("{} failed: {}", call, text));
}

// One tag for every deadline-bound message: MPI keeps messages between two ranks in order, and the
// blocking collectives above use MPI's own collective channel.
constexpr int kTextTag = 7001;

using Clock = std::chrono::steady_clock;

// Polls until done or the deadline: spins for the first few milliseconds (barriers between benchmark
// batches should release every rank at once), then sleeps between polls, longer the longer the wait (ranks
// idle through another host's measurements must not take CPU from them).
class Poll {
 public:
  explicit Poll(double timeout_s)
      : start_(Clock::now()),
        deadline_(start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s))) {}
  bool expired() const { return Clock::now() > deadline_; }
  void pause() const {
    const auto waited = Clock::now() - start_;
    if (waited > std::chrono::seconds(1)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    } else if (waited > std::chrono::milliseconds(20)) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

 private:
  Clock::time_point start_, deadline_;
};

int message_size(const std::string& text) {
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(ExitCode::kInternal, fmt::format("an MPI message of {} bytes is too large", text.size()));
  }
  return static_cast<int>(text.size());
}

int to_adapter(MpiSession::Op op) {
  switch (op) {
    case MpiSession::Op::kSum: return LSMPI_OP_SUM;
    case MpiSession::Op::kMin: return LSMPI_OP_MIN;
    case MpiSession::Op::kMax: return LSMPI_OP_MAX;
  }
  return LSMPI_OP_SUM;
}

int count_of(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(ExitCode::kInternal, fmt::format("an MPI call on {} elements is too large", n));
  }
  return static_cast<int>(n);
}

// An MPI that is not the launcher's initialises as a job of its own (a singleton): every task would run alone.
void check_world_matches_launcher(const MpiLibrary& lib, int size) {
  const auto launch = runtime::detect_launch(Environment::from_process());
  if (!launch.parallel() || launch.world_size == size) return;
  lib.api.finalize();
  const bool srun = launch.launcher.rfind("SLURM_", 0) == 0;
  throw DeviceError(fmt::format("MPI library {} ({}) sees {} rank(s) but the launcher started {} ({}): it is not the "
                                "MPI that started this job; set LINKSCOPE_MPI_LIBRARY to the launcher's libmpi.so{}",
                                lib.library, lib.library_version, size, launch.world_size, launch.launcher,
                                srun ? " (srun needs --mpi=pmix for Open MPI, --mpi=pmi2 for MPICH)" : ""));
}

}  // namespace

struct MpiSession::State {
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  std::string host;
};

bool mpi_built_in() { return mpi_adapters_built(); }

MpiSession::MpiSession(int*, char***) : state_(std::make_unique<State>()) {
  if (!mpi_adapters_built()) {
    throw UsageError("this linkscope was built without MPI; multi-process runs need a build with an MPI adapter");
  }
  const MpiLibrary& lib = mpi_library();
  mpi_check(lib.api.init(&state_->rank, &state_->size, &state_->local_rank, &state_->local_size),
            "MPI_Init_thread");
  check_world_matches_launcher(lib, state_->size);
  state_->host = host_name();
}

MpiSession::~MpiSession() {
  if (finalize_) api().finalize();
}

int MpiSession::rank() const { return state_->rank; }
int MpiSession::size() const { return state_->size; }
int MpiSession::local_rank() const { return state_->local_rank; }
int MpiSession::local_size() const { return state_->local_size; }
const std::string& MpiSession::host() const { return state_->host; }

void MpiSession::allreduce(double* values, std::size_t n, Op op) {
  mpi_check(api().allreduce_double(values, count_of(n), to_adapter(op)), "MPI_Allreduce");
}

void MpiSession::allreduce(long long* values, std::size_t n, Op op) {
  mpi_check(api().allreduce_long_long(values, count_of(n), to_adapter(op)), "MPI_Allreduce");
}

void MpiSession::broadcast(void* data, std::size_t bytes, int root) {
  mpi_check(api().broadcast(data, count_of(bytes), root), "MPI_Bcast");
}

std::vector<std::string> MpiSession::gather(const std::string& text, int root) {
  const int length = message_size(text);
  std::vector<int> lengths(state_->rank == root ? state_->size : 0);
  mpi_check(api().gather_int(length, lengths.data(), root), "MPI_Gather");
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  mpi_check(api().gatherv_bytes(text.data(), length, all.data(), lengths.data(), offsets.data(), root), "MPI_Gatherv");
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < lengths.size(); ++i) parts.push_back(all.substr(offsets[i], lengths[i]));
  return parts;
}

void MpiSession::barrier() { mpi_check(api().barrier(), "MPI_Barrier"); }

void MpiSession::abort_job(int code) {
  api().abort(code);
  std::_Exit(code);
}

void MpiSession::send_text(int dest, const std::string& text, double timeout_s, const std::string& what) {
  lsmpi_request* request = nullptr;
  mpi_check(api().isend(text.data(), message_size(text), dest, kTextTag, &request), "MPI_Isend");
  const Poll poll(timeout_s);
  for (int done = 0;;) {
    mpi_check(api().test(&request, &done), "MPI_Test");
    if (done != 0) return;
    if (poll.expired()) wait_expired({dest}, timeout_s, what);
    poll.pause();
  }
}

std::optional<std::string> MpiSession::try_receive_text(int source) {
  int arrived = 0, count = 0;
  mpi_check(api().iprobe(source, kTextTag, &arrived, &count), "MPI_Iprobe");
  if (arrived == 0) return std::nullopt;
  std::string text(static_cast<std::size_t>(count), '\0');
  mpi_check(api().receive(text.data(), count, source, kTextTag), "MPI_Recv");
  return text;
}

std::string MpiSession::receive_text(int source, double timeout_s, const std::string& what) {
  const Poll poll(timeout_s);
  for (;;) {
    if (auto text = try_receive_text(source)) return std::move(*text);
    if (poll.expired()) wait_expired({source}, timeout_s, what);
    poll.pause();
  }
}

std::vector<std::string> MpiSession::gather_text(const std::string& text, int root, const std::vector<int>& members,
                                                 double timeout_s, const std::string& what) {
  if (state_->rank != root) {
    send_text(root, text, timeout_s, what);
    return {};
  }
  std::vector<std::string> texts(members.size());
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == root) {
      texts[i] = text;
    } else {
      pending.push_back(i);
    }
  }
  const Poll poll(timeout_s);
  while (!pending.empty()) {
    bool progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      auto arrived = try_receive_text(members[*it]);
      if (!arrived) {
        ++it;
        continue;
      }
      texts[*it] = std::move(*arrived);
      it = pending.erase(it);
      progress = true;
    }
    if (pending.empty()) break;
    if (poll.expired()) {
      std::vector<int> missing;
      for (std::size_t i : pending) missing.push_back(members[i]);
      wait_expired(missing, timeout_s, what);
    }
    if (!progress) poll.pause();
  }
  return texts;
}

std::string MpiSession::broadcast_text(const std::string& text, int root, const std::vector<int>& members,
                                       double timeout_s, const std::string& what) {
  if (state_->rank != root) return receive_text(root, timeout_s, what);
  std::vector<lsmpi_request*> requests;
  std::vector<int> peers;
  for (int member : members) {
    if (member == root) continue;
    requests.push_back(nullptr);
    peers.push_back(member);
    mpi_check(api().isend(text.data(), message_size(text), member, kTextTag, &requests.back()), "MPI_Isend");
  }
  const Poll poll(timeout_s);
  for (;;) {
    std::vector<int> missing;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      int done = 0;
      mpi_check(api().test(&requests[i], &done), "MPI_Test");
      if (done == 0) missing.push_back(peers[i]);
    }
    if (missing.empty()) return text;
    if (poll.expired()) wait_expired(missing, timeout_s, what);
    poll.pause();
  }
}

std::string MpiSession::rank_label(int rank) const {
  if (rank >= 0 && static_cast<std::size_t>(rank) < rank_labels_.size()) return rank_labels_[static_cast<std::size_t>(rank)];
  return fmt::format("rank {}", rank);
}

void MpiSession::wait_expired(const std::vector<int>& missing, double timeout_s, const std::string& what) {
  // A peer that never answers would also block MPI_Finalize.
  finalize_ = false;
  std::string names;
  for (std::size_t i = 0; i < missing.size() && i < 8; ++i) names += (i == 0 ? "" : ", ") + rank_label(missing[i]);
  if (missing.size() > 8) names += fmt::format(" and {} more", missing.size() - 8);
  throw MpiWaitTimeout(fmt::format("{} did not answer within {:g} s while {}", names, timeout_s, what), missing);
}

}  // namespace linkscope::platform
