// Fuzzes the compiler's lifter and emitter: the input is a `bytecode.pkl` pickle; it is
// decoded, lifted to the IR (no debug info, no class table), verified, and emitted again.
// Only symbolite::Error may escape, and whatever lifts must verify and emit.
#include <cstddef>
#include <cstdint>

#include "symbolite/compiler/emitter.h"
#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/verifier.h"
#include "symbolite/mobile/bytecode.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace symbolite;
  compiler::Program program;
  try {
    mobile::Bytecode bytecode = mobile::read_bytecode(pickle::unpickle(Bytes(nullptr, data, size)));
    program = compiler::lift_bytecode(bytecode, compiler::ClassTable{}, nullptr, nullptr,
                                      "__torch__.Fuzz");
  } catch (const Error&) {
    return 0;
  }
  for (const auto& function : program.functions) {
    compiler::verify(*function.graph);  // an Error here is a lifter bug: let it crash the fuzzer
    try {
      compiler::emit_function(function);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInternal) throw;
    }
  }
  return 0;
}
