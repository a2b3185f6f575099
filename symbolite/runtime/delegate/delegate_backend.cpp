#include "symbolite/runtime/delegate/delegate_backend.h"

#include <algorithm>
#include <map>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::runtime {
namespace {

std::map<std::string, DelegateBackendFactory, std::less<>>& registry() {
  // The runtime's own backend is always there; others (XNNPACK) register from their layer.
  static std::map<std::string, DelegateBackendFactory, std::less<>> backends = [] {
    std::map<std::string, DelegateBackendFactory, std::less<>> m;
    for (const char* name : {"symbolite", "eager"}) {
      m.emplace(name, [] { return std::make_unique<ProgramBackend>(); });
    }
    return m;
  }();
  return backends;
}

}  // namespace

void register_delegate_backend(std::string name, DelegateBackendFactory factory) {
  registry()[std::move(name)] = std::move(factory);
}

std::unique_ptr<DelegateBackend> create_delegate_backend(std::string_view name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second();
}

std::vector<std::string> delegate_backend_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

}  // namespace symbolite::runtime
