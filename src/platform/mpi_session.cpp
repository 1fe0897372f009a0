#include "platform/mpi_session.hpp"

#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/stamp.hpp"

#ifdef LINKSCOPE_HAVE_MPI
// The C API only: the deprecated C++ bindings would need libmpi_cxx at link time.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace linkscope::platform {

#ifdef LINKSCOPE_HAVE_MPI

namespace {

void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
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

MPI_Op to_mpi(MpiSession::Op op) {
  switch (op) {
    case MpiSession::Op::kSum: return MPI_SUM;
    case MpiSession::Op::kMin: return MPI_MIN;
    case MpiSession::Op::kMax: return MPI_MAX;
  }
  return MPI_SUM;
}

}  // namespace

struct MpiSession::State {
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  std::string host;
  MPI_Comm node = MPI_COMM_NULL;
};

bool mpi_built_in() { return true; }

MpiSession::MpiSession(int* argc, char*** argv) : state_(std::make_unique<State>()) {
  int provided = 0;
  mpi_check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &state_->rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &state_->size), "MPI_Comm_size");
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, state_->rank, MPI_INFO_NULL, &state_->node),
            "MPI_Comm_split_type");
  mpi_check(MPI_Comm_rank(state_->node, &state_->local_rank), "MPI_Comm_rank(node)");
  mpi_check(MPI_Comm_size(state_->node, &state_->local_size), "MPI_Comm_size(node)");
  state_->host = host_name();
}

MpiSession::~MpiSession() {
  if (state_->node != MPI_COMM_NULL && finalize_) MPI_Comm_free(&state_->node);
  if (finalize_) MPI_Finalize();
}

int MpiSession::rank() const { return state_->rank; }
int MpiSession::size() const { return state_->size; }
int MpiSession::local_rank() const { return state_->local_rank; }
int MpiSession::local_size() const { return state_->local_size; }
const std::string& MpiSession::host() const { return state_->host; }

void MpiSession::allreduce(double* values, std::size_t n, Op op) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(n), MPI_DOUBLE, to_mpi(op), MPI_COMM_WORLD),
            "MPI_Allreduce");
}

void MpiSession::allreduce(long long* values, std::size_t n, Op op) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(n), MPI_LONG_LONG, to_mpi(op), MPI_COMM_WORLD),
            "MPI_Allreduce");
}

void MpiSession::broadcast(void* data, std::size_t bytes, int root) {
  mpi_check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
}

std::vector<std::string> MpiSession::gather(const std::string& text, int root) {
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(state_->rank == root ? state_->size : 0);
  mpi_check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  mpi_check(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, root,
                        MPI_COMM_WORLD),
            "MPI_Gatherv");
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < lengths.size(); ++i) parts.push_back(all.substr(offsets[i], lengths[i]));
  return parts;
}

void MpiSession::barrier() { mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void MpiSession::abort_job(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

void MpiSession::send_text(int dest, const std::string& text, double timeout_s, const std::string& what) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Isend(text.data(), message_size(text), MPI_CHAR, dest, kTextTag, MPI_COMM_WORLD, &request), "MPI_Isend");
  const Poll poll(timeout_s);
  for (int done = 0;;) {
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done != 0) return;
    if (poll.expired()) wait_expired({dest}, timeout_s, what);
    poll.pause();
  }
}

std::optional<std::string> MpiSession::try_receive_text(int source) {
  int arrived = 0;
  MPI_Status status;
  mpi_check(MPI_Iprobe(source, kTextTag, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (arrived == 0) return std::nullopt;
  int count = 0;
  mpi_check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
  std::string text(static_cast<std::size_t>(count), '\0');
  mpi_check(MPI_Recv(text.data(), count, MPI_CHAR, source, kTextTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
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
  std::vector<MPI_Request> requests;
  std::vector<int> peers;
  for (int member : members) {
    if (member == root) continue;
    requests.push_back(MPI_REQUEST_NULL);
    peers.push_back(member);
    mpi_check(MPI_Isend(text.data(), message_size(text), MPI_CHAR, member, kTextTag, MPI_COMM_WORLD, &requests.back()),
              "MPI_Isend");
  }
  const Poll poll(timeout_s);
  for (;;) {
    std::vector<int> missing;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      int done = 0;
      mpi_check(MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done == 0) missing.push_back(peers[i]);
    }
    if (missing.empty()) return text;
    if (poll.expired()) wait_expired(missing, timeout_s, what);
    poll.pause();
  }
}

#else  // built without MPI

struct MpiSession::State {};

bool mpi_built_in() { return false; }

MpiSession::MpiSession(int*, char***) {
  throw UsageError("this linkscope was built without MPI; multi-process runs need a build with an MPI C library");
}
MpiSession::~MpiSession() = default;
int MpiSession::rank() const { return 0; }
int MpiSession::size() const { return 1; }
int MpiSession::local_rank() const { return 0; }
int MpiSession::local_size() const { return 1; }
const std::string& MpiSession::host() const {
  static const std::string none;
  return none;
}
void MpiSession::allreduce(double*, std::size_t, Op) {}
void MpiSession::allreduce(long long*, std::size_t, Op) {}
void MpiSession::broadcast(void*, std::size_t, int) {}
std::vector<std::string> MpiSession::gather(const std::string& text, int) { return {text}; }
void MpiSession::barrier() {}
void MpiSession::abort_job(int code) { std::_Exit(code); }
void MpiSession::send_text(int, const std::string&, double, const std::string&) {}
std::string MpiSession::receive_text(int, double, const std::string&) { return {}; }
std::optional<std::string> MpiSession::try_receive_text(int) { return std::nullopt; }
std::vector<std::string> MpiSession::gather_text(const std::string& text, int, const std::vector<int>&, double,
                                                 const std::string&) {
  return {text};
}
std::string MpiSession::broadcast_text(const std::string& text, int, const std::vector<int>&, double, const std::string&) {
  return text;
}

#endif

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
