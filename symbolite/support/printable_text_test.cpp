// printable_text and single_line: what reaches a terminal from a file.
#include "symbolite/support/printable_text.h"

#include <string>

#include <gtest/gtest.h>

namespace symbolite {
namespace {

TEST(PrintableText, PlainTextAndValidUtf8PassUnchanged) {
  EXPECT_EQ(printable_text("top(Net).layer1 \t äß 🙂\n"), "top(Net).layer1 \t äß 🙂\n");
}

TEST(PrintableText, ControlBytesDelAndInvalidUtf8AreEscaped) {
  const std::string hostile("a\x1b[2Jb\x07\x7f\xff\xc0\xaf\r", 12);
  EXPECT_EQ(printable_text(hostile), "a\\x1b[2Jb\\x07\\x7f\\xff\\xc0\\xaf\\x0d");
  // A NUL neither ends the text nor reaches the terminal.
  EXPECT_EQ(printable_text(std::string("x\0y", 3)), "x\\x00y");
  // Surrogates and code points past U+10FFFF are not UTF-8.
  EXPECT_EQ(printable_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printable_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
}

TEST(PrintableText, NewlinesAreKeptOrEscapedAsAsked) {
  EXPECT_EQ(printable_text("a\nb"), "a\nb");
  EXPECT_EQ(printable_text("a\nb", Newlines::kEscape), "a\\x0ab");
}

TEST(SingleLine, OnlyNewlinesChangeTheRestIsLeftForOutput) {
  EXPECT_EQ(single_line("level1"), "level1");
  EXPECT_EQ(single_line("le\nel1\n"), "le\\x0ael1\\x0a");
  EXPECT_EQ(single_line("a\x1b"), "a\x1b");  // escaped later, by printable_text
  EXPECT_EQ(printable_text(single_line("a\n\x1b")), "a\\x0a\\x1b");
}

}  // namespace
}  // namespace symbolite
