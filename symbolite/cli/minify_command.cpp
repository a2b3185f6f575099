#include "symbolite/cli/minify_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/backend_choice.h"
#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/options.h"
#include "symbolite/compiler/lowering/lowering.h"
#include "symbolite/compiler/lowering/node_isolation.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_writer.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/delta_debugging.h"
#include "symbolite/support/error.h"
#include "symbolite/support/json_text.h"
#include "symbolite/support/output_files.h"

namespace symbolite::cli {
namespace {

struct MinifyOptions {
  std::string model;
  std::string backend;
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::vector<double> accuracy = {1e-4, 1e-4};
  std::string output_dir = "minify-out";
  std::size_t max_tests = 500;
  bool json = false;
};

// What one lowering did on the inputs.
struct Outcome {
  std::string kind;  // "ok", "lowering_error", "compile_error", "runtime_error", "accuracy_error"
  std::string message;
  // Accuracy errors compare by kind: the isolated node's outputs are not the model's.
  bool same_failure_as(const Outcome& o) const {
    return kind == o.kind && (kind == "accuracy_error" || message == o.message);
  }
};

// A model, the inputs a trial runs it on, and its unlowered outputs on them.
struct Subject {
  std::string model;
  std::vector<ops::IValue> inputs;
  std::vector<tensor::Tensor> reference;
};

// The graph-level step: the culprit node alone, on the values it received in the real run.
struct GraphStep {
  bool reduced = false;
  std::string note;  // why the graph was not reduced
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  std::vector<std::uint8_t> reproducer;  // the isolated model, lowered
  std::vector<std::string> input_files;
};

// `inputs` with tensors of their own: a model may write its inputs in place (an isolated relu_
// does), and every trial must start from the same values.
std::vector<ops::IValue> fresh(const std::vector<ops::IValue>& inputs) {
  std::vector<ops::IValue> out;
  out.reserve(inputs.size());
  for (const auto& v : inputs)
    out.push_back(v.is(ops::IValue::Kind::kTensor) ? ops::IValue(v.to_tensor().copy()) : v);
  return out;
}

std::vector<tensor::Tensor> run_unlowered(const mobile::LoadedModel& model,
                                          const std::string& method,
                                          const std::vector<ops::IValue>& inputs) {
  runtime::Interpreter interpreter(model);
  return runtime::result_tensors(interpreter.run_method(method, fresh(inputs)));
}

mobile::LoadedModel load_bytes(std::vector<std::uint8_t> bytes, const std::string& name) {
  return mobile::LoadedModel::load_bytes(Bytes::from_vector(std::move(bytes)), name);
}

class Minifier {
 public:
  explicit Minifier(const MinifyOptions& o) : o_(o), support_(backend_support(o.backend)) {
    subject_.model = o.model;
    for (const auto& path : o.inputs) subject_.inputs.push_back(runtime::read_input_file(path));
    try {
      subject_.reference =
          run_unlowered(mobile::LoadedModel::load(o.model), o.method, subject_.inputs);
    } catch (const runtime::RunError& e) {
      throw Error(
          ErrorKind::kUsage,
          fmt::format("{} fails without lowering ({}): minify looks for faults of a lowering, "
                      "so give inputs the model runs on",
                      o.model, e.details().message));
    }
  }

  compiler::LoweringOptions lowering_options(
      const std::optional<std::vector<std::size_t>>& only) const {
    compiler::LoweringOptions lowering;
    lowering.backend = o_.backend;
    lowering.method = o_.method;
    lowering.only_candidates = only;
    return lowering;
  }

  compiler::LoweredModelBytes lower(const std::optional<std::vector<std::size_t>>& only) const {
    return compiler::lower_model_bytes(o_.model, *support_, lowering_options(only));
  }

  Outcome outcome(const std::optional<std::vector<std::size_t>>& only) const {
    return outcome(subject_, only);
  }

