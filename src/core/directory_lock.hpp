#pragma once
#include <chrono>
#include <functional>
#include <string>

// An exclusive lock on a directory (flock on the directory itself, no lock file), held while a report set is
// swapped in (core/file_set): two linkscope processes writing one report directory swap their sets one after the
// other, so the directory ends as the whole set of the later one, never a mix. The lock is only sure to keep out
// processes of this host: on a shared filesystem writers on two hosts may not be ordered (Linux's NFS client keeps
// a directory's flock to itself). Where flock fails (a filesystem without locks) the swap runs unlocked, with a
// warning, as before the lock existed; docs/reports.md says so.
namespace linkscope {

class DirectoryLock {
 public:
  // Takes the lock, waiting while another process holds it: says so once on stderr, then polls until the lock is
  // free, `stop()` returns true (a signal arrived: held() is false, nothing is locked) or `limit` has passed
  // (InputError naming the directory: another process kept it locked).
  DirectoryLock(const std::string& directory, std::chrono::milliseconds limit, const std::function<bool()>& stop);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  // Whether the lock is held: false after stop(), and where the directory cannot be locked (warned on stderr).
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

// How long a report write waits for another process's swap: a swap is renames and one fsync, so a minute means
// the other writer is stopped or stuck.
inline constexpr std::chrono::milliseconds kDirectoryLockWait{60'000};

}  // namespace linkscope
