// Fuzzes the delegate-program parser (mobile/delegate_program.h) and what the runtime does with
// a parsed program at load (runtime/delegate/program_backend.h: operators resolved, weights
// bound): the payload of a lowered module comes from the model file. Only symbolite::Error may
// escape; whatever parses must print and parse back to the same program.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "symbolite/mobile/delegate_program.h"
#include "symbolite/runtime/delegate/program_backend.h"
#include "symbolite/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace symbolite;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mobile::DelegateProgram program;
  try {
    program = mobile::parse_delegate_program(text);
  } catch (const Error&) {
    return 0;
  }
  // Printing is the parser's inverse: a mismatch is a bug, let it crash the fuzzer.
  std::string printed = mobile::print_delegate_program(program);
  if (mobile::print_delegate_program(mobile::parse_delegate_program(printed)) != printed)
    __builtin_trap();
  try {
    runtime::compile_program(std::move(program), {});
  } catch (const Error&) {
  }
  return 0;
}
