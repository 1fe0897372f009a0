#include "measure/launch_gate.hpp"

#include <chrono>
#include <thread>

#include "device_test_support.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope {
namespace {

TEST(LaunchGate, HoldsWorkUntilReleased) {
  LINKSCOPE_REQUIRE_GPUS(1);
  platform::Stream stream(0);
  platform::Event done(0);
  measure::LaunchGate gate;
  gate.hold(0, stream.get());
  done.record(stream.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cudaEventQuery(done.get()), cudaErrorNotReady) << "work ran before the gate opened";
  gate.release();
  stream.synchronize();
  EXPECT_EQ(cudaEventQuery(done.get()), cudaSuccess);
  EXPECT_FALSE(gate.expired());
}

TEST(LaunchGate, GivesUpAfterItsTimeout) {
  LINKSCOPE_REQUIRE_GPUS(1);
  platform::Stream stream(0);
  measure::LaunchGate gate(0.05);
  gate.hold(0, stream.get());
  stream.synchronize();
  EXPECT_TRUE(gate.expired());
}

}  // namespace
}  // namespace linkscope
