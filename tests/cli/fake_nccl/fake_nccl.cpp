// A libnccl.so.2 stand-in without NCCL's device API: it exports the functions linkscope's loader requires and
// reports the version in LINKSCOPE_FAKE_NCCL_VERSION (e.g. 22707), so that the CLI tests reach -D's version gate
// on a machine without NCCL. Only ncclGetVersion and ncclGetErrorString may be called; the rest fail.
#include <cstdlib>

extern "C" {

int ncclGetVersion(int* version) {
  const char* text = std::getenv("LINKSCOPE_FAKE_NCCL_VERSION");
  *version = text != nullptr ? std::atoi(text) : 0;
  return 0;
}

const char* ncclGetErrorString(int) { return "fake NCCL: not implemented"; }

#define LINKSCOPE_FAKE_NCCL_FAILS(name) \
  int name() { return 1; }
LINKSCOPE_FAKE_NCCL_FAILS(ncclGetUniqueId)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommInitRank)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommInitAll)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommDestroy)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommAbort)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommGetAsyncError)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommCount)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommCuDevice)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommUserRank)
LINKSCOPE_FAKE_NCCL_FAILS(ncclGroupStart)
LINKSCOPE_FAKE_NCCL_FAILS(ncclGroupEnd)
LINKSCOPE_FAKE_NCCL_FAILS(ncclAllReduce)
LINKSCOPE_FAKE_NCCL_FAILS(ncclAllGather)
LINKSCOPE_FAKE_NCCL_FAILS(ncclReduceScatter)
LINKSCOPE_FAKE_NCCL_FAILS(ncclBroadcast)
LINKSCOPE_FAKE_NCCL_FAILS(ncclReduce)
LINKSCOPE_FAKE_NCCL_FAILS(ncclSend)
LINKSCOPE_FAKE_NCCL_FAILS(ncclRecv)
// ncclCommWindowRegister is there (NCCL >= 2.27), ncclDevCommCreate is not.
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommWindowRegister)
LINKSCOPE_FAKE_NCCL_FAILS(ncclCommWindowDeregister)
}
