#include "symbolite/backends/xnnpack/xnnpack_operator.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::backends {

bool xnnpack_available() {
  static const bool available = xnn_initialize(nullptr) == xnn_status_success;
  return available;
}

pthreadpool_t xnnpack_threadpool() {
  // One thread (no pool) unless SYMBOLITE_NUM_THREADS asks for more, like the interpreter's
  // own kernels: lowered and unlowered runs compare like for like.
  static const std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)> pool = [] {
    const char* env = std::getenv("SYMBOLITE_NUM_THREADS");
    long threads = env == nullptr ? 1 : std::strtol(env, nullptr, 10);
    pthreadpool_t p = threads > 1
                          ? pthreadpool_create(static_cast<std::size_t>(std::min(threads, 256L)))
                          : nullptr;
    return std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)>(p, &pthreadpool_destroy);
  }();
  return pool.get();
}

XnnOperator::~XnnOperator() {
  if (op_ != nullptr) xnn_delete_operator(op_);
}

XnnOperator& XnnOperator::operator=(XnnOperator&& other) noexcept {
  if (this != &other) {
    if (op_ != nullptr) xnn_delete_operator(op_);
    op_ = other.op_;
    other.op_ = nullptr;
  }
  return *this;
}

void check_xnn(xnn_status status, std::string_view what) {
  if (status != xnn_status_success) {
    throw Error(ErrorKind::kInternal,
                fmt::format("XNNPACK {} failed (status {})", what, static_cast<int>(status)));
  }
}

}  // namespace symbolite::backends
