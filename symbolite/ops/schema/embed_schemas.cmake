# Turns pytorch_schemas.txt into a C++ source at build time (cmake -P, no Python):
#   cmake -DINPUT=<txt> -DOUTPUT=<cpp> -P embed_schemas.cmake
# The text becomes raw string literals of at most 48 KB each (compilers limit the length of
# one literal; MSVC to 64 KB), concatenated at run time by pytorch_schema_text().
file(READ "${INPUT}" text)
string(LENGTH "${text}" length)
string(FIND "${text}" ")schema\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )schema\"")
endif()
set(chunk_size 49152)
set(body "")
set(count 0)
set(offset 0)
while(offset LESS length)
  string(SUBSTRING "${text}" ${offset} ${chunk_size} chunk)
  string(APPEND body "    R\"schema(${chunk})schema\",\n")
  math(EXPR offset "${offset} + ${chunk_size}")
  math(EXPR count "${count} + 1")
endwhile()
file(WRITE "${OUTPUT}" "// Generated from symbolite/ops/schema/pytorch_schemas.txt by embed_schemas.cmake.
#include <string>

#include \"symbolite/ops/schema/schema_table_data.h\"

namespace symbolite::ops::detail {
namespace {
const char* const kChunks[] = {
${body}};
}  // namespace

std::string pytorch_schema_text() {
  std::string text;
  text.reserve(${length});
  for (const char* chunk : kChunks) text += chunk;
  return text;
}

}  // namespace symbolite::ops::detail
")
