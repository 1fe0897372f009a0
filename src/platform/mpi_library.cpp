#include "platform/mpi_library.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <vector>

#include <fmt/format.h>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "platform/mpi_library_choice.hpp"
#include "platform/open_once.hpp"

namespace linkscope::platform {

namespace {

std::string dl_failure() {
  const char* why = dlerror();
  return why != nullptr ? why : "unknown reason";
}

std::string first_line(std::string text) {
  const auto newline = text.find_first_of("\r\n");
  if (newline != std::string::npos) text.resize(newline);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// MPI_Get_library_version straight from the library (MPI-3: callable before MPI_Init).
std::string library_version_of(void* handle) {
  using Fn = int (*)(char*, int*);
  auto fn = reinterpret_cast<Fn>(dlsym(handle, "MPI_Get_library_version"));
  if (fn == nullptr) return {};
  std::vector<char> text(8192, '\0');  // larger than any MPI_MAX_LIBRARY_VERSION_STRING
  int length = 0;
  if (fn(text.data(), &length) != 0 || length <= 0) return {};
  text.back() = '\0';
  return first_line(text.data());  // some libraries count the terminating zero in `length`
}

void resolve_api(void* handle, const std::string& path, lsmpi_api& api) {
#define LINKSCOPE_RESOLVE(name)                                                                            \
  api.name = reinterpret_cast<lsmpi_##name##_fn>(dlsym(handle, "lsmpi_" #name));                          \
  if (api.name == nullptr) {                                                                               \
    throw DeviceError(fmt::format("MPI adapter {} lacks lsmpi_{}: it is not a linkscope MPI adapter of "    \
                                  "this version",                                                          \
                                  path, #name));                                                           \
  }
  LSMPI_FUNCTIONS(LINKSCOPE_RESOLVE)
#undef LINKSCOPE_RESOLVE
  if (api.abi_version() != LSMPI_ABI_VERSION) {
    throw DeviceError(fmt::format("MPI adapter {} has ABI version {}, this linkscope needs {}: install the "
                                  "adapters of the same build as the binary",
                                  path, api.abi_version(), LSMPI_ABI_VERSION));
  }
}

void open_adapter(MpiLibrary& lib) {
  std::vector<std::string> tried;
  for (const auto& dir : mpi_adapter_directories(self_executable())) {
    const std::string path = dir + "/" + mpi_adapter_file(lib.family);
    if (access(path.c_str(), F_OK) != 0) {
      tried.push_back(path + ": not found");
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried.push_back(fmt::format("{}: {}", path, dl_failure()));
      continue;
    }
    lib.adapter = path;
    resolve_api(handle, path, lib.api);
    return;
  }
  throw DeviceError(fmt::format("MPI library {} ({}) was found but not linkscope's adapter for it: {} (install "
                                "linkscope with its lib/linkscope directory beside bin/)",
                                lib.library, lib.library_version, join(tried, "; ")));
}

MpiLibrary open_mpi() {
  const Environment env = Environment::from_process();
  if (!mpi_adapters_built()) {
    throw DeviceError("this linkscope was built without an MPI adapter (CMake found no Open MPI or MPICH mpi.h)");
  }
  if (const auto why = srun_without_mpi_plugin(env)) throw DeviceError(*why);
  std::vector<std::string> tried;
  for (const auto& candidate : mpi_library_candidates(env)) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      tried.push_back(fmt::format("{}: {}", candidate, dl_failure()));
      continue;
    }
    // The handle stays open for the life of the process: MPI cannot be unloaded.
    MpiLibrary lib;
    lib.library = candidate;
    lib.library_version = library_version_of(handle);
    const auto family = mpi_family_of(lib.library_version);
    if (!family) {
      throw DeviceError(fmt::format("MPI library {} is neither Open MPI nor of the MPICH family (MPICH, Intel MPI, "
                                    "MVAPICH): its MPI_Get_library_version says '{}'",
                                    candidate, lib.library_version));
    }
    lib.family = *family;
    open_adapter(lib);
    return lib;
  }
  throw DeviceError(fmt::format("no MPI library found: tried {} (install Open MPI or an MPICH-family MPI on this "
                                "node, or set LINKSCOPE_MPI_LIBRARY to the libmpi.so of the MPI that started the job)",
                                join(tried, "; ")));
}

}  // namespace

bool mpi_adapters_built() {
#ifdef LINKSCOPE_MPI_ADAPTERS
  return true;
#else
  return false;
#endif
}

const MpiLibrary& mpi_library() {
  static OpenOnce<MpiLibrary> library;
  return library.get(open_mpi);
}

}  // namespace linkscope::platform
