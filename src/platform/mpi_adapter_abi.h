/* The C ABI between linkscope and its MPI adapters (liblinkscope_mpi_openmpi.so, liblinkscope_mpi_mpich.so).
 *
 * linkscope links no MPI. Under a launcher it opens the node's libmpi (RTLD_GLOBAL), then the adapter compiled
 * against that MPI family's mpi.h, and resolves the functions below from it with dlsym (platform/mpi_library.cpp).
 * The adapter is plain C, includes mpi.h, and leaves MPI's own symbols to the libmpi opened before it, so one
 * adapter serves every library of its ABI (Open MPI 4/5 and HPC-X: libmpi.so.40; MPICH, Intel MPI, MVAPICH:
 * libmpi.so.12 or libmpich.so.12).
 *
 * Every function returning int returns 0 on success or the MPI error code; lsmpi_error_string describes it.
 * Reduction ops: LSMPI_OP_SUM, LSMPI_OP_MIN, LSMPI_OP_MAX. Messages are bytes on MPI_COMM_WORLD.
 * This header includes no MPI header: it is read by both sides. Change a signature: bump the version.
 */
#ifndef LINKSCOPE_PLATFORM_MPI_ADAPTER_ABI_H
#define LINKSCOPE_PLATFORM_MPI_ADAPTER_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

#define LSMPI_ABI_VERSION 1

enum { LSMPI_OP_SUM = 0, LSMPI_OP_MIN = 1, LSMPI_OP_MAX = 2 };

/* A pending send; owned by the adapter, released when lsmpi_test reports it done. */
typedef struct lsmpi_request lsmpi_request;

/* LSMPI_ABI_VERSION of the header the adapter was built with. */
typedef int (*lsmpi_abi_version_fn)(void);
/* "openmpi" or "mpich": the family of the mpi.h it was compiled against. */
typedef const char* (*lsmpi_family_fn)(void);
/* MPI_Get_library_version (callable before init), truncated to capacity - 1 bytes. */
typedef int (*lsmpi_library_version_fn)(char* text, int capacity);
/* MPI_Init_thread (funneled), world rank and size, node-local rank and size (MPI_Comm_split_type SHARED). */
typedef int (*lsmpi_init_fn)(int* rank, int* size, int* local_rank, int* local_size);
/* Frees the node communicator, MPI_Finalize. */
typedef int (*lsmpi_finalize_fn)(void);
typedef void (*lsmpi_error_string_fn)(int code, char* text, int capacity);
typedef int (*lsmpi_allreduce_double_fn)(double* values, int count, int op);
typedef int (*lsmpi_allreduce_long_long_fn)(long long* values, int count, int op);
typedef int (*lsmpi_broadcast_fn)(void* data, int bytes, int root);
/* Every rank's value at root: `all` holds world-size ints there (ignored elsewhere). */
typedef int (*lsmpi_gather_int_fn)(int value, int* all, int root);
/* MPI_Gatherv of bytes; counts and offsets matter at root only. */
typedef int (*lsmpi_gatherv_bytes_fn)(const void* data, int bytes, void* all, const int* counts, const int* offsets,
                                      int root);
typedef int (*lsmpi_barrier_fn)(void);
/* MPI_Isend; *request is set to the pending send. */
typedef int (*lsmpi_isend_fn)(const void* data, int bytes, int dest, int tag, lsmpi_request** request);
/* MPI_Test; when done, frees the request and sets *request to null. */
typedef int (*lsmpi_test_fn)(lsmpi_request** request, int* done);
/* MPI_Iprobe; *bytes is the size of the message that arrived. */
typedef int (*lsmpi_iprobe_fn)(int source, int tag, int* arrived, int* bytes);
typedef int (*lsmpi_receive_fn)(void* data, int bytes, int source, int tag);
/* MPI_Abort(MPI_COMM_WORLD, code). */
typedef void (*lsmpi_abort_fn)(int code);

/* Every function of the ABI: the adapter exports lsmpi_<name>, of type lsmpi_<name>_fn. */
#define LSMPI_FUNCTIONS(X)                                                                                  \
  X(abi_version) X(family) X(library_version) X(init) X(finalize) X(error_string) X(allreduce_double)        \
  X(allreduce_long_long) X(broadcast) X(gather_int) X(gatherv_bytes) X(barrier) X(isend) X(test) X(iprobe) \
  X(receive) X(abort)

/* The adapter as the loader holds it: one pointer per function, filled with dlsym. */
#define LSMPI_API_MEMBER(name) lsmpi_##name##_fn name;
typedef struct lsmpi_api {
  LSMPI_FUNCTIONS(LSMPI_API_MEMBER)
} lsmpi_api;
#undef LSMPI_API_MEMBER

#ifdef __cplusplus
}
#endif

#endif
