#include "core/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

// Another holder of the directory's lock: its own open file description, as another process would have.
class OtherHolder {
 public:
  explicit OtherHolder(const std::string& directory) : fd_(::open(directory.c_str(), O_RDONLY | O_DIRECTORY)) {}
  ~OtherHolder() { release(); }
  bool lock() { return fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0; }
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

constexpr auto kLong = std::chrono::milliseconds(30'000);

TEST(DirectoryLock, IsExclusiveAndGoesWithTheObject) {
  const test::TempDir dir;
  {
    const DirectoryLock lock(dir.path(), kLong, [] { return false; });
    EXPECT_TRUE(lock.held());
    OtherHolder other(dir.path());
    EXPECT_FALSE(other.lock()) << "a second holder got the lock while the first held it";
  }
  OtherHolder after(dir.path());
  EXPECT_TRUE(after.lock()) << "the lock outlived its object";
}

TEST(DirectoryLock, WaitsForTheOtherHolderAndSaysSo) {
  const test::TempDir dir;
  OtherHolder other(dir.path());
  ASSERT_TRUE(other.lock());
  int polls = 0;
  testing::internal::CaptureStderr();
  // The holder lets go at the first poll that found the lock taken: the lock is taken on the next try.
  const DirectoryLock lock(dir.path(), kLong, [&] {
    ++polls;
    other.release();
    return false;
  });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(lock.held());
  EXPECT_EQ(polls, 1);
  EXPECT_EQ(err, "linkscope: " + dir.path() + ": another linkscope process is writing a report here; waiting for it\n");
}

TEST(DirectoryLock, AStopRequestEndsTheWaitWithoutTheLock) {
  const test::TempDir dir;
  OtherHolder other(dir.path());
  ASSERT_TRUE(other.lock());
  testing::internal::CaptureStderr();
  const DirectoryLock lock(dir.path(), kLong, [] { return true; });
  testing::internal::GetCapturedStderr();
  EXPECT_FALSE(lock.held());
}

TEST(DirectoryLock, ADirectoryItCannotLockIsLeftUnlockedWithAWarning) {
  const test::TempDir dir;
  const std::string missing = dir.path() + "/gone";
  testing::internal::CaptureStderr();
  const DirectoryLock lock(missing, kLong, [] { return false; });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(lock.held());
  EXPECT_EQ(err, "linkscope: warning: " + missing +
                     ": cannot lock the directory (open: No such file or directory); another process writing a "
                     "report here at the same time is not kept out\n");
}

TEST(DirectoryLock, AHolderThatNeverLetsGoIsNamedAfterTheLimit) {
  const test::TempDir dir;
  OtherHolder other(dir.path());
  ASSERT_TRUE(other.lock());
  testing::internal::CaptureStderr();
  try {
    const DirectoryLock lock(dir.path(), std::chrono::milliseconds(100), [] { return false; });
    ADD_FAILURE() << "the lock was taken from its holder";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() +
                                         ": another process kept this directory locked for 0.1 s while writing a "
                                         "report there; nothing was changed");
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace linkscope
