// The `symbolite` command: one subcommand per file in this folder, thin over the library.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "symbolite/backends/register_backends.h"
#include "symbolite/cli/bench_command.h"
#include "symbolite/cli/buffered_stdout.h"
#include "symbolite/cli/check_command.h"
#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/explain_command.h"
#include "symbolite/cli/export_command.h"
#include "symbolite/cli/graph_command.h"
#include "symbolite/cli/inspect_command.h"
#include "symbolite/cli/lower_command.h"
#include "symbolite/cli/minify_command.h"
#include "symbolite/cli/operators_command.h"
#include "symbolite/cli/profile_command.h"
#include "symbolite/cli/run_command.h"
#include "symbolite/cli/split_command.h"
#include "symbolite/cli/symbolicate_command.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"
#include "symbolite/support/printable_text.h"
#include "symbolite/version.h"

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// "unknown command 'symbolcate'; did you mean 'symbolicate'?" (a suggestion only when it is
// close: at most a third of the name's letters wrong).
std::string unknown_command_message(CLI::App& app, const std::string& name) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& candidate : subcommand_names(app)) {
    std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) best_distance = d, best = candidate;
  }
  std::string message = fmt::format("unknown command '{}'", name);
  if (!best.empty() && best_distance <= std::max<std::size_t>(2, best.size() / 3)) {
    message += fmt::format("; did you mean '{}'?", best);
  } else {
    message += fmt::format("; commands: {}", fmt::join(subcommand_names(app), ", "));
  }
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace symbolite;
  // mimalloc's operator new aborts when it has no memory and no handler is installed (it
  // cannot throw from C); with this one it throws std::bad_alloc as the standard's does, and
  // the failure becomes the model's error or the message below.
  std::set_new_handler([] { throw std::bad_alloc(); });
  backends::register_delegate_backends();
  CLI::App app("symbolite: model-level debug information for TorchScript models", "symbolite");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("symbolite ") + symbolite::version(),
                       "Print the version and exit");
  app.footer("`symbolite help COMMAND` prints a command's options.");
  int exit_code = cli::kExitOk;
  cli::add_inspect_command(app, exit_code);
  cli::add_operators_command(app, exit_code);
  cli::add_symbolicate_command(app, exit_code);
  cli::add_check_command(app, exit_code);
  cli::add_split_command(app, exit_code);
  cli::add_run_command(app, exit_code);
  cli::add_profile_command(app, exit_code);
  cli::add_bench_command(app, exit_code);
  cli::add_graph_command(app, exit_code);
  cli::add_export_command(app, exit_code);
  cli::add_lower_command(app, exit_code);
  cli::add_explain_command(app, exit_code);
  cli::add_minify_command(app, exit_code);

  // `symbolite help [COMMAND]`, and an unknown command named with a suggestion, before CLI11
  // (which would answer both with "A subcommand is required").
  if (argc >= 2) {
    std::string first = argv[1];
    if (first == "help") {
      if (argc == 2) {
        fmt::print("{}", app.help());
        return cli::kExitOk;
      }
      std::string name = argv[2];
      auto names = subcommand_names(app);
      if (argc > 3 || std::find(names.begin(), names.end(), name) == names.end()) {
        fmt::print(stderr, "symbolite: usage error: {}\n",
                   argc > 3 ? "help takes one command" : unknown_command_message(app, name));
        return cli::kExitUsage;
      }
      fmt::print("{}", app.get_subcommand(name)->help());
      return cli::kExitOk;
    }
    auto names = subcommand_names(app);
    if (!first.empty() && first[0] != '-' &&
        std::find(names.begin(), names.end(), first) == names.end()) {
      fmt::print(stderr, "symbolite: usage error: {}\n", unknown_command_message(app, first));
      return cli::kExitUsage;
    }
  }
  try {
    cli::BufferedStdout output;
    app.parse(argc, argv);
    output.release();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr,
               "symbolite: usage error: {}\nRun 'symbolite help' or 'symbolite help COMMAND' "
               "for the options.\n",
               printable_text(e.what(), Newlines::kEscape));
    return cli::kExitUsage;
  } catch (const runtime::RunError& e) {
    // A failure inside the model: its own message and location, as the model raised it
    // (several lines: the model's message and source keep theirs; names in it are on one
    // line, and every other control byte from the file is escaped).
    fmt::print(stderr, "{}\n", printable_text(e.text()));
    return cli::kExitModelError;
  } catch (const Error& e) {
    // One line, then its detail lines (missing operators): a newline from a file is escaped
    // like any other control byte, so it cannot start a line.
    fmt::print(stderr, "symbolite: {}: {}\n", to_string(e.kind()),
               printable_text(e.summary(), Newlines::kEscape));
    for (const auto& line : e.details())
      fmt::print(stderr, "{}\n", printable_text(line, Newlines::kEscape));
    return cli::exit_code_for(e);
  } catch (const std::filesystem::filesystem_error& e) {
    // The operating system refused: the path and the reason, once.
    fmt::print(stderr, "symbolite: {}: {}: {}\n", to_string(ErrorKind::kIo),
               printable_text(e.path1().string(), Newlines::kEscape), e.code().message());
    return cli::kExitModelError;
  } catch (const std::bad_alloc&) {
    // Every decoded size is bounded (docs/RELIABILITY.md, "Limits"), but the bounds can still
    // exceed what this machine has: say so, as the limit it is, not as a bug.
    fmt::print(stderr,
               "symbolite: limit exceeded: out of memory: the input needs more memory than "
               "this machine gives the process\n");
    return cli::kExitModelError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "symbolite: internal error: {}\n",
               printable_text(e.what(), Newlines::kEscape));
    return cli::kExitModelError;
  }
  return exit_code;
}
