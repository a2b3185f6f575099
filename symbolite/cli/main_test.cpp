// The `symbolite` command itself: --version, help, and mistyped commands.
#include <string>

#include <gtest/gtest.h>

#include "tests/test_support/run_cli.h"

namespace symbolite::cli {
namespace {

using symbolite::testing::run_cli;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace
}  // namespace symbolite::cli

namespace symbolite::cli {
namespace {

TEST(Cli, VersionHelpAndMistypedCommands) {
  auto version = run_cli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, "symbolite 0.")) << version.out;
  auto help = run_cli("help export");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "--stable-handles")) << help.out;
  auto typo = run_cli("symbolcate x.ptl 3");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(contains(typo.err, "unknown command 'symbolcate' (did you mean 'symbolicate'?); `symbolite help` lists the commands")) << typo.err;
  auto unrelated = run_cli("frobnicate");
  EXPECT_EQ(unrelated.exit_code, 2);
  EXPECT_TRUE(contains(unrelated.err, "unknown command 'frobnicate'; `symbolite help`")) << unrelated.err;
}

}  // namespace
}  // namespace symbolite::cli
