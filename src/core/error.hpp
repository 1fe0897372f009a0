#pragma once
#include <stdexcept>
#include <string>

#include "core/exit_code.hpp"

namespace linkscope {

// Every error that reaches main() carries the exit code it maps to and a one-line message.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad flag, size, GPU id or other argument (exit 2).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ExitCode::kUsage, message) {}
};

// Bad input file: the message always starts with "FILE:LINE: " (LINE omitted when unknown) (exit 2).
class InputError : public Error {
 public:
  InputError(const std::string& file, long line, const std::string& what);
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  std::string file_;
  long line_;
};

// CUDA, NVML, NCCL or driver missing or failing (exit 3).
class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& message) : Error(ExitCode::kDevice, message) {}
};

// A watchdog expired (exit 4).
class TimeoutError : public Error {
 public:
  explicit TimeoutError(const std::string& message) : Error(ExitCode::kTimeout, message) {}
};

}  // namespace linkscope
