// Shared option checks and output-file handling of the `symbolite` subcommands, so every
// command words the same mistake the same way (docs/CLI.md, "Conventions").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace symbolite::cli {

// A CLI11 check for an int option: "'abc' is not a whole number" instead of CLI11's
// "Could not convert"; the range is checked after parsing (require_at_least).
CLI::Validator whole_number();

// Throws a usage error (exit 2) "OPTION must be at least MIN" when value < min.
void require_at_least(std::string_view option, long long value, long long min);

// Throws a usage error (exit 2) "A needs B" when `a_given` and not `b_given`.
void require_together(bool a_given, std::string_view a, bool b_given, std::string_view b);

// True for the path "-": the output goes to stdout.
inline bool is_stdout(std::string_view path) { return path == "-"; }

// Refuses, with the path and the reason (exit 1), an output file whose parent directory does
// not exist or is not a directory. Nothing is created.
void check_output_parent(const std::string& path);

// For a binary output file (a model, a sidecar): refuses "-" (usage error naming the option)
// and a missing parent directory (check_output_parent).
void check_binary_output(std::string_view option, const std::string& path);

// A path given on the command line, with the option or argument that named it.
struct NamedPath {
  std::string_view name;  // "--out", "MODEL"
  std::string path;
};

// Refuses (usage error, exit 2) an output that is one of the inputs — symbolite never
// overwrites what it reads — or the same file as another output. Files are compared by
// identity when they exist (links and "./a" vs "a" included), else by canonical path. "-"
// (stdout) is skipped.
void refuse_overlapping_outputs(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs);

// Writes `text` to `path`, or to stdout for "-". Errors name the path and the reason once.
void write_output_text(const std::string& path, const std::string& text);

// Prepares an output directory: an existing directory is used; a missing one is created if
// its parent exists (one level only); anything else is refused with the path and the reason.
void prepare_output_dir(const std::string& path);

}  // namespace symbolite::cli
