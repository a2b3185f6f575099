#include "symbolite/cli/options.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "symbolite/support/error.h"
#include "symbolite/support/output_files.h"

namespace symbolite::cli {
namespace fs = std::filesystem;

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        long long value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc::result_out_of_range ||
            (ec == std::errc() && end == text.data() + text.size() &&
             (value > std::numeric_limits<int>::max() ||
              value < std::numeric_limits<int>::min()))) {
          return fmt::format("{} is too large (at most {})", text, std::numeric_limits<int>::max());
        }
        if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
          return fmt::format("'{}' is not a whole number", text);
        }
        return {};
      },
      "INT");
}

void require_at_least(std::string_view option, long long value, long long min) {
  if (value < min)
    throw Error(ErrorKind::kUsage, fmt::format("{} must be at least {}", option, min));
}

void require_together(bool a_given, std::string_view a, bool b_given, std::string_view b) {
  if (a_given && !b_given) throw Error(ErrorKind::kUsage, fmt::format("{} needs {}", a, b));
}

namespace {

fs::path parent_of(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

}  // namespace

void check_output_parent(const std::string& path) {
  if (is_stdout(path)) return;
  fs::path parent = parent_of(path);
  std::error_code ec;
  auto status = fs::status(parent, ec);
  if (!fs::exists(status)) {
    throw Error(ErrorKind::kIo,
                fmt::format("{}: directory '{}' does not exist", path, parent.string()));
  }
  if (!fs::is_directory(status)) {
    throw Error(ErrorKind::kIo, fmt::format("{}: '{}' is not a directory", path, parent.string()));
  }
}

void check_binary_output(std::string_view option, const std::string& path) {
  if (is_stdout(path)) {
    throw Error(
        ErrorKind::kUsage,
        fmt::format("{} -: this output is binary and cannot go to stdout; name a file", option));
  }
  check_output_parent(path);
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

}  // namespace

void refuse_overlapping_outputs(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (is_stdout(out.path)) continue;
    for (const NamedPath& in : inputs) {
      if (!is_stdout(in.path) && same_file(out.path, in.path)) {
        throw Error(ErrorKind::kUsage,
                    fmt::format("{} {}: is the input {} {}; symbolite never overwrites what it "
                                "reads: choose another path",
                                out.name, out.path, in.name, in.path));
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!is_stdout(outputs[j].path) && same_file(out.path, outputs[j].path)) {
        throw Error(ErrorKind::kUsage,
                    fmt::format("{} {} and {} {} are the same file: choose two paths",
                                outputs[j].name, outputs[j].path, out.name, out.path));
      }
    }
  }
}

void write_output_text(const std::string& path, const std::string& text) {
  if (is_stdout(path)) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  check_output_parent(path);
  write_file_atomically(path, text);
}

void prepare_output_dir(const std::string& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (fs::is_directory(status)) return;
  if (fs::exists(status)) {
    throw Error(ErrorKind::kIo, fmt::format("{}: exists and is not a directory", path));
  }
  fs::path dir = fs::path(path).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "out/"
  fs::path parent = dir.parent_path();
  if (!parent.empty() && !fs::exists(parent, ec)) {
    throw Error(ErrorKind::kIo,
                fmt::format("{}: parent directory '{}' does not exist", path, parent.string()));
  }
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw Error(ErrorKind::kIo, fmt::format("{}: '{}' is not a directory", path, parent.string()));
  }
  if (!fs::create_directory(path, ec) && ec) {
    throw Error(ErrorKind::kIo, fmt::format("{}: cannot create directory: {}", path, ec.message()));
  }
}

}  // namespace symbolite::cli
