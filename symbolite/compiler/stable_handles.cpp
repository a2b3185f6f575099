#include "symbolite/compiler/stable_handles.h"

#include "symbolite/support/content_hash.h"

namespace symbolite::compiler {
namespace {

void hash_range(ContentHasher& hasher, const debuginfo::SourceRange& range) {
  if (!range.known()) {
    hasher.update_u64(0);
    return;
  }
  hasher.update_u64(1);
  hasher.update(range.source()->filename().value_or(""));
  hasher.update(range.text());
  hasher.update_u64(range.start());
  hasher.update_u64(range.end());
}

}  // namespace

debuginfo::DebugHandle stable_handle(std::string_view function, std::size_t instruction,
                                     const debuginfo::DebugInfo& info) {
  ContentHasher hasher;
  hasher.update(function);
  hasher.update_u64(instruction);
  hasher.update(info.node_kind);
  hash_range(hasher, info.range);
  for (const auto* call = info.call_stack.get(); call != nullptr; call = call->callee().get()) {
    if (call->module_instance()) {
      hasher.update(call->module_instance()->type_name);
      hasher.update(call->module_instance()->instance_name);
    }
    hasher.update(call->function_name());
    hash_range(hasher, call->callsite());
  }
  Hash128 digest = hasher.digest();
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | digest[static_cast<std::size_t>(i)];
  return static_cast<debuginfo::DebugHandle>(value >> 2);
}

}  // namespace symbolite::compiler
