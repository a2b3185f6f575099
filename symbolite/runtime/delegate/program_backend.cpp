#include "symbolite/runtime/delegate/program_backend.h"

#include <fmt/format.h>

#include "symbolite/ops/registry/op_error.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/profiler/event_sink.h"
#include "symbolite/runtime/profiled_op.h"

namespace symbolite::runtime {
namespace {

using mobile::DelegateValue;

ops::IValue constant_value(const mobile::DelegateProgram& program, std::size_t id,
                           const ops::IValueList& weights) {
  using K = DelegateValue::Kind;
  const auto& v = program.values[id];
  switch (v.kind) {
    case K::kWeight:
      if (static_cast<std::size_t>(v.integer) >= weights.size()) {
        throw Error(ErrorKind::kModel,
                    fmt::format("value {} is weight {} of {}", id, v.integer, weights.size()));
      }
      return weights[static_cast<std::size_t>(v.integer)];
    case K::kInt:
      return ops::IValue(v.integer);
    case K::kFloat:
      return ops::IValue(v.number);
    case K::kBool:
      return ops::IValue(v.integer != 0);
    case K::kString:
      return ops::IValue::string(v.text);
    case K::kNone:
    case K::kInput:
    case K::kOpOutput:
    case K::kList:
      return {};
  }
  return {};
}

}  // namespace

const ops::IValue& CompiledProgram::argument(std::size_t step, std::size_t arg) const {
  static const ops::IValue none;
  const auto& args = program.steps.at(step).args;
  return arg < args.size() ? constants.at(args[arg]) : none;
}

CompiledProgram compile_program(mobile::DelegateProgram program, const ops::IValueList& weights,
                                const AcceleratorFactory& accelerate) {
  CompiledProgram compiled;
  const auto& registry = ops::default_registry();
  for (const auto& step : program.steps) {
    const ops::OperatorDef* def = registry.find(step.op);
    if (def == nullptr) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("delegate node {} (debug handle {}) calls {}, which symbolite does "
                              "not implement",
                              &step - program.steps.data(), step.handle, step.op));
    }
    std::size_t required = def->num_args - def->defaults.size();
    if (step.args.size() > def->num_args || step.args.size() < required) {
      throw Error(ErrorKind::kModel,
                  fmt::format("delegate node {} (debug handle {}): {} takes {} to {} arguments, "
                              "got {}",
                              &step - program.steps.data(), step.handle, step.op, required,
                              def->num_args, step.args.size()));
    }
    mobile::ResolvedOperator& op = compiled.operators.emplace_back();
    op.name = step.op;
    op.def = def;
    op.num_specified_args = step.args.size();
  }
  compiled.constants.resize(program.values.size());
  for (std::size_t id = 0; id < program.values.size(); ++id) {
    compiled.constants[id] = constant_value(program, id, weights);
  }
  compiled.program = std::move(program);
  compiled.accelerators.resize(compiled.program.steps.size());
  if (accelerate) {
    for (std::size_t s = 0; s < compiled.program.steps.size(); ++s) {
      compiled.accelerators[s] = accelerate(compiled, s);
    }
  }
  return compiled;
}

