#include "symbolite/cli/bench_command.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/options.h"
#include "symbolite/cli/run_budget_options.h"
#include "symbolite/cli/threads_option.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/support/json_text.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::cli {
namespace {

// This process's peak resident memory. Linux's VmHWM starts afresh at exec; getrusage's
// ru_maxrss does not (a child of a 300 MiB Python process reports at least that), so it is
// only the fallback.
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // in kB
  }
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct BenchOptions {
  RunBudgetOptions budget;
  std::string model;
  std::string method = "forward";
  std::vector<std::string> inputs;
  int runs = 20;
  int warmup = 3;
  bool profile = false;
  bool profile_details = false;
  bool no_fusion = false;
  bool json = false;
};

// A progress bar on a terminal, redrawn at most ten times a second (and at the end).
class Progress {
 public:
  explicit Progress(int total) : total_(total), tty_(::isatty(STDERR_FILENO) != 0) {}
  void update(int done) {
    if (!tty_) return;
    auto now = std::chrono::steady_clock::now();
    if (done != total_ && drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    drawn_ = true;
    last_ = now;
    draw(done, total_);
  }

 private:
  static void draw(int done, int total);
  int total_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

void Progress::draw(int done, int total) {
  constexpr int kWidth = 30;
  int filled = total ? done * kWidth / total : kWidth;
  fmt::print(stderr, "\r[{:#<{}}{:.<{}}] {}/{}", "", filled, "", kWidth - filled, done, total);
  if (done == total) fmt::print(stderr, "\r{:{}}\r", "", kWidth + 16);
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand("bench", "Measure a model's latency");
  cmd->add_option("model", o->model, "Model (.ptl)")->required();
  cmd->add_option("--method", o->method, "Method of the top module (default: forward)");
  cmd->add_option("--input", o->inputs, "Inputs in order: .npy tensors or .json values");
  cmd->add_option("--runs", o->runs, "Timed runs, at least 1 (default 20)")->check(whole_number());
  cmd->add_option("--warmup", o->warmup, "Untimed runs first, at least 0 (default 3)")
      ->check(whole_number());
  cmd->add_flag("--profile", o->profile,
                "Record profiler events during the timed runs (to measure the profiler's cost)");
  cmd->add_flag("--profile-details", o->profile_details,
                "With --profile: also record shapes, FLOPs and memory per event");
  add_run_budget_options(cmd, o->budget);
  add_threads_option(cmd);
  cmd->add_flag("--no-fusion", o->no_fusion,
                "Run the operators as written: no batch norm folded into convolutions, no fused "
                "activations (to measure what fusion gains)");
  cmd->add_flag("--json", o->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([o, &exit_code] {
    require_at_least("--runs", o->runs, 1);
    require_at_least("--warmup", o->warmup, 0);
    require_together(o->profile_details, "--profile-details", o->profile, "--profile");
    std::vector<ops::IValue> inputs;
    for (const auto& path : o->inputs) inputs.push_back(runtime::read_input_file(path));
    auto load_start = std::chrono::steady_clock::now();
    auto model = mobile::LoadedModel::load(o->model);
    if (o->no_fusion) model.drop_fusion();
    double load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
            .count();
    runtime::Interpreter interpreter(model);
    interpreter.set_budget(to_run_budget(o->budget));
    Progress progress(o->runs);
    for (int i = 0; i < o->warmup; ++i) interpreter.run_method(o->method, inputs);
    std::vector<double> ms;
    profiler::RecordingSink events(o->profile_details ? profiler::kDetailAll : 0u);
    std::optional<profiler::ProfilingScope> scope;
    if (o->profile) scope.emplace(events);
    for (int i = 0; i < o->runs; ++i) {
      auto start = std::chrono::steady_clock::now();
      interpreter.run_method(o->method, inputs);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
      progress.update(i + 1);
    }
    scope.reset();
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) {
      return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * ms.size()))];
    };
    // The interpreter's own cost: runs with a time-only sink give, within each run, the time
    // spent inside operator calls; the rest of that run is dispatch, stack and control flow.
    // The median over runs of (run time - time in operators) / operators: both halves from the
    // same run, so the figure does not swing with the noise between runs.
    std::vector<double> overheads;
    std::size_t operators = 0;
    for (int i = 0; i < std::max(5, o->runs / 2); ++i) {
      // The code as the timed runs ran it: fused operators one event each.
      profiler::RecordingSink counted(profiler::kDetailAsRun);
      const auto start = std::chrono::steady_clock::now();
      {
        profiler::ProfilingScope counting(counted);
        interpreter.run_method(o->method, inputs);
      }
      const double run_ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
              .count();
      std::int64_t in_operators_ns = 0;
      for (const auto& e : counted.events()) in_operators_ns += e.end_ns - e.start_ns;
      operators = counted.events().size();
      if (operators > 0) {
        overheads.push_back(std::max(0.0, run_ns - static_cast<double>(in_operators_ns)) /
                            static_cast<double>(operators));
      }
    }
    std::sort(overheads.begin(), overheads.end());
    const double overhead_ns = overheads.empty() ? 0.0 : overheads[overheads.size() / 2];
    if (o->json) {
      nlohmann::json out = {{"schema_version", 1},
                            {"model", o->model},
                            {"method", o->method},
                            {"load_ms", load_ms},
                            {"warmup", o->warmup},
                            {"runs", ms.size()},
                            {"min_ms", ms.front()},
                            {"median_ms", at(0.5)},
                            {"p90_ms", at(0.9)},
                            {"peak_rss_mib", peak_rss_mib()},
                            {"threads", intra_op_threads()},
                            {"operators_per_run", operators},
                            {"overhead_ns_per_operator", overhead_ns},
                            {"profile", o->profile_details ? "details"
                                        : o->profile       ? "time"
                                                           : "off"}};
      std::cout << json_text(out, 2) << "\n";
      exit_code = kExitOk;
      return;
    }
    fmt::print(
        "{} {}: load {:.2f} ms; {} runs: min {:.3f} ms, median {:.3f} ms, p90 {:.3f} ms; "
        "peak RSS {:.1f} MiB; {} thread{}; {} operators per run, {:.0f} ns of interpreter per "
        "operator\n",
        o->model, o->method, load_ms, ms.size(), ms.front(), at(0.5), at(0.9), peak_rss_mib(),
        intra_op_threads(), intra_op_threads() == 1 ? "" : "s", operators, overhead_ns);
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
