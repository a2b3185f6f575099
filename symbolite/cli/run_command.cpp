#include "symbolite/cli/run_command.h"

#include <filesystem>
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
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"
#include "symbolite/support/error.h"
#include "symbolite/support/json_text.h"
#include "symbolite/support/output_files.h"
#include "symbolite/tensor/npy.h"

namespace symbolite::cli {
namespace {

struct RunOptions {
  RunBudgetOptions budget;
  std::string model;
  std::string method = "forward";
  std::string sidecar;  // --debug
  std::vector<std::string> inputs;
  std::string output_dir;
  bool no_fusion = false;
  bool json = false;
};

std::string summary(const tensor::Tensor& t) {
  auto c = t.contiguous();
  std::string values;
  std::int64_t shown = std::min<std::int64_t>(c.numel(), 6);
  for (std::int64_t i = 0; i < shown; ++i) {
    if (i) values += ", ";
    switch (c.dtype()) {
      case tensor::DType::kFloat32:
        values += fmt::format("{:.6g}", c.data<float>()[i]);
        break;
      case tensor::DType::kFloat64:
        values += fmt::format("{:.6g}", c.data<double>()[i]);
        break;
      case tensor::DType::kInt64:
        values += fmt::format("{}", c.data<std::int64_t>()[i]);
        break;
      case tensor::DType::kInt32:
        values += fmt::format("{}", c.data<std::int32_t>()[i]);
        break;
      case tensor::DType::kUInt8:
        values += fmt::format("{}", c.data<std::uint8_t>()[i]);
        break;
      case tensor::DType::kBool:
        values += c.data<bool>()[i] ? "True" : "False";
        break;
      default:
        values += "?";
        break;
    }
  }
  if (c.numel() > shown) values += ", ...";
  return fmt::format("{} {} [{}]", tensor::torch_name(t.dtype()), tensor::format_sizes(t.sizes()),
                     values);
}

// A tensor, or tuples and lists of them: what output_<i> lines say in full.
bool only_tensors(const ops::IValue& v) {
  using K = ops::IValue::Kind;
  if (v.is(K::kTensor)) return true;
  if (!v.is(K::kTuple) && !v.is(K::kList)) return false;
  for (const auto& item : v.is(K::kTuple) ? v.to_tuple() : v.to_list()) {
    if (!only_tensors(item)) return false;
  }
  return true;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run a model on the lite-interpreter runtime");
  cmd->add_option("model", options->model, "Model (.ptl)")->required();
  cmd->add_option("--method", options->method, "Method of the top module (default: forward)");
  cmd->add_option(
      "--input", options->inputs,
      "Inputs in order: .npy tensors or .json values (dicts, tuples, lists; docs/CLI.md)");
  cmd->add_option("--output-dir", options->output_dir,
                  "Write the result here: tensors as output_<i>.npy, its structure as result.json "
                  "(created if missing; its parent must exist)");
  cmd->add_option("--debug", options->sidecar,
                  "Sidecar of a stripped model (made by `symbolite split`): failures get "
                  "module hierarchies and tracebacks");
  add_run_budget_options(cmd, options->budget);
  add_threads_option(cmd);
  cmd->add_flag("--no-fusion", options->no_fusion,
                "Run the operators as written: no batch norm folded into convolutions, no fused "
                "activations (the results are the same)");
  cmd->add_flag("--json", options->json, "Print JSON (schema in docs/CLI.md)");
  cmd->callback([options, &exit_code] {
    if (!options->output_dir.empty()) prepare_output_dir(options->output_dir);
    std::vector<ops::IValue> inputs;
    for (const auto& path : options->inputs) inputs.push_back(runtime::read_input_file(path));
    auto model = mobile::LoadedModel::load(options->model);
    if (options->no_fusion) model.drop_fusion();
    if (!options->sidecar.empty()) mobile::attach_sidecar(model, options->sidecar);
    runtime::Interpreter interpreter(model);
    interpreter.set_budget(to_run_budget(options->budget));
    ops::IValue result = interpreter.run_method(options->method, std::move(inputs));

    std::vector<tensor::Tensor> outputs = runtime::result_tensors(result);
    // The whole result, its tensors named output_<i>.npy: written with them under --output-dir.
    const std::string dir = options->output_dir.empty() ? std::string() : options->output_dir;
    OutputFiles files;  // every output file lands, or none does
    nlohmann::ordered_json structure =
        runtime::write_result_files(result, dir, dir.empty() ? nullptr : &files);
    if (!dir.empty()) {
      files.stage((std::filesystem::path(dir) / "result.json").string(),
                  json_text(structure, 1) + "\n");
      std::vector<NamedPath> written;
      for (auto& path : files.paths()) written.push_back({"--output-dir", std::move(path)});
      std::vector<NamedPath> read{{"MODEL", options->model}};
      if (!options->sidecar.empty()) read.push_back({"--debug", options->sidecar});
      for (const auto& input : options->inputs) read.push_back({"--input", input});
      refuse_overlapping_outputs(written, read);
      files.commit();
    }
    if (options->json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < outputs.size(); ++i) {
        nlohmann::ordered_json entry = {{"index", i},
                                        {"dtype", tensor::torch_name(outputs[i].dtype())},
                                        {"shape", outputs[i].sizes()},
                                        {"summary", summary(outputs[i])}};
        entry["file"] =
            dir.empty()
                ? nlohmann::ordered_json(nullptr)
                : nlohmann::ordered_json(
                      (std::filesystem::path(dir) / fmt::format("output_{}.npy", i)).string());
        list.push_back(std::move(entry));
      }
      nlohmann::ordered_json out = {
          {"schema_version", 1},
          {"model", options->model},
          {"method", options->method},
          {"outputs", std::move(list)},
          {"result", outputs.empty() ? nlohmann::ordered_json(result.repr())
                                     : nlohmann::ordered_json(nullptr)},
          {"structure", structure}};
      std::cout << json_text(out, 2) << "\n";
      exit_code = kExitOk;
      return;
    }
    if (outputs.empty()) {
      fmt::print("result: {}\n", result.repr());
    } else if (!only_tensors(result)) {
      fmt::print("result: {}\n", json_text(structure, -1));
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      fmt::print("output_{}: {}\n", i, summary(outputs[i]));
    }
    exit_code = kExitOk;
  });
}

}  // namespace symbolite::cli