ops::IValueList run_program(const CompiledProgram& compiled, const ops::IValueList& inputs) {
  using K = DelegateValue::Kind;
  const auto& program = compiled.program;
  if (inputs.size() != program.num_inputs) {
    throw Error(ErrorKind::kUsage, fmt::format("the delegate takes {} inputs, got {}",
                                               program.num_inputs, inputs.size()));
  }
  std::vector<ops::IValue> values = compiled.constants;
  for (std::size_t id = 0; id < values.size(); ++id) {
    const auto& v = program.values[id];
    if (v.kind == K::kInput) values[id] = inputs[static_cast<std::size_t>(v.integer)];
  }
  // Lists (possibly nested) are built at each use: kernels may keep or change them.
  auto materialize = [&](auto& self, std::size_t id) -> ops::IValue {
    const auto& v = program.values[id];
    if (v.kind != K::kList) return values[id];
    ops::IValueList items;
    for (auto item : v.items) items.push_back(self(self, item));
    return ops::IValue::list(std::move(items));
  };
  ops::Stack stack;
  for (std::size_t s = 0; s < program.steps.size(); ++s) {
    const auto& step = program.steps[s];
    const auto& op = compiled.operators[s];
    stack.clear();
    for (auto id : step.args) stack.push_back(materialize(materialize, id));
    const auto& defaults = op.def->defaults;
    std::size_t first_default = op.def->num_args - defaults.size();
    for (std::size_t i = step.args.size(); i < op.def->num_args; ++i) {
      stack.push_back(defaults[i - first_default]);
    }
    StepAccelerator* fast = compiled.accelerators[s].get();
    auto body = [&](ops::Stack& st) {
      if (fast == nullptr || !fast->run(st)) op.def->kernel(st);
    };
    try {
      if (profiler::EventSink* sink = profiler::current_sink()) {
        run_profiled_op(op, op.def->num_args, step.handle, stack, *sink, kDelegateEventSource,
                        body);
      } else {
        body(stack);
      }
    } catch (const ops::OpError& e) {
      throw DelegateFailure(step.handle, e.python_class(), e.message());
    } catch (const DelegateFailure&) {
      throw;
    } catch (const Error& e) {
      throw DelegateFailure(
          step.handle, e.kind() == ErrorKind::kUnsupported ? "NotImplementedError" : "RuntimeError",
          e.message());
    }
    if (stack.size() != step.outputs.size()) {
      throw DelegateFailure(step.handle, "RuntimeError",
                            fmt::format("{} returned {} values; the delegate program expects {}",
                                        step.op, stack.size(), step.outputs.size()));
    }
    for (std::size_t i = 0; i < step.outputs.size(); ++i)
      values[step.outputs[i]] = std::move(stack[i]);
  }
  ops::IValueList outputs;
  for (auto id : program.outputs) outputs.push_back(materialize(materialize, id));
  return outputs;
}

CompiledProgram compile_payload(const std::string& method, const ops::IValue& payload,
                                const AcceleratorFactory& accelerate) {
  return with_context(fmt::format("lowered method '{}'", method), [&] {
    if (payload.is(ops::IValue::Kind::kString)) {
      return compile_program(mobile::parse_delegate_program(payload.to_string()), {}, accelerate);
    }
    if (!payload.is(ops::IValue::Kind::kTuple) || payload.to_tuple().size() != 2) {
      throw Error(ErrorKind::kModel,
                  fmt::format("payload is a {}, not (program, weights)", payload.kind_name()));
    }
    const auto& parts = payload.to_tuple();
    auto program = mobile::parse_delegate_program(parts[0].to_string());
    const auto& weights = parts[1].to_list();
    if (program.num_weights > weights.size()) {
      throw Error(ErrorKind::kModel, fmt::format("the program uses {} weights; the payload has {}",
                                                 program.num_weights, weights.size()));
    }
    return compile_program(std::move(program), weights, accelerate);
  });
}

ops::IValue ProgramBackend::compile(const ops::IValue& processed, const ops::IValue& /*spec*/) {
  auto handles = std::make_shared<ops::Dict>();
  for (const auto& [key, payload] : processed.to_dict().items) {
    programs_.push_back(compile_payload(key.to_string(), payload, accelerate_));
    handles->items.emplace_back(key, ops::IValue(static_cast<std::int64_t>(programs_.size() - 1)));
  }
  return ops::IValue::dict(std::move(handles));
}

ops::IValueList ProgramBackend::execute(const ops::IValue& handle, const ops::IValueList& inputs) {
  auto index = handle.to_int();
  if (index < 0 || static_cast<std::size_t>(index) >= programs_.size()) {
    throw Error(ErrorKind::kModel, fmt::format("no compiled method with handle {}", index));
  }
  return run_program(programs_[static_cast<std::size_t>(index)], inputs);
}

}  // namespace symbolite::runtime
