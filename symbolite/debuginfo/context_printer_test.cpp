#include "symbolite/debuginfo/context_printer.h"

#include <gtest/gtest.h>

namespace symbolite::debuginfo {
namespace {

SourceRange range_of(std::string_view text, std::string_view needle, std::int64_t first_line = 10,
                     std::optional<std::string> file = "m.py") {
  auto source = std::make_shared<Source>(Bytes::copy_of(text), std::move(file), first_line);
  std::size_t start = text.find(needle);
  return SourceRange(source, start, start + needle.size());
}

// The first expectation is verbatim from a real PyTorch 1.13 lite-interpreter error; the
// others pin down the edge cases of the same algorithm. End-to-end comparisons against
// PyTorch's own texts are in symbolicator_test.cpp (goldens) and tests/interop.
TEST(ContextPrinter, HighlightsTheRangeWithContext) {
  std::string text = "    def forward(self, x, y):\n        return x + y\n";
  std::string out;
  print_with_context(out, range_of(text, "x + y", 4), "forward");
  EXPECT_EQ(out,
            "  File \"m.py\", line 5, in forward\n"
            "    def forward(self, x, y):\n"
            "        return x + y\n"
            "               ~~~~~ <--- HERE\n");
}

// PyTorch's CONTEXT is 3, but its loops count the newline that ends the neighbouring line,
// so two lines of context show on each side; the goldens confirm it.
TEST(ContextPrinter, ShowsTwoLinesOfContextEachSideAsPyTorchDoes) {
  std::string text = "a1\na2\na3\na4\nhit\nb1\nb2\nb3\nb4\n";
  std::string out;
  print_with_context(out, range_of(text, "hit", 1), "f");
  EXPECT_EQ(out,
            "  File \"m.py\", line 5, in f\n"
            "a3\na4\nhit\n~~~ <--- HERE\nb1\nb2\n");
}

TEST(ContextPrinter, MultiLineRangeMarksHereOnTheLastLine) {
  std::string text = "x = foo(a,\n        b)\ny = 1\n";
  std::string out;
  print_with_context(out, range_of(text, "foo(a,\n        b)", 1), "");
  EXPECT_EQ(out,
            "  File \"m.py\", line 1\n"
            "x = foo(a,\n"
            "    ~~~~~~\n"
            "        b)\n"
            "        ~~ <--- HERE\n"
            "y = 1\n");
}

TEST(ContextPrinter, NoFilenameMeansNoHeader) {
  std::string text = "a = b + c\n";
  std::string out;
  print_with_context(out, range_of(text, "b + c", 1, std::nullopt), "f");
  EXPECT_EQ(out, "a = b + c\n    ~~~~~ <--- HERE\n");
}

TEST(ContextPrinter, UnknownRangePrintsNothing) {
  std::string out;
  print_with_context(out, SourceRange(), "f");
  EXPECT_EQ(out, "");
}

TEST(ContextPrinter, RangePastTheEndIsClamped) {
  auto source = std::make_shared<Source>(Bytes::copy_of("ab\ncd"), "m.py", 1);
  std::string out;
  print_with_context(out, SourceRange(source, 3, 99), "f");
  EXPECT_EQ(out, "  File \"m.py\", line 2, in f\nab\ncd\n~~ <--- HERE\n");
}

}  // namespace
}  // namespace symbolite::debuginfo
