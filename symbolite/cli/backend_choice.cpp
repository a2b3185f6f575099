#include "symbolite/cli/backend_choice.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/backends/eager/eager_support.h"
#include "symbolite/backends/xnnpack/xnnpack_support.h"
#include "symbolite/runtime/delegate/delegate_backend.h"
#include "symbolite/support/error.h"

namespace symbolite::cli {

std::unique_ptr<compiler::BackendSupport> backend_support(const std::string& backend) {
  if (backend == "xnnpack") return std::make_unique<backends::XnnpackSupport>();
  if (backend == "symbolite" || backend.starts_with("eager") || backend == "aot_eager" ||
      backend.starts_with("relu_")) {
    // The debugging and error-injecting backends take what eager takes.
    if (auto known = runtime::delegate_backend_names();
        std::find(known.begin(), known.end(), backend) != known.end()) {
      return std::make_unique<backends::EagerSupport>(backend);
    }
  }
  std::string known;
  for (const auto& name : runtime::delegate_backend_names())
    known += (known.empty() ? "" : ", ") + name;
  throw Error(ErrorKind::kUsage,
              fmt::format("unknown backend '{}' (backends: {})", backend, known));
}

}  // namespace symbolite::cli
