// The text of pytorch_schemas.txt, compiled in: the source defining it is generated at build
// time by embed_schemas.cmake. Internal to schema_table.cpp.
#pragma once

#include <string>

namespace symbolite::ops::detail {

// The whole file: `#` header lines, then one PyTorch 1.13 schema per line.
std::string pytorch_schema_text();

}  // namespace symbolite::ops::detail
