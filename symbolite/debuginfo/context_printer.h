// Prints a source range the way TorchScript tracebacks do: the file/line header, up to
// `context` lines around the range, and the highlighted part underlined with `~` followed by
// " <--- HERE". The layout follows PyTorch's SourceRange::print_with_context byte for byte,
// so symbolite's tracebacks can be compared with PyTorch's verbatim.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "symbolite/debuginfo/source_range.h"

namespace symbolite::debuginfo {

inline constexpr std::size_t kTracebackContextLines = 3;

// Appends the rendering of `range` to `out`. `function` (may be empty) goes in the header
// ("  File \"m.py\", line 5, in forward"). An unknown range appends nothing.
void print_with_context(std::string& out, const SourceRange& range, std::string_view function,
                        std::size_t context = kTracebackContextLines, bool highlight = true);

}  // namespace symbolite::debuginfo
