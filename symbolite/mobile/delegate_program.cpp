#include "symbolite/mobile/delegate_program.h"

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

// Hostile payloads must not make us allocate without bound: no real partition comes near.
constexpr std::size_t kMaxValues = 1 << 20;
constexpr std::size_t kMaxOutputsPerStep = 64;

// Reads whitespace-separated words of one line; a string value reads a length-prefixed run.
class LineReader {
 public:
  LineReader(std::string_view line, std::size_t number) : line_(line), number_(number) {}

  bool at_end() {
    skip_spaces();
    return pos_ == line_.size();
  }
  std::string_view word() {
    skip_spaces();
    std::size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ') ++pos_;
    if (start == pos_) fail("missing field");
    return line_.substr(start, pos_ - start);
  }
  std::int64_t integer() {
    auto w = word();
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size())
      fail(fmt::format("'{}' is not an integer", w));
    return v;
  }
  std::size_t count(std::size_t limit) {
    auto v = integer();
    if (v < 0 || static_cast<std::uint64_t>(v) > limit)
      fail(fmt::format("count {} out of range", v));
    return static_cast<std::size_t>(v);
  }
  double number() {
    std::string w(word());
    char* end = nullptr;
    double v = std::strtod(w.c_str(), &end);
    if (end != w.c_str() + w.size()) fail(fmt::format("'{}' is not a number", w));
    return v;
  }
  // "N:bytes" — N bytes that may contain spaces.
  std::string text() {
    skip_spaces();
    auto colon = line_.find(':', pos_);
    if (colon == std::string_view::npos) fail("string without length");
    std::size_t n = 0;
    auto [end, ec] = std::from_chars(line_.data() + pos_, line_.data() + colon, n);
    if (ec != std::errc() || end != line_.data() + colon || n > line_.size() - colon - 1) {
      fail("bad string length");
    }
    std::string s(line_.substr(colon + 1, n));
    pos_ = colon + 1 + n;
    return s;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorKind::kModel, fmt::format("delegate program line {}: {} in '{}'", number_, why,
                                               line_.substr(0, 120)));
  }

 private:
  void skip_spaces() {
    while (pos_ < line_.size() && line_[pos_] == ' ') ++pos_;
  }
  std::string_view line_;
  std::size_t number_;
  std::size_t pos_ = 0;
};

}  // namespace

std::size_t DelegateProgram::add_input() {
  DelegateValue v;
  v.kind = DelegateValue::Kind::kInput;
  v.integer = static_cast<std::int64_t>(num_inputs++);
  values.push_back(std::move(v));
  return values.size() - 1;
}

std::size_t DelegateProgram::add_value(DelegateValue value) {
  if (value.kind == DelegateValue::Kind::kWeight) {
    num_weights = std::max(num_weights, static_cast<std::size_t>(value.integer) + 1);
  }
  values.push_back(std::move(value));
  return values.size() - 1;
}

std::size_t DelegateProgram::add_step(std::int64_t handle, std::string op,
                                      std::vector<std::size_t> args, std::size_t num_outputs) {
  DelegateStep step{handle, std::move(op), std::move(args), {}, values.size()};
  std::size_t first = values.size();
  for (std::size_t i = 0; i < num_outputs; ++i) {
    values.push_back({DelegateValue::Kind::kOpOutput, 0, 0, {}, {}});
    step.outputs.push_back(first + i);
  }
  steps.push_back(std::move(step));
  return first;
}

