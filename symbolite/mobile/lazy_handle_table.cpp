#include "symbolite/mobile/lazy_handle_table.h"

#include <fmt/format.h>

#include "symbolite/archive/pickle_record.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {

LazyHandleTable::LazyHandleTable(std::shared_ptr<const ModelInfo> info) : info_(std::move(info)) {}

void LazyHandleTable::decode() const {
  table_ = archive::decode_pickle_record(
      info_->archive, debuginfo::kHandleTableRecord, [this](const pickle::Value& root) {
        debuginfo::HandleTable table = debuginfo::read_handle_table(root);
        for (const BytecodeFunction& fn : info_->bytecode->functions) {
          const debuginfo::FunctionHandles* found = table.find(fn.qualified_name);
          if (found != nullptr && found->handles.size() != fn.instructions.size()) {
            throw Error(ErrorKind::kModel,
                        fmt::format("{}: {} debug handles for {} instructions", fn.qualified_name,
                                    found->handles.size(), fn.instructions.size()));
          }
          entry_of_.push_back(found != nullptr
                                  ? static_cast<std::size_t>(found - table.functions().data())
                                  : kNone);
        }
        return table;
      });
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
  if (index >= entry_of_.size() || entry_of_[index] == kNone) return nullptr;
  return &table_.functions()[entry_of_[index]].handles;
}

}  // namespace symbolite::mobile
