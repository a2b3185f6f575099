// The load-time bytecode verifier: every operand of every instruction is checked before
// anything runs — register indices within register_size, constant, operator and type
// indices in range, jump targets inside the function (the handle table, a debug record, is
// checked when it is first decoded: mobile/lazy_handle_table.h). A malformed model is
// rejected at load with Error(kModel) naming the function and instruction; nothing malformed
// reaches the interpreter, which can then index without checks.
#pragma once

#include "symbolite/mobile/loaded_model.h"

namespace symbolite::mobile {

void verify_function(const LoadedFunction& function);

// The registers `code` can touch: its highest register operand (LOAD, MOVE, STORE, STOREN,
// DROPR), 0 for none. A file's register_size is only a claim; sizing a frame by this instead
// keeps `register_size: 2147483647` from allocating gigabytes.
std::size_t registers_used(const std::vector<Instruction>& code);

}  // namespace symbolite::mobile
