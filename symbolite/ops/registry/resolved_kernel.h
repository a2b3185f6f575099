// Operators that are other operators: aliases (`aten::arccos` is `aten::acos`), in-place forms
// and compositions. The operators they call are found once, at registration, so no name is
// looked up per call (unlike run_op): `add_alias` copies the base's definition under another
// name, and `ResolvedKernel<"aten::name">` keeps the kernel of an operator named at compile
// time for kernels that call it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string_view>
#include <vector>

#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::ops {

// `base`'s definition in `registry`; Error(kInternal) naming `needed_by` if it is not
// registered (a family registered before the family it calls).
const OperatorDef& registered_def(const OperatorRegistry& registry, std::string_view base,
                                  std::string_view needed_by);

// Registers `alias` as the already registered operator `base` (same arguments, same kernel),
// with the alias's own defaults where its schema has others.
void add_alias(OperatorRegistry& registry, std::string_view alias, std::string_view base,
               const std::vector<IValue>* defaults = nullptr);

// An operator's name as a template argument: ResolvedKernel<"aten::hardtanh">.
template <std::size_t N>
struct OpName {
  // NOLINTNEXTLINE(google-explicit-constructor): built from a string literal on purpose
  consteval OpName(const char (&name)[N]) { std::copy_n(name, N, chars); }
  std::string_view view() const { return {chars, N - 1}; }
  char chars[N]{};
};

// The kernel of the operator kName, resolved by `resolve` at registration (every registry
// resolves it to the same kernel, so the one slot per name serves them all) and run by `call`
// on the stack's last num_args() values, as the interpreter runs it.
template <OpName kName>
class ResolvedKernel {
 public:
  static const OperatorDef& resolve(const OperatorRegistry& registry, std::string_view needed_by) {
    const OperatorDef& def = registered_def(registry, kName.view(), needed_by);
    kernel_.store(def.kernel, std::memory_order_relaxed);
    num_args_.store(def.num_args, std::memory_order_relaxed);
    return def;
  }
  static void call(Stack& s) { kernel_.load(std::memory_order_relaxed)(s); }
  static std::size_t num_args() { return num_args_.load(std::memory_order_relaxed); }

 private:
  static inline std::atomic<Kernel> kernel_{nullptr};
  static inline std::atomic<std::size_t> num_args_{0};
};

}  // namespace symbolite::ops
