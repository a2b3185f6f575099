#include "symbolite/mobile/lazy_handle_table.h"

#include <fmt/format.h>

#include "symbolite/archive/pickle_record.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {

LazyHandleTable::LazyHandleTable(archive::ModelArchive archive, std::vector<Function> functions)
    : archive_(std::move(archive)), functions_(std::move(functions)) {}

void LazyHandleTable::decode() const {
  table_ = archive::decode_pickle_record(
      archive_, "mobile_debug_handles.pkl", [this](const pickle::Value& root) {
        debuginfo::HandleTable table = debuginfo::read_handle_table(root);
        for (const Function& fn : functions_) {
          const debuginfo::FunctionHandles* found = table.find(fn.name);
          if (found != nullptr && found->handles.size() != fn.instructions) {
            throw Error(ErrorKind::kModel,
                        fmt::format("{}: {} debug handles for {} instructions", fn.name,
                                    found->handles.size(), fn.instructions));
          }
        }
        return table;
      });
  by_function_.reserve(functions_.size());
  for (const Function& fn : functions_) {
    const debuginfo::FunctionHandles* found = table_.find(fn.name);
    by_function_.push_back(found != nullptr ? &found->handles : nullptr);
  }
}

const std::vector<debuginfo::DebugHandle>* LazyHandleTable::handles_of(std::size_t index) const {
  std::call_once(once_, [this] {
    try {
      decode();
    } catch (...) {
      error_ = std::current_exception();  // every later call reports the same damage
    }
  });
  if (error_) std::rethrow_exception(error_);
  return index < by_function_.size() ? by_function_[index] : nullptr;
}

}  // namespace symbolite::mobile
