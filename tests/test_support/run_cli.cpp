#include "tests/test_support/run_cli.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_support/fixtures.h"

namespace symbolite::testing {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CliResult run_cli(const std::string& args, const std::string& stdin_text) {
  namespace fs = std::filesystem;
  static int counter = 0;
  fs::path dir = fs::temp_directory_path() / ("symbolite_cli_test_" + std::to_string(::getpid()) +
                                              "_" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "in") << stdin_text;
  std::string command = std::string(SYMBOLITE_CLI_PATH) + " " + args + " < " +
                        (dir / "in").string() + " > " + (dir / "out").string() + " 2> " +
                        (dir / "err").string();
  int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(dir / "out");
  result.err = slurp(dir / "err");
  fs::remove_all(dir);
  return result;
}

std::string nested() { return fixture_path("models/nested.ptl"); }

std::string direct_call() {
  std::string dir = fixture_path("run/nested/valid_2/");
  return nested() + " --method direct --input " + dir + "input_0.npy " + dir + "input_1.npy";
}

}  // namespace symbolite::testing
