#include "symbolite/debuginfo/symbolication_json.h"

namespace symbolite::debuginfo {

nlohmann::json to_json(const debuginfo::Symbolication& s) {
  nlohmann::json frames = nlohmann::json::array();
  for (const auto& frame : s.frames) {
    nlohmann::json f = {{"function", frame.function}, {"known", frame.range.known()}};
    if (frame.range.known()) {
      auto position = frame.range.file_line_col();
      f["file"] = position ? nlohmann::json(position->filename) : nlohmann::json(nullptr);
      f["line"] = position ? nlohmann::json(position->line) : nlohmann::json(nullptr);
      f["column"] = position ? nlohmann::json(position->column) : nlohmann::json(nullptr);
      f["start"] = frame.range.start();
      f["end"] = frame.range.end();
      f["highlight"] = std::string(frame.range.text());
    } else {
      f["source_range_tag"] = frame.range_tag;
    }
    frames.push_back(std::move(f));
  }
  nlohmann::json out = {
      {"handle", s.handle},
      {"status", std::string(debuginfo::to_string(s.status))},
      {"op", s.op.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.op)},
      {"function", s.site ? nlohmann::json(s.site->function) : nlohmann::json(nullptr)},
      {"instruction", s.site ? nlohmann::json(s.site->instruction) : nlohmann::json(nullptr)},
      {"module_hierarchy",
       s.module_hierarchy.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.module_hierarchy)},
      {"traceback", s.traceback.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.traceback)},
      {"frames", frames},
      {"notes", s.notes},
  };
  return out;
}

}  // namespace symbolite::debuginfo
