#include "symbolite/support/error.h"

namespace symbolite {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kFormat:
      return "format error";
    case ErrorKind::kModel:
      return "model error";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kUsage:
      return "usage error";
    case ErrorKind::kLimit:
      return "limit exceeded";
    case ErrorKind::kIo:
      return "i/o error";
    case ErrorKind::kInternal:
      return "internal error";
  }
  return "error";
}

Error::Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {
  render();
}

Error& Error::add_context(std::string where) {
  context_.push_back(std::move(where));
  render();
  return *this;
}

Error& Error::add_detail(std::string line) {
  details_.push_back(std::move(line));
  render();
  return *this;
}

void Error::render() {
  rendered_.clear();
  for (auto it = context_.rbegin(); it != context_.rend(); ++it) {
    rendered_ += *it;
    rendered_ += ": ";
  }
  rendered_ += message_;
  summary_size_ = rendered_.size();
  for (const auto& line : details_) {
    rendered_ += '\n';
    rendered_ += line;
  }
}

}  // namespace symbolite
