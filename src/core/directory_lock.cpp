#include "core/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope {

DirectoryLock::DirectoryLock(const std::string& directory, std::chrono::milliseconds limit,
                             const std::function<bool()>& stop) {
  // Without the lock the swap still runs, as it did before the lock existed; the user is told why once.
  const auto unlocked = [&](const char* step) {
    std::fprintf(stderr,
                 "linkscope: warning: %s: cannot lock the directory (%s: %s); another process writing a report "
                 "here at the same time is not kept out\n",
                 directory.c_str(), step, std::strerror(errno));
  };
  fd_ = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    unlocked("open");
    return;
  }
  const auto until = std::chrono::steady_clock::now() + limit;
  bool announced = false;
  while (true) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
      held_ = true;
      return;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {  // no locks on this filesystem (ENOLCK, EINVAL, ENOSYS)
      unlocked("flock");
      return;
    }
    if (stop()) return;
    if (std::chrono::steady_clock::now() >= until) {
      ::close(fd_);
      fd_ = -1;
      throw InputError(directory, 0,
                       fmt::format("another process kept this directory locked for {:g} s while writing a report "
                                   "there; nothing was changed",
                                   std::chrono::duration<double>(limit).count()));
    }
    if (!announced) {
      std::fprintf(stderr, "linkscope: %s: another linkscope process is writing a report here; waiting for it\n",
                   directory.c_str());
      std::fflush(stderr);
      announced = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
}

}  // namespace linkscope
