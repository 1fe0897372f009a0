#include "platform/mpi_session.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/run.hpp"

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

#endif

}  // namespace linkscope::platform
