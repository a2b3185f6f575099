#include "symbolite/cli/profile_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/cli/exit_codes.h"
#include "symbolite/cli/options.h"
#include "symbolite/cli/run_budget_options.h"
#include "symbolite/cli/threads_option.h"
#include "symbolite/mobile/attach_sidecar.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/profiler/chrome_trace.h"
#include "symbolite/profiler/flame_graph.h"
#include "symbolite/profiler/module_table.h"
#include "symbolite/profiler/op_table.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/support/error.h"
#include "symbolite/support/json_text.h"
#include "symbolite/support/output_files.h"

namespace symbolite::cli {
namespace {

struct ProfileOptions {
  RunBudgetOptions budget;
  std::string model;
  std::string method = "forward";
  std::string sidecar;  // --debug
  std::vector<std::string> inputs;
  int runs = 1;
  int warmup = 1;
  std::string by = "op";
  std::string trace;
  std::string folded;
  std::string svg;
  std::string report;
  std::string sort = "total";
  std::string group_by = "overload";
  bool shapes = false;
  bool flops = false;
  bool memory = false;
  bool as_run = false;
  bool json = false;

  std::uint32_t details() const {
    return (shapes ? profiler::kDetailShapes : 0u) | (flops ? profiler::kDetailFlops : 0u) |
           (memory ? profiler::kDetailMemory : 0u) | (as_run ? profiler::kDetailAsRun : 0u);
  }
};

// Option combinations that mean nothing are usage errors naming both options.
void validate(const ProfileOptions& o) {
  require_at_least("--runs", o.runs, 1);
  require_at_least("--warmup", o.warmup, 0);
  require_together(o.sort == "flops", "--sort flops", o.flops, "--flops");
  require_together(o.sort == "memory", "--sort memory", o.memory, "--memory");
  if (is_stdout(o.trace) && is_stdout(o.folded)) {
    throw Error(ErrorKind::kUsage, "--trace - and --folded - cannot both write to stdout");
  }
  check_output_parent(o.trace.empty() ? "-" : o.trace);
  check_output_parent(o.folded.empty() ? "-" : o.folded);
  check_output_parent(o.svg.empty() ? "-" : o.svg);
  check_output_parent(o.report.empty() ? "-" : o.report);
  if (is_stdout(o.svg) || is_stdout(o.report)) {
    throw Error(ErrorKind::kUsage, "--svg and --report write files; name one (- is not allowed)");
  }
  std::vector<NamedPath> outputs;
  if (!o.trace.empty()) outputs.push_back({"--trace", o.trace});
  if (!o.folded.empty()) outputs.push_back({"--folded", o.folded});
  if (!o.svg.empty()) outputs.push_back({"--svg", o.svg});
  if (!o.report.empty()) outputs.push_back({"--report", o.report});
  std::vector<NamedPath> inputs{{"MODEL", o.model}};
  if (!o.sidecar.empty()) inputs.push_back({"--debug", o.sidecar});
  for (const auto& input : o.inputs) inputs.push_back({"--input", input});
  refuse_overlapping_outputs(outputs, inputs);
}

// A file output, or stdout for "-", which is printed at once (it is the command's output).
void write_text(OutputFiles& files, const std::string& path, const std::string& text) {
  if (is_stdout(path)) {
    write_output_text(path, text);
  } else {
    files.stage(path, text);
  }
}

}  // namespace

void add_profile_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ProfileOptions>();
  auto* cmd = app.add_subcommand("profile", "Profile a model run, attributed to its modules");
  cmd->add_option("model", o->model, "Model (.ptl)")->required();
  cmd->add_option("--method", o->method, "Method of the top module (default: forward)");
  cmd->add_option("--input", o->inputs, "Inputs in order: .npy tensors or .json values");
  cmd->add_option("--runs", o->runs, "Profiled runs, at least 1 (default 1)")
      ->check(whole_number());
  cmd->add_option("--warmup", o->warmup, "Unprofiled runs first, at least 0 (default 1)")
      ->check(whole_number());
  cmd->add_option("--by", o->by, "Table: op or module (default op)")
      ->check(CLI::IsMember({"op", "module"}));
  cmd->add_option("--trace", o->trace,
                  "Write a Chrome trace (Perfetto, chrome://tracing); - for stdout");
  cmd->add_option("--folded", o->folded, "Write folded stacks for flame-graph tools; - for stdout");
  cmd->add_option("--svg", o->svg, "Write a flame graph (SVG: module hierarchy, then operator)");
  cmd->add_option(
      "--report", o->report,
      "Write a self-contained HTML report: flame graph, module tree, sortable operator table");
  cmd->add_option(
         "--group-by", o->group_by,
         "Operator table rows: overload (aten::add.Tensor, default) or name (aten::add, as "
         "torch.profiler names operators)")
      ->check(CLI::IsMember({"overload", "name"}));
  cmd->add_option("--sort", o->sort,
                  "Operator table order: total, self, count, name, flops, "
                  "memory (default total)")
      ->check([](const std::string& key) {
        return profiler::op_sort_from_name(key) ? std::string() : "unknown sort key '" + key + "'";
      });
  cmd->add_flag("--shapes", o->shapes,
                "Record input and output shapes and dtypes (the operator table gets a row "
                "per operator and input shapes)");
  cmd->add_flag("--flops", o->flops,
                "Count floating-point operations (conv, linear, matmul, "
                "mm, addmm, bmm, elementwise add/sub/mul/div)");
  cmd->add_flag("--memory", o->memory, "Record tensor bytes allocated and freed per operator");
  cmd->add_flag("--as-run", o->as_run,
                "Profile the code as run and bench run it: a convolution or batch norm with the "
                "batch norm and activation fused into it is one operator "
                "(aten::conv2d+aten::batch_norm+aten::relu_). Default: every operator of the "
                "file on its own");
  cmd->add_option(
      "--debug", o->sidecar,
      "Sidecar of a stripped model (made by `symbolite split`): failures and profiles get "
      "module hierarchies and tracebacks");
  add_run_budget_options(cmd, o->budget);
  add_threads_option(cmd);
  cmd->add_flag("--json", o->json, "Print the tables as JSON");
  cmd->callback([o, &exit_code] {
    validate(*o);
    std::vector<ops::IValue> inputs;
    for (const auto& path : o->inputs) inputs.push_back(runtime::read_input_file(path));
    auto model = mobile::LoadedModel::load(o->model);
    if (!o->sidecar.empty()) mobile::attach_sidecar(model, o->sidecar);
    runtime::Interpreter interpreter(model);
    interpreter.set_budget(to_run_budget(o->budget));
    for (int i = 0; i < o->warmup; ++i) interpreter.run_method(o->method, inputs);
    profiler::RecordingSink events(o->details());
    profiler::TraceOptions trace_options;
    {
      profiler::ProfilingScope scope(events);
      for (int i = 0; i < o->runs; ++i) {
        trace_options.run_starts.push_back(events.events().size());
        interpreter.run_method(o->method, inputs);
      }
    }
    std::optional<debuginfo::Symbolicator> symbolicator;
    if (model.debug) symbolicator.emplace(model.debug);
    profiler::Attributor attributor(symbolicator ? &*symbolicator : nullptr, model.top_type);

    // Each view of the events is computed once, for every output that shows it.
    const bool by_name = o->group_by == "name";
    auto ops = profiler::op_table(events.events(),
                                  {*profiler::op_sort_from_name(o->sort), o->shapes, by_name});
    auto modules = profiler::module_tree(events.events(), attributor);
    std::string folded;
    if (!o->folded.empty() || !o->svg.empty() || !o->report.empty()) {
      folded = profiler::folded_stacks(events.events(), attributor);
    }
    const std::string title =
        fmt::format("{} {}, {} run{}", std::filesystem::path(o->model).filename().string(),
                    o->method, o->runs, o->runs == 1 ? "" : "s");

    OutputFiles files;  // every file output lands together or not at all
    if (!o->trace.empty()) {
      trace_options.process_name = "symbolite profile " + title;
      write_text(files, o->trace,
                 json_text(profiler::chrome_trace(events.events(), attributor, trace_options), -1));
    }
    if (!o->folded.empty()) write_text(files, o->folded, folded);
    if (!o->svg.empty()) files.stage(o->svg, profiler::flame_graph_svg(folded, title));
    if (!o->report.empty()) {
      // The report's table is one row per operator, whatever --shapes grouped the printed one by.
      profiler::ReportInputs report{
          title, folded, modules.get(),
          o->shapes ? profiler::op_table(events.events(),
                                         {*profiler::op_sort_from_name(o->sort), false, by_name})
                    : ops,
          profiler::hottest_sources(events.events(), attributor)};
      files.stage(o->report, profiler::profile_report_html(report));
    }
    files.commit();
    if (is_stdout(o->trace) || is_stdout(o->folded)) {
      // stdout holds the trace or the stacks alone.
    } else if (o->json) {
      nlohmann::json out = {{"schema_version", 1},
                            {"model", o->model},
                            {"method", o->method},
                            {"runs", o->runs},
                            {"events", events.events().size()},
                            {"operators", profiler::op_table_json(ops, o->details())},
                            {"modules", profiler::module_tree_json(*modules, o->details())}};
      std::cout << json_text(out, 2) << "\n";
    } else if (o->by == "module") {
      fmt::print("{}", profiler::render_module_tree(*modules, o->details()));
    } else {
      fmt::print("{}", profiler::render_op_table(ops, o->details()));
    }
    if (!model.debug) {
      fmt::print(stderr,
                 "note: {} carries no call stacks; every operator is attributed to "
                 "the top module\n",
                 o->model);
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
