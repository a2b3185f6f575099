#include "symbolite/backends/debugging/noexcept_backend.h"

#include <exception>

#include <fmt/format.h>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {
namespace {

class NoexceptBackend final : public runtime::DelegateBackend {
 public:
  bool is_available() const override { return true; }
  ops::IValue compile(const ops::IValue& processed, const ops::IValue& spec) override {
    return programs_.compile(processed, spec);
  }
  ops::IValueList execute(const ops::IValue& handle, const ops::IValueList& inputs) override {
    // Not DelegateFailure: the failure is the partition's, at the lowered call.
    try {
      return programs_.execute(handle, inputs);
    } catch (const runtime::DelegateFailure& e) {
      throw Error(ErrorKind::kModel,
                  fmt::format("eager_noexcept: the partition failed at its node with delegate "
                              "handle {}: {}: {}",
                              e.handle(), e.python_class(), e.message()));
    } catch (const std::exception& e) {
      throw Error(ErrorKind::kModel,
                  fmt::format("eager_noexcept: the partition failed: {}", e.what()));
    }
  }

 private:
  runtime::ProgramBackend programs_;
};

}  // namespace

std::unique_ptr<runtime::DelegateBackend> make_noexcept_backend() {
  return std::make_unique<NoexceptBackend>();
}

}  // namespace symbolite::backends
