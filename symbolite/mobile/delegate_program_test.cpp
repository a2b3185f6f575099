// Delegate programs: the text round-trips (the PyTorch-made fixture's payload included), steps
// without results keep their place, and malformed payloads are refused naming the line.
#include <gtest/gtest.h>

#include <fstream>

#include "symbolite/mobile/delegate_program.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_delegate_program(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DelegateProgram, ThePayloadPyTorchWroteRoundTrips) {
  std::ifstream in(testing::fixture_path("goldens/delegated.json"));
  auto golden = nlohmann::json::parse(in);
  std::string text = golden["processed"]["forward"];
  auto program = parse_delegate_program(text);
  EXPECT_EQ(program.num_inputs, 2u);
  EXPECT_EQ(program.steps.size(), 6u);
  EXPECT_EQ(program.steps[0].op, "aten::mul.Tensor");
  EXPECT_EQ(program.steps[0].handle, 1);
  EXPECT_EQ(print_delegate_program(program), text);
}

TEST(DelegateProgram, StepsWithoutResultsKeepTheirPlace) {
  DelegateProgram p;
  auto x = p.add_input();
  p.add_step(7, "aten::_assert_async", {x}, 0);
  auto y = p.add_step(8, "aten::relu", {x}, 1);
  p.outputs = {y};
  std::string text = print_delegate_program(p);
  EXPECT_EQ(text,
            "symbolite-delegate-program 1\ninput\nop 7 aten::_assert_async 1 0 -> 0\nop 8 "
            "aten::relu 1 0 -> 1\noutput 1\n");
  EXPECT_EQ(print_delegate_program(parse_delegate_program(text)), text);
}

TEST(DelegateProgram, MalformedPayloadsNameTheLine) {
  EXPECT_NE(error_of("nonsense").find("line 1: not a symbolite delegate program"),
            std::string::npos);
  EXPECT_NE(error_of("symbolite-delegate-program 2\n").find("version 2"), std::string::npos);
  EXPECT_NE(error_of("symbolite-delegate-program 1\ninput\nop 1 aten::relu 1 5 -> 1\noutput 1\n")
                .find("line 3: value 5 is not defined yet"),
            std::string::npos);
  EXPECT_NE(error_of("symbolite-delegate-program 1\ninput\nstr 99:ab\noutput 0\n")
                .find("line 3: bad string length"),
            std::string::npos);
  EXPECT_NE(error_of("symbolite-delegate-program 1\ninput\n").find("no output line"),
            std::string::npos);
  EXPECT_NE(error_of("symbolite-delegate-program 1\ninput\nop 1 aten::relu 1 0 -> 100\noutput 0\n")
                .find("count 100 out of range"),
            std::string::npos);
}

}  // namespace
}  // namespace symbolite::mobile
