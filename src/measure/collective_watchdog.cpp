#include "measure/collective_watchdog.hpp"

#include <chrono>

namespace linkscope::measure {

Watchdog::Watchdog(double seconds, std::function<void()> on_expiry) {
  if (seconds <= 0) {
    disarmed_ = true;
    return;
  }
  thread_ = std::thread([this, seconds, on_expiry = std::move(on_expiry)] {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool disarmed =
        wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return disarmed_; });
    if (!disarmed) on_expiry();
  });
}

Watchdog::~Watchdog() {
  disarm();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::disarm() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  wake_.notify_all();
}

}  // namespace linkscope::measure
