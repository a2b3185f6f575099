#include "symbolite/cli/symbolicate_command.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/debuginfo/crash_log.h"
#include "symbolite/debuginfo/symbolication_json.h"
#include "symbolite/mobile/symbolication_target.h"
#include "symbolite/support/json_text.h"

namespace symbolite::cli {
namespace {

struct SymbolicateOptions {
  std::vector<std::string> args;  // [MODEL] then decimal handles, or "-" for a crash log
  std::string sidecar;            // --debug
  bool json = false;

  std::string model;                 // resolved from args
  std::vector<std::string> handles;  // resolved from args
};

// "N", or "I:B" for a delegate failure: instruction handle I called a to_backend delegate whose
// node with backend handle B failed.
bool parse_integer(std::string_view text, debuginfo::DebugHandle& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool is_handle_argument(const std::string& arg) {
  debuginfo::DebugHandle value = 0;
  auto colon = arg.find(':');
  if (colon != std::string::npos) {
    return parse_integer(std::string_view(arg).substr(0, colon), value) &&
           parse_integer(std::string_view(arg).substr(colon + 1), value);
  }
  return arg == "-" || parse_integer(arg, value);
}

// MODEL HANDLE... ; with --debug the model is optional (given, it is checked against the
// sidecar's model id).
void resolve_arguments(SymbolicateOptions& o) {
  std::size_t first_handle = 0;
  if (o.sidecar.empty() || (!o.args.empty() && !is_handle_argument(o.args[0]))) {
    if (o.args.empty()) throw Error(ErrorKind::kUsage, "missing MODEL");
    o.model = o.args[0];
    first_handle = 1;
  }
  o.handles.assign(o.args.begin() + static_cast<long>(first_handle), o.args.end());
  if (o.handles.empty()) {
    throw Error(ErrorKind::kUsage,
                "missing debug handles: give them as arguments, or - to read a crash log");
  }
}

// The model whose handles are symbolicated: the full model, or its sidecar (verified
// against the model when both are given).
mobile::SymbolicationTarget open_target(const SymbolicateOptions& o) {
  return o.sidecar.empty() ? mobile::SymbolicationTarget::open(o.model)
                           : mobile::SymbolicationTarget::open_sidecar(o.sidecar, o.model);
}

// A handle to symbolicate and, for crash logs, where it was mentioned.
struct Request {
  debuginfo::DebugHandle handle;
  std::optional<std::size_t> log_line;
  std::optional<debuginfo::DebugHandle> backend_handle;  // "I:B": `handle` is I
  std::size_t mentions = 0;  // times the log mentions the handle (0 for an argument)
};

// The crash log on stdin, whole: mentions can sit anywhere and lines be of any length. A log
// larger than this is refused rather than read until memory runs out.
constexpr std::size_t kMaxLogBytes = std::size_t{1} << 30;

std::string read_log_from_stdin() {
  std::string log;
  char buffer[1 << 16];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, stdin)) {
    if (log.size() + n > kMaxLogBytes) {
      throw Error(ErrorKind::kLimit,
                  fmt::format("the log on stdin is larger than {} bytes; pass the part around "
                              "the failure",
                              kMaxLogBytes));
    }
    log.append(buffer, n);
  }
  if (std::ferror(stdin)) {
    throw Error(ErrorKind::kIo,
                fmt::format("reading the log from stdin: {}", std::strerror(errno)));
  }
  return log;
}

Request parse_handle_argument(const std::string& text) {
  if (!is_handle_argument(text) || text == "-") {
    throw Error(ErrorKind::kUsage,
                fmt::format("'{}' is not a debug handle (expected an integer, INSTRUCTION:BACKEND "
                            "for a delegate failure, or - to read a log from stdin)",
                            text));
  }
  Request request{0, std::nullopt, std::nullopt, 0};
  auto colon = text.find(':');
  parse_integer(std::string_view(text).substr(0, colon), request.handle);
  if (colon != std::string::npos) {
    debuginfo::DebugHandle backend = 0;
    parse_integer(std::string_view(text).substr(colon + 1), backend);
    request.backend_handle = backend;
  }
  return request;
}

std::vector<Request> collect_requests(const SymbolicateOptions& options) {
  std::vector<Request> requests;
  for (const auto& arg : options.handles) {
    if (arg != "-") {
      requests.push_back(parse_handle_argument(arg));
      continue;
    }
    std::string log = read_log_from_stdin();
    auto logged = debuginfo::log_handles(log);
    if (logged.handles.empty() && logged.skipped == 0) {
      throw Error(ErrorKind::kNotFound,
                  "no debug handles found on stdin (looked for 'debug_handles:{N, ...}' and "
                  "'debug handle N')");
    }
    for (const auto& h : logged.handles)
      requests.push_back(Request{h.handle, h.line, std::nullopt, h.mentions});
    if (logged.skipped > 0) {
      fmt::print(stderr,
                 "symbolite: skipped {} number{} in debug_handles sets too large for a "
                 "debug handle\n",
                 logged.skipped, logged.skipped == 1 ? "" : "s");
    }
    if (requests.empty()) {
      throw Error(ErrorKind::kNotFound,
                  "no debug handles found on stdin: every number in its "
                  "debug_handles sets is too large for a debug handle");
    }
  }
  return requests;
}

void print_text(const debuginfo::Symbolication& s, const Request& request) {
  std::string header =
      request.backend_handle
          ? fmt::format("debug handles {}:{} (instruction:backend, a to_backend delegate)",
                        request.handle, *request.backend_handle)
          : fmt::format("debug handle {}", s.handle);
  if (request.log_line) {
    header += request.mentions > 1 ? fmt::format(" (log line {}, mentioned {} times)",
                                                 *request.log_line, request.mentions)
                                   : fmt::format(" (log line {})", *request.log_line);
  }
  if (!s.op.empty()) header += fmt::format(": {}", s.op);
  if (s.site)
    header += fmt::format(" at instruction {} of {}", s.site->instruction, s.site->function);
  if (s.status == debuginfo::SymbolicationStatus::kNotFound) header += ": not found";
  fmt::print("{}\n", header);
  if (!s.module_hierarchy.empty()) fmt::print("Module hierarchy:{}\n", s.module_hierarchy);
  if (!s.traceback.empty()) fmt::print("{}", s.traceback);
  for (const auto& note : s.notes) fmt::print("note: {}\n", note);
}

}  // namespace

