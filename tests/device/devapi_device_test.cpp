// -D/-V on real GPUs: the device-API kernels (LSA all_reduce and alltoall, scalar and vectorized) replace the NCCL
// call in linkscope's event loop and in nccl-tests' host-timed loop, and every size checks out in every type they
// exist for, aligned and not (-u), at several CTA counts (-V). On one GPU the LSA team is that one rank (NCCL >=
// 2.28.7 gives a one-rank communicator symmetric memory; 2.28.3 does not). The multimem and GIN implementations end
// in NCCL's or linkscope's refusal. Skips without a GPU or an NCCL of the build's device ABI; where the loaded NCCL
// has another, the run is refused with the gate's message before NCCL starts.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "device_test_support.hpp"
#include "measure/collective_run.hpp"
#include "measure/devapi_gate.hpp"
#include "plan/collective_options.hpp"

namespace linkscope {
namespace {

// The loaded NCCL must have the device ABI of the headers linkscope was built with (measure/devapi_gate.hpp): the
// reason for skipping is the gate's own refusal.
std::string device_api_refusal() {
  try {
    measure::check_device_api_available();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define LINKSCOPE_REQUIRE_NCCL_DEVICE_API()                                       \
  do {                                                                            \
    LINKSCOPE_REQUIRE_NCCL();                                                     \
    const std::string linkscope_refusal_ = device_api_refusal();                  \
    if (!linkscope_refusal_.empty()) GTEST_SKIP() << linkscope_refusal_;          \
  } while (0)

coll::CollOptions device_options(const std::string& op, int impl, const std::string& types) {
  coll::CollOptions o;
  o.op = op;
  o.device_impl = impl;
  o.local_register = 2;
  o.datatype = types;
  o.min_bytes = "8";
  o.max_bytes = "2M";
  o.step_factor = 8;
  o.iters = 3;
  o.gpus = 1;
  o.in_place = true;
  o.timeout_s = 60;
  return o;
}

measure::CollectiveRun run(const coll::CollOptions& options) {
  measure::CollectiveRequest request;
  request.plan = coll::make_coll_plan(options);
  request.devices = {0};
  request.nccl_env = {{"NCCL_NVLS_ENABLE", "0"}};
  request.init_timeout_message = "linkscope: error: NCCL initialisation did not finish (devapi_device_test)";
  measure::SingleProcessGroup group;
  return measure::run_collectives(request, group);
}

// Every point measured, and every checked one with no wrong element; returns the number of checked points.
int expect_correct(const measure::CollectiveRun& result, const std::string& kernel) {
  int checked = 0;
  EXPECT_FALSE(result.series.empty());
  for (const auto& series : result.series) {
    SCOPED_TRACE(std::string(coll::type_name(series.dtype)));
    EXPECT_NE(series.nccl_call.find(kernel), std::string::npos) << series.nccl_call;
    EXPECT_FALSE(series.points.empty());
    for (const auto& p : series.points) {
      SCOPED_TRACE(std::to_string(p.requested_bytes) + " B" + (p.in_place ? " in place" : " out of place"));
      EXPECT_EQ(p.status, "ok") << p.reason.value_or("");
      EXPECT_TRUE(p.time.has_value());
      if (p.wrong) {
        EXPECT_EQ(*p.wrong, 0);
        ++checked;
      }
    }
  }
  EXPECT_EQ(result.status(), ExitCode::kOk);
  return checked;
}

TEST(DevapiDevice, AllReduceLsaKernelsSumEveryTypeInAndOutOfPlace) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL_DEVICE_API();
  for (int impl : {1, 2}) {
    SCOPED_TRACE("-D " + std::to_string(impl));
    for (const char* type : {"float", "half", "int8", "uint8", "int32", "uint32", "int64", "uint64", "double"}) {
      const measure::CollectiveRun result = run(device_options("all_reduce", impl, type));
      const std::string kernel = impl == 1 ? "all_reduce LSA kernel (-D 1" : "all_reduce LSA vectorized kernel (-D 2";
      // 7 sizes, both placements checked (all_reduce checks in place).
      EXPECT_EQ(expect_correct(result, kernel), 14) << type;
    }
  }
}

TEST(DevapiDevice, AllReduceLsaKernelsHandleMisalignedBuffersAndCtaCounts) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL_DEVICE_API();
  for (int impl : {1, 2}) {
    for (int ctas : {1, 4, 32, 128}) {
      for (int unalign : {0, 1, 3}) {
        SCOPED_TRACE("-D " + std::to_string(impl) + " -V " + std::to_string(ctas) + " -u " + std::to_string(unalign));
        coll::CollOptions o = device_options("all_reduce", impl, "half");
        o.device_ctas = ctas;
        o.unalign = unalign;
        o.max_bytes = "4M";
        o.min_bytes = "6";  // odd element counts: the vectorized kernel's scalar head and tail
        o.step_factor = 7;
        const measure::CollectiveRun result = run(o);
        EXPECT_GT(expect_correct(result, std::to_string(ctas) + " CTAs x 512 threads"), 0);
      }
    }
  }
}

TEST(DevapiDevice, AlltoAllLsaKernelsMoveEveryBlock) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL_DEVICE_API();
  for (int impl : {1, 2}) {
    for (int unalign : {0, 1}) {
      SCOPED_TRACE("-D " + std::to_string(impl) + " -u " + std::to_string(unalign));
      for (const char* type : {"float", "half", "int8", "double"}) {
        coll::CollOptions o = device_options("alltoall", impl, type);
        o.unalign = unalign;
        const measure::CollectiveRun result = run(o);
        const std::string kernel = impl == 1 ? "alltoall NVL kernel (-D 1" : "alltoall NVL optimized kernel (-D 2";
        // alltoall is checked out of place only (as in nccl-tests): 7 sizes, the smallest may round to 0 elements.
        EXPECT_GE(expect_correct(result, kernel), 6) << type;
      }
    }
  }
}

TEST(DevapiDevice, NcclTestsHostTimedLoopLaunchesTheKernels) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL_DEVICE_API();
  for (const char* op : {"all_reduce", "alltoall"}) {
    SCOPED_TRACE(op);
    coll::CollOptions o = device_options(op, 2, "float");
    o.personality = true;  // nccl-tests' host timer around -n iterations, with its warm-up
    o.iters = 5;
    o.warmup_iters = 2;
    o.device_ctas = 32;
    const measure::CollectiveRun result = run(o);
    EXPECT_GT(expect_correct(result, "(-D 2, 32 CTAs x 512 threads)"), 0);
    for (const auto& p : result.series.front().points) {
      // alltoall's smallest size rounds to 0 bytes on one rank (nccl-tests prints 0 0 there): no rate to expect.
      if (p.bytes > 0) {
        EXPECT_GT(p.algbw_gbps.value_or(0), 0) << p.bytes;
      }
    }
  }
}

