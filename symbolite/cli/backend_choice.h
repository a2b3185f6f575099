// The backend a user names (`--backend`): what the partitioner lets it take. Shared by
// `lower` and `explain`.
#pragma once

#include <memory>
#include <string>

#include "symbolite/compiler/partitioner.h"

namespace symbolite::cli {

// Error(kUsage) naming the backends symbolite has for an unknown name.
std::unique_ptr<compiler::BackendSupport> backend_support(const std::string& backend);

}  // namespace symbolite::cli
