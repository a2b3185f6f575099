// Fuzzes the operator schema parser (ops/schema/schema_parser.h): any bytes must either parse
// or throw symbolite::Error. A parsed schema is printed; when that text parses again, it must
// print the same (printing is PyTorch's str(schema), which is not always parseable: a string
// default of a non-str argument prints unquoted, as in PyTorch).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "symbolite/ops/schema/schema_parser.h"
#include "symbolite/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string printed;
  try {
    auto schema = symbolite::ops::parse_schema(text);
    // PyTorch prints a string default of a non-str argument unquoted: no fixpoint to expect.
    for (const auto& argument : schema.arguments) {
      if (argument.default_value &&
          argument.default_value->is(symbolite::pickle::Value::Kind::kString) &&
          argument.type != "str" && argument.type != "str?") {
        return 0;
      }
    }
    printed = schema.to_string();
    (void)symbolite::ops::parse_schema(printed).full_name();
  } catch (const symbolite::Error&) {
    return 0;
  }
  if (symbolite::ops::parse_schema(printed).to_string() != printed) __builtin_trap();
  return 0;
}
