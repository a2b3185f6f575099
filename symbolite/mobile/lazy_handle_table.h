// The debug handle of every bytecode instruction (`mobile_debug_handles.pkl`), decoded when
// first asked for: running needs a handle only for a failure, a profile event or a call into
// a delegate, and decoding the table was an eighth of loading a model. Safe to use from
// several threads: the first caller decodes, once.
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/debuginfo/handle_table_reader.h"

namespace symbolite::mobile {

class LazyHandleTable {
 public:
  // A function of the model: its qualified name and how many instructions it has.
  struct Function {
    std::string name;
    std::size_t instructions = 0;
  };

  // `archive` must hold the record; it is kept (a shared view of the mapped file).
  // `functions`: the model's functions, numbered as handles_of takes them.
  LazyHandleTable(archive::ModelArchive archive, std::vector<Function> functions);

  // The handles of function `index`, one per instruction, or null when the table has none
  // for it. The first call decodes the record; a damaged record, or a function whose handles
  // do not number its instructions, throws its Error here, each time.
  const std::vector<debuginfo::DebugHandle>* handles_of(std::size_t index) const;

 private:
  void decode() const;

  archive::ModelArchive archive_;
  std::vector<Function> functions_;
  mutable std::once_flag once_;
  mutable debuginfo::HandleTable table_;
  mutable std::vector<const std::vector<debuginfo::DebugHandle>*> by_function_;
  mutable std::exception_ptr error_;
};

}  // namespace symbolite::mobile