void add_symbolicate_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SymbolicateOptions>();
  auto* cmd = app.add_subcommand(
      "symbolicate", "Turn debug handles into module hierarchies and TorchScript tracebacks");
  cmd->add_option("args", options->args,
                  "MODEL (with debug info) then debug handles (INSTRUCTION:BACKEND for a failure "
                  "inside a to_backend delegate), or - to read a crash log from stdin; with "
                  "--debug the model is optional")
      ->required();
  cmd->add_option("--debug", options->sidecar,
                  "Symbolicate from this sidecar (made by `symbolite split`)");
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    resolve_arguments(*options);
    auto requests = collect_requests(*options);
    const mobile::SymbolicationTarget target = open_target(*options);

    std::vector<debuginfo::Symbolication> results;
    results.reserve(requests.size());
    bool all_found = true;
    for (const auto& request : requests) {
      results.push_back(target.symbolicate(request.handle, request.backend_handle));
      all_found &= results.back().status != debuginfo::SymbolicationStatus::kNotFound;
    }

    if (options->json) {
      nlohmann::json out = {{"schema_version", 1},
                            {"model", options->model.empty() ? nlohmann::json(nullptr)
                                                             : nlohmann::json(options->model)},
                            {"results", nlohmann::json::array()}};
      if (!options->sidecar.empty()) out["sidecar"] = options->sidecar;
      if (!options->sidecar.empty()) out["model_id"] = to_hex(target.model_id());
      for (std::size_t i = 0; i < results.size(); ++i) {
        auto r = to_json(results[i]);
        if (requests[i].log_line) {
          r["log_line"] = *requests[i].log_line;
          r["mentions"] = requests[i].mentions;
        }
        out["results"].push_back(std::move(r));
      }
      std::cout << json_text(out, 2) << "\n";
    } else {
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (i) fmt::print("\n");
        print_text(results[i], requests[i]);
      }
    }
    if (!all_found) {
      fmt::print(stderr, "symbolite: some debug handles were not found in {} (see notes)\n",
                 options->sidecar.empty() ? options->model : options->sidecar);
    }
    exit_code = all_found ? kExitOk : kExitModelError;
  });
}

}  // namespace symbolite::cli
