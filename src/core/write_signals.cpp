#include "core/write_signals.hpp"

#include <pthread.h>

#include <atomic>

namespace linkscope {

namespace {

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_caught{0};

extern "C" void record_signal(int signal_number) {
  int none = 0;
  g_caught.compare_exchange_strong(none, signal_number);
}

sigset_t the_three() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  return set;
}

}  // namespace

WriteSignals::WriteSignals() {
  g_caught.store(0);
  for (int i = 0; i < 3; ++i) {
    struct sigaction current {};
    // Only a signal that would end the process now: an ignored one stays ignored, and a handler the program
    // installed (the doctor's stop request) keeps its signal and decides itself.
    if (sigaction(kSignals[i], nullptr, &current) != 0 || (current.sa_flags & SA_SIGINFO) != 0 ||
        current.sa_handler != SIG_DFL) {
      continue;
    }
    struct sigaction action {};
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    installed_[i] = sigaction(kSignals[i], &action, &earlier_[i]) == 0;
  }
}

WriteSignals::~WriteSignals() {
  release();
  for (int i = 0; i < 3; ++i) {
    if (installed_[i]) sigaction(kSignals[i], &earlier_[i], nullptr);
  }
}

int WriteSignals::caught() const { return g_caught.load(); }

void WriteSignals::hold() {
  if (held_) return;
  const sigset_t set = the_three();
  held_ = pthread_sigmask(SIG_BLOCK, &set, &earlier_mask_) == 0;
}

void WriteSignals::release() {
  if (!held_) return;
  held_ = false;
  pthread_sigmask(SIG_SETMASK, &earlier_mask_, nullptr);  // a pending signal runs record_signal here
}

bool WriteSignals::pending() const {
  sigset_t waiting;
  sigemptyset(&waiting);
  if (sigpending(&waiting) != 0) return false;
  for (int s : kSignals) {
    if (sigismember(&waiting, s) == 1) return true;
  }
  return false;
}

const char* WriteSignals::name(int signal_number) {
  switch (signal_number) {
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "SIGINT";
  }
}

}  // namespace linkscope
