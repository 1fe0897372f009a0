// Signals that open and close the shared window of a multi-stream sample.
#include "device_test_support.hpp"
#include "measure/copy_signals.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope {
namespace {

TEST(P2pSignals, AWaitSeesTheSignalOfAnotherStream) {
  LINKSCOPE_REQUIRE_GPUS(1);
  measure::preload_signal_kernels(0);
  measure::StreamSignals signals(3, 5.0);
  platform::Stream waiter(0), signaller(0);
  signals.wait(0, waiter.get(), 1, 2, 7);  // flags 1 and 2
  signals.signal(0, signaller.get(), 1, 7);
  signals.signal(0, signaller.get(), 2, 7);
  waiter.synchronize();
  signaller.synchronize();
  EXPECT_FALSE(signals.expired());
}

TEST(P2pSignals, AWaitForAnOldEpochOrAnUnsetFlagTimesOut) {
  LINKSCOPE_REQUIRE_GPUS(1);
  measure::preload_signal_kernels(0);
  measure::StreamSignals signals(2, 0.05);
  platform::Stream stream(0);
  signals.signal(0, stream.get(), 0, 1);
  signals.wait(0, stream.get(), 0, 1, 2);  // flag 0 holds epoch 1, not 2
  stream.synchronize();
  EXPECT_TRUE(signals.expired());
  signals.reset_expired();
  EXPECT_FALSE(signals.expired());
  signals.wait(0, stream.get(), 1, 1, 1);  // never set
  stream.synchronize();
  EXPECT_TRUE(signals.expired());
}

TEST(P2pSignals, ASignalOnOneGpuReleasesAWaitOnAnother) {
  LINKSCOPE_REQUIRE_GPUS(2);
  measure::preload_signal_kernels(0);
  measure::preload_signal_kernels(1);
  measure::StreamSignals signals(1, 5.0);
  platform::Stream on_one(1), on_zero(0);
  signals.wait(1, on_one.get(), 0, 1, 3);
  signals.signal(0, on_zero.get(), 0, 3);
  on_one.synchronize();
  on_zero.synchronize();
  EXPECT_FALSE(signals.expired());
}

}  // namespace
}  // namespace linkscope
