#include "symbolite/backends/debugging/round_trip_backend.h"

#include <vector>

#include <fmt/format.h>

#include "symbolite/mobile/delegate_program.h"
#include "symbolite/runtime/delegate/program_backend.h"
#include "symbolite/support/error.h"

namespace symbolite::backends {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (;;) {
    auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) return lines;
    text.remove_prefix(end + 1);
  }
}

class RoundTripBackend final : public runtime::DelegateBackend {
 public:
  bool is_available() const override { return true; }
  ops::IValue compile(const ops::IValue& processed, const ops::IValue& spec) override {
    for (const auto& [method, payload] : processed.to_dict().items)
      check(method.to_string(), payload);
    return programs_.compile(processed, spec);
  }
  ops::IValueList execute(const ops::IValue& handle, const ops::IValueList& inputs) override {
    return programs_.execute(handle, inputs);
  }

 private:
  static void check(const std::string& method, const ops::IValue& payload) {
    if (!payload.is(ops::IValue::Kind::kTuple) || payload.to_tuple().size() != 2)
      return;  // compile says why
    const auto& parts = payload.to_tuple();
    const std::string& text = parts[0].to_string();
    if (auto difference = round_trip_difference(text)) {
      throw Error(ErrorKind::kModel,
                  fmt::format("aot_eager: lowered method '{}': the payload does not survive a "
                              "second serialization: {}",
                              method, *difference));
    }
    const std::size_t used = mobile::parse_delegate_program(text).num_weights;
    const std::size_t carried = parts[1].to_list().size();
    if (used != carried) {
      throw Error(ErrorKind::kModel,
                  fmt::format("aot_eager: lowered method '{}': the program uses {} weights; the "
                              "payload carries {}",
                              method, used, carried));
    }
  }

  runtime::ProgramBackend programs_;
};

}  // namespace

std::optional<std::string> round_trip_difference(std::string_view text) {
  const std::string again = mobile::print_delegate_program(mobile::parse_delegate_program(text));
  if (again == text) return std::nullopt;
  const auto before = lines_of(text);
  const auto after = lines_of(again);
  std::size_t line = 0;
  while (line < before.size() && line < after.size() && before[line] == after[line]) ++line;
  auto at = [line](const std::vector<std::string_view>& lines) {
    return line < lines.size() ? std::string(lines[line]) : std::string("(end of payload)");
  };
  return fmt::format("line {}: '{}' was printed back as '{}'", line + 1, at(before), at(after));
}

std::unique_ptr<runtime::DelegateBackend> make_round_trip_backend() {
  return std::make_unique<RoundTripBackend>();
}

}  // namespace symbolite::backends
