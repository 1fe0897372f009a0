#pragma once
#include <string>

#include "platform/mpi_adapter_abi.h"

// The node's MPI, opened at run time. linkscope links no MPI, so it starts (and runs single-node) where no MPI
// is installed; under a launcher MpiSession opens the node's libmpi and the adapter of its ABI through this.
namespace linkscope::platform {

struct MpiLibrary {
  std::string library;          // the libmpi that was opened (a soname, or LINKSCOPE_MPI_LIBRARY's path)
  std::string library_version;  // MPI_Get_library_version, first line
  std::string family;           // "openmpi" or "mpich"
  std::string adapter;          // path of the liblinkscope_mpi_<family>.so that was opened
  lsmpi_api api{};              // the adapter's functions
};

// Opens the MPI once per process: the first of mpi_library_candidates() that dlopen finds (RTLD_GLOBAL, as
// Open MPI's plugins need), its family from its version text, then that family's adapter beside the executable.
// Throws DeviceError (exit 3) naming every library and adapter path it tried, and why each failed.
const MpiLibrary& mpi_library();

// True when this build made at least one adapter (CMake found an MPI family's mpi.h).
bool mpi_adapters_built();

}  // namespace linkscope::platform
