// Pictures of a profile that open offline in any browser: a flame graph as SVG (stacks are
// the module hierarchy, then the operator; width is time) and a self-contained HTML report
// holding it with the module tree and a sortable operator table. No network at view time: no
// external scripts, styles or fonts; the one inline script (table sorting) is a few lines.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/profiler/module_table.h"
#include "symbolite/profiler/op_table.h"

namespace symbolite::profiler {

// An icicle-style flame graph (root on top) of folded stacks (folded_stacks()'s format:
// "a;b;op VALUE" lines). Each frame has a tooltip with its time and share.
std::string flame_graph_svg(std::string_view folded, std::string_view title);

struct ReportInputs {
  std::string title;   // "nested.ptl forward, 10 runs"
  std::string folded;  // folded_stacks()
  const ModuleNode* modules = nullptr;
  std::vector<OpStats> ops;
  // Per operator, the source line where it spends most time ("model.py:57"), when known.
  std::map<std::string, std::string> op_sources;
};

std::string profile_report_html(const ReportInputs& inputs);

// Per operator, the source line (Attribution::source) where its events took the most time.
std::map<std::string, std::string> hottest_sources(const std::vector<OpEvent>& events,
                                                   Attributor& attributor);

}  // namespace symbolite::profiler
