// libsymbolite_torch.so: a PyTorch 1.13 to_backend backend named "symbolite".
//
// Load it into Python with torch.ops.load_library(path); then
// torch._C._jit_to_backend("symbolite", scripted, {"forward": {}}) lowers a module.
//
// preprocess (ahead of time, in the lowering process): inlines each method named in the
// compile spec, gives every node a debug handle through PyTorch's BackendDebugInfoRecorder
// (the generator it passes in), and writes one "symbolite delegate payload v1" text per method
// (docs/FORMATS.md). compile (at load) parses and checks each payload. execute runs the ops;
// an op that fails raises c10::BackendRuntimeException carrying that op's debug handle, which
// the lite interpreter turns into the composed module hierarchy.
//
// Supported: tensor inputs, one tensor output, aten::add / aten::sub (Tensor, Tensor, alpha),
// aten::mul, aten::matmul, aten::relu, aten::tanh. Anything else is rejected by preprocess.
#include <torch/csrc/jit/backends/backend.h>
#include <torch/csrc/jit/backends/backend_detail.h>
#include <torch/csrc/jit/backends/backend_exception.h>
#include <torch/csrc/jit/backends/backend_preprocess.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <ATen/ATen.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace symbolite_torch {
namespace {

constexpr const char* kBackendName = "symbolite";
constexpr const char* kMagic = "symbolite-delegate-payload 1";

// One parsed payload line.
struct Step {
  enum Kind { kConst, kOp } kind = kOp;
  int64_t out = 0;             // value number defined
  std::string op;              // kOp: operator name; kConst: "int" / "float"
  int64_t handle = -1;         // kOp: debug handle
  std::vector<int64_t> args;   // kOp: value numbers
  double number = 0;           // kConst
};

struct Program {
  int64_t inputs = 0;
  std::vector<Step> steps;
  int64_t output = -1;
};

const std::map<std::string, size_t>& supported_ops() {
  static const std::map<std::string, size_t> ops = {
      {"aten::add", 3}, {"aten::sub", 3}, {"aten::mul", 2},
      {"aten::matmul", 2}, {"aten::relu", 1}, {"aten::tanh", 1}};
  return ops;
}

std::string payload_for(const torch::jit::Module& mod, const std::string& method,
                        const torch::jit::BackendDebugHandleGenerator& generate) {
  auto graph = mod.get_method(method).graph()->copy();
  torch::jit::Inline(*graph);
  torch::jit::EliminateDeadCode(graph);
  auto handles = generate(graph);

  std::map<const torch::jit::Value*, int64_t> number;
  std::ostringstream out;
  out << kMagic << "\n";
  auto inputs = graph->inputs();
  TORCH_CHECK(!inputs.empty(), "symbolite backend: ", method, " has no self input");
  out << "inputs " << inputs.size() - 1 << "\n";
  int64_t next = 0;
  for (size_t i = 1; i < inputs.size(); ++i) {
    TORCH_CHECK(inputs[i]->type()->kind() == c10::TypeKind::TensorType,
                "symbolite backend: input ", i, " of ", method, " is not a Tensor");
    number[inputs[i]] = next++;
  }
  for (auto* node : graph->nodes()) {
    const auto kind = node->kind();
    if (kind == c10::prim::GetAttr && !node->output()->hasUses()) continue;
    if (kind == c10::prim::Constant) {
      if (!node->output()->hasUses()) continue;
      auto value = torch::jit::toIValue(node->output());
      TORCH_CHECK(value && (value->isInt() || value->isDouble()),
                  "symbolite backend: unsupported constant ", *node);
      number[node->output()] = next;
      out << "const " << next++ << (value->isInt() ? " int " : " float ");
      if (value->isInt()) {
        out << value->toInt();
      } else {
        out.precision(17);
        out << value->toDouble();
      }
      out << "\n";
      continue;
    }
    const std::string name = kind.toQualString();
    auto it = supported_ops().find(name);
    TORCH_CHECK(it != supported_ops().end() && node->inputs().size() == it->second &&
                    node->outputs().size() == 1,
                "symbolite backend: unsupported node ", *node);
    auto handle = handles.find(node);
    TORCH_CHECK(handle != handles.end(), "symbolite backend: no debug handle for ", *node);
    number[node->output()] = next;
    out << "op " << next++ << " " << name << " " << handle->second;
    for (auto* input : node->inputs()) {
      auto arg = number.find(input);
      TORCH_CHECK(arg != number.end(), "symbolite backend: unsupported input of ", *node);
      out << " " << arg->second;
    }
    out << "\n";
  }
  auto* result = graph->outputs().at(0);
  TORCH_CHECK(graph->outputs().size() == 1 && number.count(result),
              "symbolite backend: ", method, " must return one computed Tensor");
  out << "output " << number[result] << "\n";
  return out.str();
}

c10::IValue preprocess(const torch::jit::Module& mod,
                       const c10::Dict<c10::IValue, c10::IValue>& method_compile_spec,
                       const torch::jit::BackendDebugHandleGenerator& generate) {
  c10::Dict<std::string, std::string> processed;
  for (const auto& entry : method_compile_spec) {
    const auto method = entry.key().toStringRef();
    processed.insert(method, payload_for(mod, method, generate));
  }
  return processed;
}

Program parse(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  Program program;
  TORCH_CHECK(std::getline(in, line) && line == kMagic, "symbolite payload: bad header '", line,
              "'");
  int64_t defined = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "inputs") {
      words >> program.inputs;
      defined = program.inputs;
    } else if (word == "const") {
      Step step;
      step.kind = Step::kConst;
      words >> step.out >> step.op >> step.number;
      TORCH_CHECK(step.out == defined++, "symbolite payload: bad line '", line, "'");
      program.steps.push_back(step);
    } else if (word == "op") {
      Step step;
      words >> step.out >> step.op >> step.handle;
      int64_t arg = 0;
      while (words >> arg) {
        TORCH_CHECK(arg >= 0 && arg < defined, "symbolite payload: bad operand in '", line, "'");
        step.args.push_back(arg);
      }
      auto it = supported_ops().find(step.op);
      TORCH_CHECK(step.out == defined++ && it != supported_ops().end() &&
                      step.args.size() == it->second,
                  "symbolite payload: bad line '", line, "'");
      program.steps.push_back(step);
    } else if (word == "output") {
      words >> program.output;
    } else {
      TORCH_CHECK(false, "symbolite payload: bad line '", line, "'");
    }
  }
  TORCH_CHECK(program.output >= 0 && program.output < defined, "symbolite payload: no output");
  return program;
}

