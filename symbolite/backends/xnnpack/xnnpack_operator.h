// An owned XNNPACK operator (xnn_delete_operator on destruction), XNNPACK's one-time
// initialization, and status checks that name what failed.
#pragma once

#include <xnnpack.h>

#include <string_view>

namespace symbolite::backends {

// Initializes XNNPACK once per process; false when this CPU is not supported.
bool xnnpack_available();

// The process's thread pool for XNNPACK operators, made on first use: none (the caller's
// thread) unless the environment variable SYMBOLITE_NUM_THREADS is above 1.
pthreadpool_t xnnpack_threadpool();

class XnnOperator {
 public:
  XnnOperator() = default;
  explicit XnnOperator(xnn_operator_t op) : op_(op) {}
  ~XnnOperator();
  XnnOperator(XnnOperator&& other) noexcept : op_(other.op_) { other.op_ = nullptr; }
  XnnOperator& operator=(XnnOperator&& other) noexcept;
  XnnOperator(const XnnOperator&) = delete;
  XnnOperator& operator=(const XnnOperator&) = delete;

  xnn_operator_t get() const { return op_; }
  explicit operator bool() const { return op_ != nullptr; }

 private:
  xnn_operator_t op_ = nullptr;
};

// Error(kInternal) "XNNPACK <what> failed: <status>" unless `status` is success.
void check_xnn(xnn_status status, std::string_view what);

}  // namespace symbolite::backends
