#pragma once
#include <signal.h>

namespace linkscope::cli {

// "SIGTERM" or "SIGINT": how a run that a stop signal ended says which one.
inline const char* stop_signal_name(int signal_number) { return signal_number == SIGTERM ? "SIGTERM" : "SIGINT"; }

// Routes SIGINT and SIGTERM to `handler` while it lives and restores the previous handlers afterwards (the doctor's
// measuring phase, a soak's cycles). No SA_RESTART: a wait for a child returns at once.
class ScopedStopSignals {
 public:
  explicit ScopedStopSignals(void (*handler)(int)) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~ScopedStopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  ScopedStopSignals(const ScopedStopSignals&) = delete;
  ScopedStopSignals& operator=(const ScopedStopSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace linkscope::cli
