#pragma once
#include <signal.h>

namespace linkscope::cli {

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