at::Tensor run_op(const Step& step, const std::vector<c10::IValue>& values) {
  auto t = [&](size_t i) { return values[step.args[i]].toTensor(); };
  if (step.op == "aten::add") return at::add(t(0), t(1), values[step.args[2]].toScalar());
  if (step.op == "aten::sub") return at::sub(t(0), t(1), values[step.args[2]].toScalar());
  if (step.op == "aten::mul") return at::mul(t(0), t(1));
  if (step.op == "aten::matmul") return at::matmul(t(0), t(1));
  if (step.op == "aten::relu") return at::relu(t(0));
  return at::tanh(t(0));  // parse() admits only supported_ops()
}

class SymboliteBackend : public torch::jit::PyTorchBackendInterface {
 public:
  bool is_available() override { return true; }

  c10::impl::GenericDict compile(c10::IValue processed,
                                 c10::impl::GenericDict /*method_compile_spec*/) override {
    auto handles = c10::Dict<std::string, std::string>();
    for (const auto& entry : processed.toGenericDict()) {
      parse(entry.value().toStringRef());  // rejects a bad payload at load
      handles.insert(entry.key().toStringRef(), entry.value().toStringRef());
    }
    return c10::impl::toGenericDict(handles);
  }

  c10::impl::GenericList execute(c10::IValue handle, c10::impl::GenericList inputs) override {
    const Program program = parse(handle.toStringRef());
    TORCH_CHECK(static_cast<int64_t>(inputs.size()) == program.inputs, "symbolite backend: ",
                inputs.size(), " inputs given, ", program.inputs, " expected");
    std::vector<c10::IValue> values;
    for (const auto& input : inputs) values.emplace_back(input);
    for (const auto& step : program.steps) {
      if (step.kind == Step::kConst) {
        if (step.op == "int") {
          values.emplace_back(static_cast<int64_t>(step.number));
        } else {
          values.emplace_back(step.number);
        }
        continue;
      }
      try {
        values.emplace_back(run_op(step, values));
      } catch (const c10::Error& e) {
        TORCH_DELEGATED_BACKEND_THROW(false, e.what_without_backtrace(), step.handle);
      }
    }
    c10::List<at::Tensor> outputs;
    outputs.push_back(values[program.output].toTensor());
    return c10::impl::toList(outputs);
  }
};

const auto backend = torch::jit::backend<SymboliteBackend>(kBackendName);
const auto preprocess_registration = torch::jit::backend_preprocess_register(kBackendName, preprocess);

}  // namespace
}  // namespace symbolite_torch
