#pragma once
#include <signal.h>

// SIGINT, SIGTERM and SIGHUP while a file or a set of files is written (core/file_io, core/file_set). Their default
// action ends the process at once, which would leave temporary files behind, or half the set swapped in. While an object lives they are
// caught instead (the handler only records the signal): the writer checks between files and stops cleanly. hold()
// blocks them for the few renames that swap the set in; one that arrives then is caught on release().
// A signal the process ignores (nohup, a background job of a script) stays ignored, and one the program handles
// itself (the doctor's stop request while it saves run.json) stays with that handler.
namespace linkscope {

class WriteSignals {
 public:
  WriteSignals();
  ~WriteSignals();  // releases and restores the earlier handlers
  WriteSignals(const WriteSignals&) = delete;
  WriteSignals& operator=(const WriteSignals&) = delete;

  // The first signal caught since construction; 0 when none.
  int caught() const;
  // Blocks the three signals in this thread (a signal another thread takes only runs the recording handler).
  void hold();
  void release();
  // True when one of the three arrived while held and waits for release().
  bool pending() const;

  // "SIGINT", "SIGTERM" or "SIGHUP".
  static const char* name(int signal_number);

 private:
  struct sigaction earlier_[3] {};
  bool installed_[3] = {false, false, false};
  bool held_ = false;
  sigset_t earlier_mask_ {};
};

}  // namespace linkscope
