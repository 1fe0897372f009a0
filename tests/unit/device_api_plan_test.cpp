// plan/device_api: nccl-tests' -D/-V rules (which implementations each test has, what each asks NCCL for, -V's
// fallback) and the version gate of the 2.28 device API, without a GPU.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "plan/collective_options.hpp"
#include "plan/device_api.hpp"

namespace linkscope::coll {
namespace {

std::optional<DeviceApiPlan> plan(CollectiveOp op, int impl, int ctas = 16, std::vector<std::string>* notes = nullptr,
                                  std::vector<DataType> types = {DataType::kFloat},
                                  std::vector<RedOp> redops = {RedOp::kSum}) {
  std::vector<std::string> local;
  return plan_device_api(op, impl, ctas, 2, types, redops, notes != nullptr ? *notes : local);
}

std::string error_of(CollectiveOp op, int impl, int local_register = 2, std::vector<DataType> types = {DataType::kFloat},
                     std::vector<RedOp> redops = {RedOp::kSum}) {
  std::vector<std::string> notes;
  try {
    plan_device_api(op, impl, 16, local_register, types, redops, notes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceApiPlan, ZeroIsNcclsOwnImplementation) {
  EXPECT_FALSE(plan(CollectiveOp::kAllReduce, 0).has_value());
  EXPECT_FALSE(plan(CollectiveOp::kBroadcast, 0).has_value());
}

TEST(DeviceApiPlan, AllReduceImplementationsAndWhatTheyAskNcclFor) {
  const auto lsa = plan(CollectiveOp::kAllReduce, 1, 32);
  ASSERT_TRUE(lsa);
  EXPECT_EQ(lsa->kernel, DeviceKernel::kAllReduceLsa);
  EXPECT_EQ(lsa->ctas, 32);
  EXPECT_EQ(lsa->requirements.lsa_barrier_count, 32);
  EXPECT_FALSE(lsa->requirements.lsa_multimem);
  EXPECT_EQ(plan(CollectiveOp::kAllReduce, 2)->kernel, DeviceKernel::kAllReduceLsaVectorized);
  const auto multimem = plan(CollectiveOp::kAllReduce, 4, 8);
  ASSERT_TRUE(multimem);
  EXPECT_EQ(multimem->kernel, DeviceKernel::kAllReduceMultimemVectorized);
  EXPECT_TRUE(multimem->requirements.lsa_multimem);
  EXPECT_EQ(multimem->requirements.lsa_barrier_count, 8);
  EXPECT_TRUE(kernel_implemented(DeviceKernel::kAllReduceLsaVectorized));
  EXPECT_FALSE(kernel_implemented(DeviceKernel::kAllReduceMultimem));
}

TEST(DeviceApiPlan, AlltoAllImplementationsAndWhatTheyAskNcclFor) {
  const auto nvl = plan(CollectiveOp::kAlltoAll, 2, 4);
  ASSERT_TRUE(nvl);
  EXPECT_EQ(nvl->kernel, DeviceKernel::kAlltoAllLsaVectorized);
  EXPECT_EQ(nvl->requirements.lsa_barrier_count, 4);
  EXPECT_EQ(nvl->requirements.barrier_count, 0);
  const auto gin = plan(CollectiveOp::kAlltoAll, 3, 4);
  ASSERT_TRUE(gin);
  EXPECT_EQ(gin->kernel, DeviceKernel::kAlltoAllGin);
  EXPECT_EQ(gin->requirements.lsa_barrier_count, 0);
  EXPECT_EQ(gin->requirements.barrier_count, 4);
  EXPECT_EQ(gin->requirements.gin_signal_count, 4);
  EXPECT_EQ(plan(CollectiveOp::kAlltoAll, 4)->kernel, DeviceKernel::kAlltoAllHybrid);
  EXPECT_FALSE(kernel_implemented(DeviceKernel::kAlltoAllHybrid));
  EXPECT_TRUE(kernel_implemented(DeviceKernel::kAlltoAllLsa));
}

TEST(DeviceApiPlan, RefusesWithNcclTestsMessages) {
  EXPECT_EQ(error_of(CollectiveOp::kAllReduce, 1, 1),
            "device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)");
  EXPECT_EQ(error_of(CollectiveOp::kAllReduce, 5), "Device implementation 5 is not supported by this test");
  EXPECT_EQ(error_of(CollectiveOp::kAllGather, 1), "Device implementation 1 is not supported by this test");
  EXPECT_EQ(error_of(CollectiveOp::kSendRecv, 2), "Device implementation 2 is not supported by this test");
  EXPECT_EQ(error_of(CollectiveOp::kAlltoAll, -1), "Device implementation -1 is not supported by this test");
}

TEST(DeviceApiPlan, RefusesTypesAndReductionsTheKernelsDoNotHave) {
  EXPECT_NE(error_of(CollectiveOp::kAllReduce, 1, 2, {DataType::kFloat, DataType::kBfloat16}).find("not bfloat16"),
            std::string::npos);
  EXPECT_NE(error_of(CollectiveOp::kAllReduce, 2, 2, {DataType::kHalf}, {RedOp::kMax}).find("only sum, not max"),
            std::string::npos);
  // alltoall moves data: its reduction is never used.
  EXPECT_TRUE(plan(CollectiveOp::kAlltoAll, 1, 16, nullptr, {DataType::kInt8}, {RedOp::kProd}).has_value());
  EXPECT_TRUE(plan(CollectiveOp::kAllReduce, 1, 16, nullptr, {DataType::kHalf, DataType::kUint64}).has_value());
}

TEST(DeviceApiPlan, CtaCountOutsideItsRangeIsNcclTestsWarningAndSixteen) {
  std::vector<std::string> notes;
  const auto p = plan(CollectiveOp::kAllReduce, 1, 129, &notes);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ctas, 16);
  EXPECT_EQ(p->requirements.lsa_barrier_count, 16);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "device_cta_count (-V) must be positive and less than 128, got 129. Using default value 16.");
  notes.clear();
  EXPECT_EQ(plan(CollectiveOp::kAllReduce, 1, 0, &notes)->ctas, 16);
  EXPECT_EQ(notes.size(), 1u);
  notes.clear();
  EXPECT_EQ(plan(CollectiveOp::kAllReduce, 1, 128, &notes)->ctas, 128);
  EXPECT_TRUE(notes.empty());
}

TEST(DeviceApiPlan, TheCollPlanCarriesIt) {
  CollOptions o;
  o.op = "alltoall";
  o.device_impl = 2;
  o.local_register = 2;
  o.device_ctas = 4;
  const CollPlan p = make_coll_plan(o);
  ASSERT_TRUE(p.device_api);
  EXPECT_EQ(p.device_api->kernel, DeviceKernel::kAlltoAllLsaVectorized);
  EXPECT_EQ(device_call_name(p.op, *p.device_api), "device API alltoall NVL optimized kernel (-D 2, 4 CTAs x 512 threads)");
}

std::string gate_error(DeviceApiLibrary library) {
  try {
    check_device_api_library(library);
  } catch (const DeviceError& e) {
    return e.what();
  }
  return "";
}

DeviceApiLibrary library(int headers, const char* headers_version, int loaded, const char* version) {
  DeviceApiLibrary library;
  library.headers_code = headers;
  library.headers_version = headers_version;
  library.library_code = loaded;
  library.version = version;
  library.path = "libnccl.so.2";
  return library;
}

DeviceApiLibrary built_with_2289(int loaded, const char* version) { return library(22809, "2.28.9", loaded, version); }

TEST(DeviceApiLibraryGate, LibrariesWithTheHeadersDeviceAbiPass) {
  EXPECT_EQ(gate_error(built_with_2289(22809, "2.28.9")), "");
  EXPECT_EQ(gate_error(built_with_2289(22807, "2.28.7")), "");
  // A build with 2.28.3's headers runs on the libraries of that layout.
  EXPECT_EQ(gate_error(library(22803, "2.28.3", 22805, "2.28.5")), "");
}

TEST(DeviceApiLibraryGate, OlderLibrariesAreRefusedWithTheLoadedVersion) {
  DeviceApiLibrary old = built_with_2289(22707, "2.27.7");
  old.missing_symbol = "ncclDevCommCreate";
  EXPECT_EQ(gate_error(old), "Option -D (device implementation) requires NCCL >= 2.28.0; the loaded NCCL is 2.27.7 "
                             "(libnccl.so.2)");
}

TEST(DeviceApiLibraryGate, A2283LibraryHasTheSmallerStructuresOfBefore2287) {
  EXPECT_EQ(gate_error(built_with_2289(22803, "2.28.3")),
            "Incompatible NCCL versions. linkscope was compiled with NCCL 2.28.9, but is running with NCCL 2.28.3 "
            "(libnccl.so.2): the device API's structures changed in 2.28.7");
  EXPECT_NE(gate_error(library(22803, "2.28.3", 22809, "2.28.9")).find("changed in 2.28.7"), std::string::npos);
}

TEST(DeviceApiLibraryGate, A229LibraryHasAnotherDeviceAbi) {
  EXPECT_EQ(gate_error(built_with_2289(22900, "2.29.0")),
            "Incompatible NCCL versions. linkscope was compiled with NCCL 2.28, but is running with NCCL 22900. The "
            "2.28 Device API is not compatible with later.");
}

TEST(DeviceApiLibraryGate, AMissingFunctionIsNamed) {
  DeviceApiLibrary lacking = built_with_2289(22809, "2.28.9");
  lacking.missing_symbol = "ncclDevCommDestroy";
  EXPECT_EQ(gate_error(lacking), "-D needs ncclDevCommDestroy; the loaded NCCL 2.28.9 (libnccl.so.2) lacks it");
}

TEST(DeviceApiLibraryGate, HeadersWithoutThe228DeviceApiAreRefused) {
  EXPECT_NE(gate_error(library(22703, "2.27.3", 22809, "2.28.9")).find("built with NCCL 2.27.3 headers"),
            std::string::npos);
  EXPECT_NE(gate_error(library(22901, "2.29.1", 22901, "2.29.1")).find("built with NCCL 2.29.1 headers"),
            std::string::npos);
}

}  // namespace
}  // namespace linkscope::coll
