#include "symbolite/debuginfo/handle_table_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::debuginfo {

HandleTable::HandleTable(std::int64_t bytecode_version, std::vector<FunctionHandles> functions)
    : bytecode_version_(bytecode_version), functions_(std::move(functions)) {
  index_.reserve(instruction_count());
  for (std::size_t f = 0; f < functions_.size(); ++f) {
    const auto& handles = functions_[f].handles;
    for (std::size_t i = 0; i < handles.size(); ++i) {
      if (handles[i] != kInvalidDebugHandle) index_.push_back({handles[i], f, i});
    }
  }
  // Exporters number handles in the order they write instructions, so the sort is usually
  // skipped; stable, so a handle's first site stays first.
  auto by_handle = [](const Site& a, const Site& b) { return a.handle < b.handle; };
  if (!std::is_sorted(index_.begin(), index_.end(), by_handle)) {
    std::stable_sort(index_.begin(), index_.end(), by_handle);
  }
}

std::optional<InstructionSite> HandleTable::site_of(DebugHandle handle) const {
  auto it = std::lower_bound(index_.begin(), index_.end(), handle,
                             [](const Site& site, DebugHandle h) { return site.handle < h; });
  if (it == index_.end() || it->handle != handle) return std::nullopt;
  return InstructionSite{functions_[it->function].function, it->instruction};
}

const FunctionHandles* HandleTable::find(std::string_view function) const {
  for (auto it = functions_.rbegin(); it != functions_.rend(); ++it) {
    if (it->function == function) return &*it;
  }
  return nullptr;
}

std::size_t HandleTable::instruction_count() const {
  std::size_t n = 0;
  for (const auto& f : functions_) n += f.handles.size();
  return n;
}

HandleTable read_handle_table(const pickle::Value& root) {
  const auto& top = root.as_tuple();
  if (top.empty())
    throw Error(ErrorKind::kModel, "empty tuple: expected the bytecode version first");
  std::int64_t version = top[0].as_int();
  std::vector<FunctionHandles> functions;
  for (std::size_t i = 1; i < top.size(); ++i) {
    with_context(fmt::format("function {}", i - 1), [&] {
      const auto& entry = top[i].as_tuple();
      if (entry.size() != 2) {
        throw Error(ErrorKind::kModel,
                    fmt::format("expected (name, table), got {} elements", entry.size()));
      }
      FunctionHandles fn;
      fn.function = std::string(entry[0].as_string());
      with_context(fmt::format("'{}'", fn.function), [&] {
        for (const auto& field : entry[1].as_tuple()) {
          const auto& pair = field.as_tuple();
          if (pair.size() != 2 || pair[0].as_string() != "function_debug_handles") continue;
          // PyTorch writes the handles as a 1-tuple holding build_intlist([...]).
          const pickle::Value* list = &pair[1];
          if (list->is(pickle::Value::Kind::kTuple) && list->as_tuple().size() == 1 &&
              list->as_tuple()[0].is(pickle::Value::Kind::kList)) {
            list = list->as_tuple().data();
          }
          for (const auto& h : list->as_sequence()) fn.handles.push_back(h.as_int());
        }
      });
      functions.push_back(std::move(fn));
    });
  }
  return HandleTable(version, std::move(functions));
}

}  // namespace symbolite::debuginfo
