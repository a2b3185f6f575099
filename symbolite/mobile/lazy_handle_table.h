// The debug handle of every bytecode instruction (`mobile_debug_handles.pkl`), decoded when
// first asked for: running needs a handle only for a failure or a profile event, and
// decoding the table was an eighth of loading a model. Safe to use from several threads: the
// first caller decodes, once.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/debuginfo/handle_table_reader.h"

namespace symbolite::mobile {

struct ModelInfo;

class LazyHandleTable {
 public:
  // `info` must have bytecode and an archive holding the record; it is kept.
  explicit LazyHandleTable(std::shared_ptr<const ModelInfo> info);

  // The handles of function `index` of info->bytecode->functions, one per instruction, or
  // null when the table has none for it. The first call decodes the record; a damaged record,
  // or a function whose handles do not number its instructions, throws its Error here, each
  // time.
  const std::vector<debuginfo::DebugHandle>* handles_of(std::size_t index) const;

 private:
  void decode() const;

  std::shared_ptr<const ModelInfo> info_;
  mutable std::once_flag once_;
  mutable debuginfo::HandleTable table_;
  // For each bytecode function, its entry in table_.functions(), or kNone.
  static constexpr std::size_t kNone = ~std::size_t{0};
  mutable std::vector<std::size_t> entry_of_;
  mutable std::exception_ptr error_;
};

}  // namespace symbolite::mobile