  // Cuts the model down to `culprit` alone (compiler/lowering/node_isolation.h), fed what it
  // received in the real run, and keeps that when its lowering still fails as `failure` did.
  // Writes the isolated model and its inputs into `dir`.
  GraphStep isolate(std::size_t culprit, const Outcome& failure,
                    const std::filesystem::path& dir) const {
    GraphStep step;
    compiler::IsolatedNode cut;
    try {
      cut =
          compiler::isolate_candidate(o_.model, *support_, lowering_options(std::nullopt), culprit);
    } catch (const Error& e) {
      step.note = e.message();
      return step;
    }
    step.nodes_before = cut.nodes_before;
    step.nodes_after = cut.nodes_after;
    Subject isolated;
    isolated.model = (dir / "isolated.ptl").string();
    try {
      auto probe_model = load_bytes(std::move(cut.probe), "probe");
      runtime::Interpreter probe(probe_model);
      ops::IValue captured = probe.run_method(o_.method, fresh(subject_.inputs));
      isolated.inputs =
          cut.input_types.size() == 1 ? std::vector<ops::IValue>{captured} : captured.to_tuple();
      write_file_atomically(isolated.model, cut.isolated);
      isolated.reference =
          run_unlowered(mobile::LoadedModel::load(isolated.model), o_.method, isolated.inputs);
      for (std::size_t i = 0; i < isolated.inputs.size(); ++i) {
        step.input_files.push_back(runtime::write_input_file(
            (dir / fmt::format("input_{}", i)).string(), isolated.inputs[i]));
      }
    } catch (const runtime::RunError& e) {
      step.note = "the node alone does not run unlowered: " + e.details().message;
    } catch (const Error& e) {
      step.note = e.message();
    }
    if (step.note.empty()) {
      Outcome alone = outcome(isolated, std::nullopt);
      if (alone.same_failure_as(failure)) {
        step.reduced = true;
        step.reproducer =
            compiler::lower_model_bytes(isolated.model, *support_, lowering_options(std::nullopt))
                .bytes;
        return step;
      }
      step.note = fmt::format("the node alone gives {}{}", alone.kind,
                              alone.message.empty() ? "" : ": " + alone.message);
    }
    std::filesystem::remove(isolated.model);
    for (const auto& f : step.input_files) std::filesystem::remove(f);
    step.input_files.clear();
    return step;
  }

 private:
  Outcome outcome(const Subject& subject,
                  const std::optional<std::vector<std::size_t>>& only) const {
    compiler::LoweredModelBytes lowered;
    try {
      lowered = compiler::lower_model_bytes(subject.model, *support_, lowering_options(only));
    } catch (const Error& e) {
      return {"lowering_error", e.message()};
    }
    auto model = load_bytes(std::move(lowered.bytes), "lowered");
    std::optional<runtime::Interpreter> interpreter;
    try {
      interpreter.emplace(model);
    } catch (const runtime::RunError& e) {
      return {"compile_error", e.details().message};
    }
    std::vector<tensor::Tensor> outputs;
    try {
      outputs = runtime::result_tensors(interpreter->run_method(o_.method, fresh(subject.inputs)));
    } catch (const runtime::RunError& e) {
      return {"runtime_error", e.details().message};
    }
    if (auto why = differs(outputs, subject.reference)) return {"accuracy_error", *why};
    return {"ok", ""};
  }

  // Why `outputs` are not `reference` within tolerance, or nullopt.
  std::optional<std::string> differs(const std::vector<tensor::Tensor>& outputs,
                                     const std::vector<tensor::Tensor>& reference) const {
    if (outputs.size() != reference.size()) {
      return fmt::format("{} outputs instead of {}", outputs.size(), reference.size());
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const auto& got = outputs[i];
      const auto& want = reference[i];
      if (got.sizes() != want.sizes() || got.dtype() != want.dtype()) {
        return fmt::format("output {} has another shape or dtype", i);
      }
      if (want.dtype() != tensor::DType::kFloat32) continue;
      auto g = got.contiguous();
      auto w = want.contiguous();
      // ATOL is relative to the output's largest |value|: with random weights, deep nets
      // reach 1e12 and others stay near 1e-10, where a fixed atol says nothing.
      double largest = 0;
      for (std::int64_t k = 0; k < w.numel(); ++k)
        largest = std::max(largest, std::abs(double{w.data<float>()[k]}));
      for (std::int64_t k = 0; k < w.numel(); ++k) {
        double a = g.data<float>()[k], b = w.data<float>()[k];
        if (std::isnan(a) && std::isnan(b)) continue;
        if (!(std::abs(a - b) <= o_.accuracy[1] * largest + o_.accuracy[0] * std::abs(b))) {
          return fmt::format("output {} differs beyond rtol {} atol {}", i, o_.accuracy[0],
                             o_.accuracy[1]);
        }
      }
    }
    return std::nullopt;
  }