std::string print_delegate_program(const DelegateProgram& program) {
  using K = DelegateValue::Kind;
  std::string out = fmt::format("{} {}\n", kDelegateProgramMagic, kDelegateProgramVersion);
  std::size_t next_step = 0;
  auto ids = [](const std::vector<std::size_t>& v) {
    std::string s;
    for (auto id : v) s += fmt::format(" {}", id);
    return s;
  };
  auto print_step = [&](const DelegateStep& step) {
    out += fmt::format("op {} {} {}{} -> {}\n", step.handle, step.op, step.args.size(),
                       ids(step.args), step.outputs.size());
  };
  // Steps without outputs go where they were added (before the value defined next).
  auto print_effects_before = [&](std::size_t id) {
    while (next_step < program.steps.size() && program.steps[next_step].outputs.empty() &&
           program.steps[next_step].values_before <= id) {
      print_step(program.steps[next_step++]);
    }
  };
  for (std::size_t id = 0; id < program.values.size(); ++id) {
    print_effects_before(id);
    const auto& v = program.values[id];
    switch (v.kind) {
      case K::kInput:
        out += "input\n";
        break;
      case K::kWeight:
        out += fmt::format("weight {}\n", v.integer);
        break;
      case K::kInt:
        out += fmt::format("int {}\n", v.integer);
        break;
      case K::kFloat:
        out += fmt::format("float {:a}\n", v.number);
        break;
      case K::kBool:
        out += fmt::format("bool {}\n", v.integer != 0 ? 1 : 0);
        break;
      case K::kNone:
        out += "none\n";
        break;
      case K::kString:
        out += fmt::format("str {}:{}\n", v.text.size(), v.text);
        break;
      case K::kList:
        out += fmt::format("list{}\n", ids(v.items));
        break;
      case K::kOpOutput: {
        // The first output of the next step: print the step (it defines all its outputs).
        const auto& step = program.steps.at(next_step++);
        print_step(step);
        id += step.outputs.size() - 1;
        break;
      }
    }
  }
  print_effects_before(program.values.size());
  out += fmt::format("output{}\n", ids(program.outputs));
  return out;
}

DelegateProgram parse_delegate_program(std::string_view text) {
  using K = DelegateValue::Kind;
  DelegateProgram program;
  std::size_t line_number = 0;
  bool have_output = false;
  auto value_id = [&](LineReader& r) {
    auto id = r.integer();
    if (id < 0 || static_cast<std::uint64_t>(id) >= program.values.size()) {
      r.fail(fmt::format("value {} is not defined yet", id));
    }
    return static_cast<std::size_t>(id);
  };
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    LineReader r(line, ++line_number);
    if (line_number == 1) {
      if (r.word() != kDelegateProgramMagic) r.fail("not a symbolite delegate program");
      auto version = r.integer();
      if (version != kDelegateProgramVersion) {
        r.fail(fmt::format("version {}; this symbolite reads version {}", version,
                           kDelegateProgramVersion));
      }
      continue;
    }
    if (line.empty()) continue;
    if (have_output) r.fail("text after the output line");
    if (program.values.size() >= kMaxValues) r.fail("too many values");
    auto keyword = r.word();
    DelegateValue v;
    if (keyword == "input") {
      if (program.values.size() != program.num_inputs) r.fail("inputs must come first");
      program.add_input();
    } else if (keyword == "weight") {
      v.kind = K::kWeight;
      v.integer = static_cast<std::int64_t>(r.count(kMaxValues));
      program.add_value(std::move(v));
    } else if (keyword == "int") {
      v.kind = K::kInt;
      v.integer = r.integer();
      program.add_value(std::move(v));
    } else if (keyword == "float") {
      v.kind = K::kFloat;
      v.number = r.number();
      program.add_value(std::move(v));
    } else if (keyword == "bool") {
      v.kind = K::kBool;
      v.integer = static_cast<std::int64_t>(r.count(1));
      program.add_value(std::move(v));
    } else if (keyword == "none") {
      program.add_value(std::move(v));
    } else if (keyword == "str") {
      v.kind = K::kString;
      v.text = r.text();
      program.add_value(std::move(v));
    } else if (keyword == "list") {
      v.kind = K::kList;
      while (!r.at_end()) v.items.push_back(value_id(r));
      program.add_value(std::move(v));
    } else if (keyword == "op") {
      std::int64_t handle = r.integer();
      std::string op(r.word());
      if (op.find("::") == std::string::npos)
        r.fail(fmt::format("'{}' is not an operator name", op));
      std::size_t n = r.count(kMaxValues);
      std::vector<std::size_t> args;
      for (std::size_t i = 0; i < n; ++i) args.push_back(value_id(r));
      if (r.word() != "->") r.fail("expected '->'");
      std::size_t outputs = r.count(kMaxOutputsPerStep);
      program.add_step(handle, std::move(op), std::move(args), outputs);
    } else if (keyword == "output") {
      while (!r.at_end()) program.outputs.push_back(value_id(r));
      have_output = true;
    } else {
      r.fail(fmt::format("unknown keyword '{}'", keyword));
    }
    if (!r.at_end()) r.fail("extra fields");
  }
  if (line_number == 0) {
    throw Error(ErrorKind::kModel, "delegate program: empty payload");
  }
  if (!have_output) throw Error(ErrorKind::kModel, "delegate program: no output line");
  return program;
}

}  // namespace symbolite::mobile
