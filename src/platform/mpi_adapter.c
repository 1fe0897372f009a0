/* One MPI adapter (platform/mpi_adapter_abi.h): compiled once per MPI family against that family's mpi.h
 * (LSMPI_FAMILY is "openmpi" or "mpich"), into liblinkscope_mpi_<family>.so. It does not link libmpi: linkscope
 * opens the node's libmpi with RTLD_GLOBAL before it opens this adapter, and MPI's symbols resolve to that
 * library. Handles (communicators, datatypes, ops, requests) never leave this file.
 */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#include "platform/mpi_adapter_abi.h"

#ifndef LSMPI_FAMILY
#error "LSMPI_FAMILY must name the MPI family (openmpi or mpich)"
#endif

#define LSMPI_EXPORT __attribute__((visibility("default")))

struct lsmpi_request {
  MPI_Request request;
};

static MPI_Comm node_comm = MPI_COMM_NULL;

static MPI_Op to_mpi_op(int op) {
  switch (op) {
    case LSMPI_OP_MIN: return MPI_MIN;
    case LSMPI_OP_MAX: return MPI_MAX;
    default: return MPI_SUM;
  }
}

LSMPI_EXPORT int lsmpi_abi_version(void) { return LSMPI_ABI_VERSION; }

LSMPI_EXPORT const char* lsmpi_family(void) { return LSMPI_FAMILY; }

LSMPI_EXPORT int lsmpi_library_version(char* text, int capacity) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  int code = MPI_Get_library_version(version, &length);
  if (capacity <= 0) return code;
  if (code != MPI_SUCCESS) length = 0;
  if (length >= capacity) length = capacity - 1;
  memcpy(text, version, (size_t)length);
  text[length] = '\0';
  return code;
}

LSMPI_EXPORT int lsmpi_init(int* rank, int* size, int* local_rank, int* local_size) {
  int provided = 0;
  int code = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (code != MPI_SUCCESS) return code;
  if ((code = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS) return code;
  if ((code = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS) return code;
  code = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node_comm);
  if (code != MPI_SUCCESS) return code;
  if ((code = MPI_Comm_rank(node_comm, local_rank)) != MPI_SUCCESS) return code;
  return MPI_Comm_size(node_comm, local_size);
}

LSMPI_EXPORT int lsmpi_finalize(void) {
  if (node_comm != MPI_COMM_NULL) MPI_Comm_free(&node_comm);
  return MPI_Finalize();
}

LSMPI_EXPORT void lsmpi_error_string(int code, char* text, int capacity) {
  char message[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (capacity <= 0) return;
  if (MPI_Error_string(code, message, &length) != MPI_SUCCESS) length = 0;
  if (length >= capacity) length = capacity - 1;
  memcpy(text, message, (size_t)length);
  text[length] = '\0';
}

LSMPI_EXPORT int lsmpi_allreduce_double(double* values, int count, int op) {
  return MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, to_mpi_op(op), MPI_COMM_WORLD);
}

LSMPI_EXPORT int lsmpi_allreduce_long_long(long long* values, int count, int op) {
  return MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_LONG_LONG, to_mpi_op(op), MPI_COMM_WORLD);
}

LSMPI_EXPORT int lsmpi_broadcast(void* data, int bytes, int root) {
  return MPI_Bcast(data, bytes, MPI_BYTE, root, MPI_COMM_WORLD);
}

LSMPI_EXPORT int lsmpi_gather_int(int value, int* all, int root) {
  return MPI_Gather(&value, 1, MPI_INT, all, 1, MPI_INT, root, MPI_COMM_WORLD);
}

LSMPI_EXPORT int lsmpi_gatherv_bytes(const void* data, int bytes, void* all, const int* counts, const int* offsets,
                                     int root) {
  return MPI_Gatherv(data, bytes, MPI_BYTE, all, counts, offsets, MPI_BYTE, root, MPI_COMM_WORLD);
}

LSMPI_EXPORT int lsmpi_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

LSMPI_EXPORT int lsmpi_isend(const void* data, int bytes, int dest, int tag, lsmpi_request** request) {
  lsmpi_request* pending = (lsmpi_request*)malloc(sizeof *pending);
  if (pending == NULL) return MPI_ERR_NO_MEM;
  int code = MPI_Isend(data, bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &pending->request);
  if (code != MPI_SUCCESS) {
    free(pending);
    *request = NULL;
    return code;
  }
  *request = pending;
  return MPI_SUCCESS;
}

LSMPI_EXPORT int lsmpi_test(lsmpi_request** request, int* done) {
  if (*request == NULL) {
    *done = 1;
    return MPI_SUCCESS;
  }
  int code = MPI_Test(&(*request)->request, done, MPI_STATUS_IGNORE);
  if (code == MPI_SUCCESS && *done != 0) {
    free(*request);
    *request = NULL;
  }
  return code;
}

LSMPI_EXPORT int lsmpi_iprobe(int source, int tag, int* arrived, int* bytes) {
  MPI_Status status;
  int code = MPI_Iprobe(source, tag, MPI_COMM_WORLD, arrived, &status);
  *bytes = 0;
  if (code != MPI_SUCCESS || *arrived == 0) return code;
  return MPI_Get_count(&status, MPI_BYTE, bytes);
}

LSMPI_EXPORT int lsmpi_receive(void* data, int bytes, int source, int tag) {
  return MPI_Recv(data, bytes, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

LSMPI_EXPORT void lsmpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

/* Each definition has the type the loader expects: a mismatch is a compile error (-Werror=incompatible-pointer-types). */
#define LSMPI_SIGNATURE(name) lsmpi_##name,
static const lsmpi_api lsmpi_signatures __attribute__((unused)) = {LSMPI_FUNCTIONS(LSMPI_SIGNATURE)};
