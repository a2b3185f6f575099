#include "symbolite/compiler/passes/pass_registry.h"

#include <functional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "symbolite/compiler/passes/constant_deduplication.h"
#include "symbolite/compiler/passes/dead_code_elimination.h"
#include "symbolite/compiler/passes/fold_module_attributes.h"
#include "symbolite/compiler/verifier.h"
#include "symbolite/support/error.h"

namespace symbolite::compiler {
namespace {

using PassFn = std::function<std::size_t(Program&, Function&)>;

// In the order `all` runs them: folding first, so that what it leaves dead is removed.
const std::vector<std::pair<std::string, PassFn>>& passes() {
  static const std::vector<std::pair<std::string, PassFn>> table = {
      {"fold-attributes", fold_module_attributes},
      {"dce", [](Program&, Function& f) { return eliminate_dead_code(*f.graph); }},
      {"dedup-constants", [](Program&, Function& f) { return deduplicate_constants(*f.graph); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : passes()) names.push_back(name);
  return names;
}

std::vector<PassResult> run_passes(Program& program, const std::vector<std::string>& names,
                                   bool verify_after_each) {
  std::vector<std::string> expanded;
  for (const auto& name : names) {
    if (name == "all") {
      for (const auto& known : pass_names()) expanded.push_back(known);
    } else {
      expanded.push_back(name);
    }
  }
  std::vector<PassResult> results;
  for (const auto& name : expanded) {
    const PassFn* fn = nullptr;
    for (const auto& [known, pass] : passes()) {
      if (known == name) fn = &pass;
    }
    if (fn == nullptr) {
      throw Error(ErrorKind::kUsage, fmt::format("unknown pass '{}' (known: {}, all)", name,
                                                 fmt::join(pass_names(), ", ")));
    }
    PassResult result{name, 0};
    for (auto& function : program.functions) {
      result.changes += (*fn)(program, function);
      if (verify_after_each) {
        try {
          verify(*function.graph);
        } catch (Error& e) {
          e.add_context(fmt::format("after pass '{}' on {}", name, function.qualified_name));
          throw;
        }
      }
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace symbolite::compiler
