#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace linkscope::measure {

// Calls `on_expiry` on its own thread if disarm() (or the destructor) does not come within `seconds`.
// For phases that cannot be polled, such as NCCL communicator initialisation: the callback reports and
// ends the process. A non-positive `seconds` never expires.
class Watchdog {
 public:
  Watchdog(double seconds, std::function<void()> on_expiry);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void disarm();

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool disarmed_ = false;
  std::thread thread_;
};

}  // namespace linkscope::measure
