// Error: a kind, a message, a context chain (added innermost first, printed outermost first)
// and detail lines; with_context adds context to an Error passing through.
#include "symbolite/support/error.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support/error_from.h"

namespace symbolite {
namespace {

using testing::error_from;

TEST(Error, KindNames) {
  EXPECT_EQ(to_string(ErrorKind::kFormat), "format error");
  EXPECT_EQ(to_string(ErrorKind::kModel), "model error");
  EXPECT_EQ(to_string(ErrorKind::kUnsupported), "unsupported");
  EXPECT_EQ(to_string(ErrorKind::kNotFound), "not found");
  EXPECT_EQ(to_string(ErrorKind::kUsage), "usage error");
  EXPECT_EQ(to_string(ErrorKind::kLimit), "limit exceeded");
  EXPECT_EQ(to_string(ErrorKind::kIo), "i/o error");
  EXPECT_EQ(to_string(ErrorKind::kInternal), "internal error");
}

TEST(Error, WithoutContextWhatIsTheMessage) {
  Error e(ErrorKind::kModel, "missing entry 'bytecode.pkl'");
  EXPECT_EQ(e.kind(), ErrorKind::kModel);
  EXPECT_EQ(e.message(), "missing entry 'bytecode.pkl'");
  EXPECT_TRUE(e.context().empty());
  EXPECT_STREQ(e.what(), "missing entry 'bytecode.pkl'");
  EXPECT_EQ(e.summary(), "missing entry 'bytecode.pkl'");
}

TEST(Error, ContextIsAddedInnermostFirstAndPrintedOutermostFirst) {
  Error e(ErrorKind::kFormat, "unknown pickle opcode 0xff");
  e.add_context("byte 37").add_context("archive entry 'm/bytecode.pkl'").add_context("model.ptl");
  EXPECT_EQ(e.context(),
            (std::vector<std::string>{"byte 37", "archive entry 'm/bytecode.pkl'", "model.ptl"}));
  EXPECT_STREQ(e.what(),
               "model.ptl: archive entry 'm/bytecode.pkl': byte 37: unknown pickle opcode 0xff");
  EXPECT_EQ(e.message(), "unknown pickle opcode 0xff");
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
}

TEST(Error, DetailsAreLinesBelowTheSummary) {
  Error e(ErrorKind::kUnsupported, "2 operators are missing");
  e.add_detail("aten::foo").add_context("model.ptl").add_detail("aten::bar");
  EXPECT_EQ(e.details(), (std::vector<std::string>{"aten::foo", "aten::bar"}));
  EXPECT_STREQ(e.what(), "model.ptl: 2 operators are missing\naten::foo\naten::bar");
  EXPECT_EQ(e.summary(), "model.ptl: 2 operators are missing");
}

TEST(Error, TextKeepsANulThatWhatWouldStopAt) {
  Error e(ErrorKind::kFormat, std::string("name 'a\0b'", 10));
  e.add_context("f");
  EXPECT_EQ(e.text(), std::string("f: name 'a\0b'", 13));
  EXPECT_STREQ(e.what(), "f: name 'a");
}

TEST(Error, IsAStdException) {
  try {
    throw Error(ErrorKind::kIo, "x");
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "x");
  }
}

TEST(WithContext, ReturnsTheBodysValueWhenNothingIsThrown) {
  EXPECT_EQ(with_context("ignored", [] { return 42; }), 42);
  int target = 0;
  int& ref = with_context("ignored", [&]() -> int& { return target; });
  EXPECT_EQ(&ref, &target);
}

TEST(WithContext, AddsContextToAnErrorAndKeepsItsKind) {
  Error e = error_from([] {
    with_context("model.ptl", [] {
      with_context("archive entry 'm/data.pkl'",
                   [] { throw Error(ErrorKind::kLimit, "too deep"); });
    });
  });
  EXPECT_EQ(e.kind(), ErrorKind::kLimit);
  EXPECT_EQ(e.context(), (std::vector<std::string>{"archive entry 'm/data.pkl'", "model.ptl"}));
  EXPECT_STREQ(e.what(), "model.ptl: archive entry 'm/data.pkl': too deep");
}

TEST(WithContext, OtherExceptionsPassThroughUntouched) {
  try {
    with_context("where", [] { throw std::runtime_error("plain"); });
    FAIL() << "expected a throw";
  } catch (const Error&) {
    FAIL() << "not an Error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "plain");
  }
}

TEST(WithContext, ACallableWhereIsOnlyCalledOnFailure) {
  int calls = 0;
  auto where = [&calls] {
    ++calls;
    return std::string("row 7");
  };
  EXPECT_EQ(with_context(where, [] { return 1; }), 1);
  EXPECT_EQ(calls, 0);
  Error e = error_from([&] { with_context(where, [] { throw Error(ErrorKind::kModel, "bad"); }); });
  EXPECT_EQ(calls, 1);
  EXPECT_STREQ(e.what(), "row 7: bad");
}

}  // namespace
}  // namespace symbolite