  const MinifyOptions& o_;
  std::unique_ptr<compiler::BackendSupport> support_;
  Subject subject_;
};

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" '\"\\$`") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void add_minify_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<MinifyOptions>();
  auto* cmd = app.add_subcommand(
      "minify", "Shrink a failing lowering to the node at fault, with a reproducer");
  cmd->add_option("model", options->model, "Model (.ptl)")->required();
  cmd->add_option("--backend", options->backend, "Delegate backend (as for lower)")->required();
  cmd->add_option("--input", options->inputs, "Inputs in order: .npy tensors or .json values")
      ->required();
  cmd->add_option("--method", options->method, "Method of the top module (default: forward)");
  cmd->add_option("--accuracy", options->accuracy,
                  "Tolerance against the unlowered run: RTOL,ATOL, ATOL relative to the output's "
                  "largest |value| (default 1e-4,1e-4)")
      ->delimiter(',')
      ->expected(2);
  cmd->add_option("-o,--output-dir", options->output_dir,
                  "Where to write the reproducer (default minify-out)");
  cmd->add_option("--max-tests", options->max_tests,
                  "Stop after this many trial lowerings (default 500)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    prepare_output_dir(options->output_dir);
    Minifier minifier(*options);
    const std::size_t candidates = minifier.lower(std::nullopt).report.candidates.size();
    Outcome failure = minifier.outcome(std::nullopt);
    if (failure.kind == "ok") {
      if (options->json) {
        std::cout << json_text(nlohmann::json({{"schema_version", 1},
                                               {"model", options->model},
                                               {"backend", options->backend},
                                               {"failure", nullptr},
                                               {"candidates", candidates}}))
                  << "\n";
      } else {
        fmt::print(
            "the lowering to {} runs and matches the unlowered run within tolerance: nothing to "
            "minify\n",
            options->backend);
      }
      exit_code = kExitOk;
      return;
    }
    const bool tty = ::isatty(STDERR_FILENO) != 0 && !options->json;
    std::vector<std::size_t> all(candidates);
    std::iota(all.begin(), all.end(), std::size_t{0});
    std::size_t step = 0;
    auto result = delta_debug(
        all,
        [&](const std::vector<std::size_t>& subset) {
          ++step;
          if (tty)
            fmt::print(stderr, "\rminify: trial {}, {} of {} nodes delegated   ", step,
                       subset.size(), candidates);
          return minifier.outcome(subset).same_failure_as(failure);
        },
        options->max_tests);
    if (tty) fmt::print(stderr, "\n");

    // The reproducer: the culprit alone when that still fails the same way, else the whole
    // model lowered with just the culprit nodes; its inputs; the command.
    auto minimal = minifier.lower(result.items);
    namespace fs = std::filesystem;
    const fs::path dir(options->output_dir);
    GraphStep graph;
    if (result.items.size() == 1) {
      graph = minifier.isolate(result.items.front(), failure, dir);
    } else {
      graph.note = fmt::format("{} nodes fail only together", result.items.size());
    }
    const std::string reproducer = (dir / "reproducer.ptl").string();
    write_file_atomically(reproducer, graph.reduced ? graph.reproducer : minimal.bytes);
    std::string command =
        "symbolite run " + shell_quote(reproducer) + " --method " + options->method + " --input";
    if (graph.reduced) {
      for (const auto& f : graph.input_files) command += " " + shell_quote(f);
    } else {
      for (std::size_t i = 0; i < options->inputs.size(); ++i) {
        fs::path source(options->inputs[i]);
        fs::path copy = dir / fmt::format("input_{}{}", i, source.extension().string());
        fs::copy_file(source, copy, fs::copy_options::overwrite_existing);
        command += " " + shell_quote(copy.string());
      }
    }
    write_file_atomically((dir / "command.txt").string(), command + "\n");

    const auto& report = minimal.report;
    if (options->json) {
      nlohmann::json culprits = nlohmann::json::array();
      for (auto i : result.items) {
        const auto& c = report.candidates.at(i);
        culprits.push_back(
            {{"node", c.node}, {"module_hierarchy", c.module_hierarchy}, {"source", c.source}});
      }
      nlohmann::json out = {{"schema_version", 1},
                            {"model", options->model},
                            {"backend", options->backend},
                            {"failure", {{"kind", failure.kind}, {"message", failure.message}}},
                            {"candidates", candidates},
                            {"culprits", culprits},
                            {"tests", result.tests},
                            {"complete", result.complete},
                            {"graph",
                             {{"reduced", graph.reduced},
                              {"nodes_before", graph.nodes_before},
                              {"nodes_after", graph.nodes_after},
                              {"note", graph.note}}},
                            {"reproducer", reproducer},
                            {"command", command}};
      std::cout << json_text(out) << "\n";
    } else {
      fmt::print("{} with {}: {}\n", failure.kind, options->backend, failure.message);
      fmt::print("{} of {} delegated nodes still fail{} ({} trial lowerings):\n",
                 result.items.size(), candidates,
                 result.complete ? "" : " (stopped at --max-tests)", result.tests);
      for (auto i : result.items) {
        const auto& c = report.candidates.at(i);
        fmt::print("  {}{}\n    {}\n", c.node, c.source.empty() ? "" : " at " + c.source,
                   c.module_hierarchy);
      }
      if (graph.reduced) {
        fmt::print(
            "the node alone fails the same way: a graph of {} node{} instead of {} (isolated.ptl: "
            "unlowered)\n",
            graph.nodes_after, graph.nodes_after == 1 ? "" : "s", graph.nodes_before);
      } else {
        fmt::print("the model stays whole: {}\n", graph.note);
      }
      fmt::print("reproducer: {}\n  {}\n", reproducer, command);
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