TEST(DevapiDevice, MultimemAndGinEndInNcclsOrLinkscopesRefusal) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL_DEVICE_API();
  for (const auto& [op, impl] : {std::pair<const char*, int>{"all_reduce", 3}, {"all_reduce", 4}, {"alltoall", 3},
                                 {"alltoall", 4}}) {
    SCOPED_TRACE(std::string(op) + " -D " + std::to_string(impl));
    std::string message;
    try {
      run(device_options(op, impl, "float"));
    } catch (const Error& e) {
      message = e.what();
    }
    // NCCL refuses the device communicator (no NVLS / no GIN), or it creates it and linkscope has no such kernel.
    const bool nccl_refused = message.find("ncclDevCommCreate") != std::string::npos;
    const bool linkscope_refused = message.find("but linkscope has no") != std::string::npos;
    EXPECT_TRUE(nccl_refused || linkscope_refused) << message;
  }
}

TEST(DevapiDevice, ALibraryOfAnotherDeviceAbiIsRefusedBeforeNcclStarts) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL();
  const std::string refusal = device_api_refusal();
  if (refusal.empty()) GTEST_SKIP() << "the loaded NCCL has the build's device ABI (the other tests run the kernels)";
  try {
    run(device_options("all_reduce", 1, "float"));
    ADD_FAILURE() << "-D ran on an NCCL the gate refuses: " << refusal;
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()), refusal);
  }
}

}  // namespace
}  // namespace linkscope
