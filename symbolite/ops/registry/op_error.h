// `OpError`: an error raised by a kernel or by model code, carrying the Python exception
// class the model would see (`RuntimeError`, `IndexError`, `builtins.ValueError`), so a
// failure keeps its class end to end where PyTorch 1.13's lite interpreter loses it.
#pragma once

#include <string>

#include "symbolite/support/error.h"

namespace symbolite::ops {

class OpError : public Error {
 public:
  OpError(std::string python_class, std::string message)
      : Error(ErrorKind::kModel, std::move(message)), python_class_(std::move(python_class)) {}

  const std::string& python_class() const { return python_class_; }

 private:
  std::string python_class_;
};

// The usual kernel failure: PyTorch raises these as RuntimeError.
[[noreturn]] inline void fail(std::string message) {
  throw OpError("RuntimeError", std::move(message));
}

// An index or dimension out of range: PyTorch raises these as IndexError.
[[noreturn]] inline void fail_index(std::string message) {
  throw OpError("IndexError", std::move(message));
}

}  // namespace symbolite::ops
