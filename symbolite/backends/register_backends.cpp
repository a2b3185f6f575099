#include "symbolite/backends/register_backends.h"

#include "symbolite/backends/debugging/noexcept_backend.h"
#include "symbolite/backends/debugging/round_trip_backend.h"
#include "symbolite/backends/debugging/schema_checks.h"
#include "symbolite/backends/testing/error_injecting_backends.h"
#include "symbolite/backends/xnnpack/xnnpack_nodes.h"
#include "symbolite/backends/xnnpack/xnnpack_operator.h"
#include "symbolite/runtime/delegate/delegate_backend.h"

namespace symbolite::backends {
namespace {

class XnnpackBackend final : public runtime::DelegateBackend {
 public:
  bool is_available() const override { return xnnpack_available(); }
  ops::IValue compile(const ops::IValue& processed, const ops::IValue& spec) override {
    return programs_.compile(processed, spec);
  }
  ops::IValueList execute(const ops::IValue& handle, const ops::IValueList& inputs) override {
    ops::IValueList outputs = programs_.execute(handle, inputs);
    // Results leave the delegate in PyTorch's own layout: the interpreter's kernels (and the
    // caller) are fastest on contiguous tensors.
    for (auto& out : outputs) {
      if (out.is(ops::IValue::Kind::kTensor) && !out.to_tensor().is_contiguous()) {
        out = ops::IValue(out.to_tensor().contiguous());
      }
    }
    return outputs;
  }

 private:
  runtime::ProgramBackend programs_{make_xnnpack_node};
};

}  // namespace

void register_delegate_backends() {
  runtime::register_delegate_backend("xnnpack", [] { return std::make_unique<XnnpackBackend>(); });
  register_error_injecting_backends();
  runtime::register_delegate_backend("eager_debug", [] {
    return std::make_unique<runtime::ProgramBackend>(make_schema_checked_step);
  });
  runtime::register_delegate_backend("eager_noexcept", make_noexcept_backend);
  runtime::register_delegate_backend("aot_eager", make_round_trip_backend);
}

}  // namespace symbolite::backends
