#include "symbolite/mobile/bytecode_verifier.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

class Verifier {
 public:
  explicit Verifier(const LoadedFunction& fn) : fn_(fn) {}

  void run() {
    for (pc_ = 0; pc_ < fn_.instructions().size(); ++pc_) check(fn_.instructions()[pc_]);
    for (pc_ = 0; pc_ < fn_.instructions().size(); ++pc_)
      check_not_endless(fn_.instructions()[pc_]);
  }

 private:
  [[noreturn]] void fail(const Instruction& ins, const std::string& what) const {
    throw Error(ErrorKind::kModel,
                fmt::format("verifier: {}: instruction {} ({} {} {}): {}", fn_.qualified_name(),
                            pc_, opcode_name(ins.op), ins.x, ins.n, what));
  }

  [[noreturn]] void unsupported(const Instruction& ins, const std::string& what) const {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{}: instruction {} ({} {} {}): {}", fn_.qualified_name(), pc_,
                            opcode_name(ins.op), ins.x, ins.n, what));
  }

  void need_register(const Instruction& ins, std::int64_t r) const {
    if (r < 1 || static_cast<std::uint64_t>(r) > fn_.register_size) {
      fail(ins, fmt::format("register {} out of range (register_size {})", r, fn_.register_size));
    }
  }
  void need_index(const Instruction& ins, std::int64_t i, std::size_t size,
                  const char* what) const {
    if (i < 0 || static_cast<std::uint64_t>(i) >= size) {
      fail(ins, fmt::format("{} index {} out of range ({} {}s)", what, i, size, what));
    }
  }
  void need_count(const Instruction& ins, std::int64_t n) const {
    if (n < 0) fail(ins, fmt::format("negative count {}", n));
  }
  void need_target(const Instruction& ins, std::int64_t offset) const {
    std::int64_t target = static_cast<std::int64_t>(pc_) + offset;
    if (target < 0 || target >= static_cast<std::int64_t>(fn_.instructions().size())) {
      fail(ins, fmt::format("jump target {} outside the function ({} instructions)", target,
                            fn_.instructions().size()));
    }
  }

  // A JMP that reaches itself through JMPs alone (`JMP 0`, or `JMP 1; JMP -1`) loops forever
  // without doing anything: no value could ever end it. Loops with any other instruction in
  // them are left to the run budget (runtime/run_budget.h). Each chain is at most as long as
  // the function, and only chains starting at a JMP are walked, so this is quadratic only in
  // runs of consecutive JMPs, which compilers do not write.
  void check_not_endless(const Instruction& ins) const {
    if (ins.op != OpCode::kJmp) return;
    std::size_t at = pc_;
    for (std::size_t steps = 0; steps <= fn_.instructions().size(); ++steps) {
      at = static_cast<std::size_t>(static_cast<std::int64_t>(at) + fn_.instructions()[at].x);
      if (at == pc_) {
        fail(ins, steps == 0 ? "jumps to itself: the function would never end"
                             : "jumps back to itself through other jumps only: the function "
                               "would never end");
      }
      if (fn_.instructions()[at].op != OpCode::kJmp) return;
    }
  }

  void check(const Instruction& ins) const {
    switch (ins.op) {
      case OpCode::kLoad:
      case OpCode::kMove:
      case OpCode::kStore:
      case OpCode::kDropR:
        need_register(ins, ins.x);
        break;
      case OpCode::kStoreN:
        need_count(ins, ins.n);
        need_register(ins, ins.x);
        if (ins.n > 0) need_register(ins, static_cast<std::int64_t>(ins.x) + ins.n - 1);
        break;
      case OpCode::kLoadC:
        need_index(ins, ins.x, fn_.constants.size(), "constant");
        break;
      case OpCode::kOp:
        need_index(ins, ins.x, fn_.operators.size(), "operator");
        break;
      case OpCode::kOpN:
        need_index(ins, ins.x, fn_.operators.size(), "operator");
        need_count(ins, ins.n);
        break;
      case OpCode::kJf:
      case OpCode::kJmp:
        need_target(ins, ins.x);
        break;
      case OpCode::kLoop:
        need_target(ins, ins.x);
        if (ins.n < 2) fail(ins, "LOOP needs at least the trip count and condition");
        break;
      case OpCode::kListConstruct:
      case OpCode::kDictConstruct:
      case OpCode::kNamedTupleConstruct:
        need_index(ins, ins.x, fn_.code->types.size(), "type");
        need_count(ins, ins.n);
        break;
      case OpCode::kCreateObject: {
        // PyTorch 1.13 refuses to export TorchScript classes to lite-interpreter models, so
        // CREATE_OBJECT only ever builds custom C++ classes (torch.classes.*), whose methods
        // are C++ code of the binary that registered them. The runtime has the ones lowered
        // modules use (runtime/delegate/custom_class.h; a backend it lacks is named when the
        // module is set up); any other is refused here.
        need_index(ins, ins.x, fn_.code->types.size(), "type");
        const auto& type = fn_.code->types[static_cast<std::size_t>(ins.x)];
        if (!type.starts_with("__torch__.torch.classes.__backends__.") &&
            type != "__torch__.torch.classes.backendutils.BackendDebugInfo") {
          unsupported(ins, fmt::format("creates a {}: custom C++ classes (torch.classes) run "
                                       "code that is not in the model file, and symbolite has "
                                       "only the delegate backends'",
                                       type));
        }
        break;
      }
      case OpCode::kCall:
      case OpCode::kEnter:
      case OpCode::kExit:
        // PyTorch 1.13 never writes these into a lite-interpreter model: it inlines every call
        // (CALL exists only inside its loader, for operator upgraders) and refuses to export
        // `with` blocks ("ENTER is not supported in mobile module").
        unsupported(ins,
                    "an instruction PyTorch 1.13 does not write into lite-interpreter "
                    "models");
      case OpCode::kIsInstance:
        need_count(ins, ins.n);
        if (ins.x < 0 || static_cast<std::uint64_t>(ins.x) + static_cast<std::uint64_t>(ins.n) >
                             fn_.code->types.size()) {
          fail(ins, fmt::format("types [{}, {}) out of range ({} types)", ins.x, ins.x + ins.n,
                                fn_.code->types.size()));
        }
        break;
      case OpCode::kInterfaceCall:
        need_index(ins, ins.x, fn_.constants.size(), "constant");
        if (!fn_.constants[static_cast<std::size_t>(ins.x)].is(ops::IValue::Kind::kString)) {
          fail(ins, "the method name constant is not a string");
        }
        if (ins.n < 1) fail(ins, "an interface call needs the object");
        break;
      case OpCode::kTupleConstruct:
      case OpCode::kListUnpack:
      case OpCode::kFormat:
        need_count(ins, ins.x);
        break;
      case OpCode::kTupleSlice:
        need_count(ins, ins.x);
        need_count(ins, ins.n);
        break;
      case OpCode::kGetAttr:
      case OpCode::kSetAttr:
        if (ins.x < 0) fail(ins, "negative attribute slot");
        break;
      case OpCode::kToList:
        // Pops the tensor, the annotation's list depth and element type, pushes the list; it
        // has no operands to check (PyTorch writes 0 0), the values are checked as it runs.
        break;
      default:
        break;
    }
  }

  const LoadedFunction& fn_;
  std::size_t pc_ = 0;
};

}  // namespace

std::size_t registers_used(const std::vector<Instruction>& code) {
  std::int64_t highest = 0;
  for (const auto& ins : code) {
    switch (ins.op) {
      case OpCode::kLoad:
      case OpCode::kMove:
      case OpCode::kStore:
      case OpCode::kDropR:
        highest = std::max<std::int64_t>(highest, ins.x);
        break;
      case OpCode::kStoreN:
        highest = std::max<std::int64_t>(highest, std::int64_t{ins.x} + std::max(ins.n, 1) - 1);
        break;
      default:
        break;
    }
  }
  return static_cast<std::size_t>(highest);
}

void verify_function(const LoadedFunction& function) { Verifier(function).run(); }

}  // namespace symbolite::mobile
