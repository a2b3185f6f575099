#include "symbolite/profiler/flame_graph.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include <fmt/format.h>

namespace symbolite::profiler {
namespace {

constexpr double kWidth = 1200;
constexpr double kRowHeight = 18;
constexpr double kMinTextWidth = 36;  // narrower frames get a tooltip only

// Text for XML and HTML: the five special characters as entities.
std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

struct Frame {
  std::string name;
  std::int64_t value = 0;
  std::vector<std::unique_ptr<Frame>> children;  // first-seen order

  Frame& child(std::string_view label) {
    for (auto& c : children) {
      if (c->name == label) return *c;
    }
    children.push_back(std::make_unique<Frame>());
    children.back()->name = std::string(label);
    return *children.back();
  }
};

Frame parse_folded(std::string_view folded) {
  Frame root;
  root.name = "all";
  while (!folded.empty()) {
    std::size_t end = folded.find('\n');
    std::string_view line = folded.substr(0, end);
    folded = end == std::string_view::npos ? std::string_view() : folded.substr(end + 1);
    std::size_t space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(line.data() + space + 1, line.data() + line.size(), value);
    if (ec != std::errc() || value <= 0) continue;
    root.value += value;
    Frame* at = &root;
    std::string_view stack = line.substr(0, space);
    while (!stack.empty()) {
      std::size_t semi = stack.find(';');
      at = &at->child(stack.substr(0, semi));
      at->value += value;
      stack = semi == std::string_view::npos ? std::string_view() : stack.substr(semi + 1);
    }
  }
  return root;
}

std::size_t depth_of(const Frame& f) {
  std::size_t d = 0;
  for (const auto& c : f.children) d = std::max(d, depth_of(*c));
  return d + 1;
}

// A warm colour per name, stable across runs; operators (no module) a little redder.
std::string colour(std::string_view name) {
  std::uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  bool op = name.find("::") != std::string_view::npos && name.find('(') == std::string_view::npos;
  int r = 205 + static_cast<int>(h % 50);
  int g = (op ? 80 : 130) + static_cast<int>((h >> 8) % 80);
  int b = 40 + static_cast<int>((h >> 16) % 50);
  return fmt::format("rgb({},{},{})", r, g, b);
}

void draw(const Frame& f, double x, std::size_t row, double scale, std::int64_t total,
          std::string& out) {
  double w = static_cast<double>(f.value) * scale;
  if (w < 0.1) return;
  double y = static_cast<double>(row) * kRowHeight + 24;
  std::string name = escaped(f.name);
  out += fmt::format(
      "<g><title>{} — {:.1f} µs, {:.2f} %</title><rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" "
      "height=\"{:.1f}\" fill=\"{}\" rx=\"2\"/>",
      name, static_cast<double>(f.value) / 1000.0,  // folded stacks count nanoseconds
      100.0 * static_cast<double>(f.value) / static_cast<double>(total), x, y, w, kRowHeight - 1,
      colour(f.name));
  if (w >= kMinTextWidth) {
    std::size_t fits = static_cast<std::size_t>(w / 7);
    std::string label =
        f.name.size() <= fits ? f.name : f.name.substr(0, fits > 2 ? fits - 2 : 0) + "..";
    out += fmt::format(R"(<text x="{:.2f}" y="{:.1f}">{}</text>)", x + 3, y + 13, escaped(label));
  }
  out += "</g>\n";
  double child_x = x;
  for (const auto& c : f.children) {
    draw(*c, child_x, row + 1, scale, total, out);
    child_x += static_cast<double>(c->value) * scale;
  }
}

void module_rows(const ModuleNode& node, std::size_t depth, std::int64_t total, std::string& out) {
  out += fmt::format(
      "<tr><td style=\"padding-left:{}em\">{}</td><td>{:.1f}</td><td>{:.1f}</td><td>{:.1f}</td>"
      "<td>{}</td><td>{}</td></tr>\n",
      depth, escaped(node.label), static_cast<double>(node.inclusive_ns) / 1000.0,
      static_cast<double>(node.exclusive_ns) / 1000.0,
      total > 0 ? 100.0 * static_cast<double>(node.inclusive_ns) / static_cast<double>(total) : 0.0,
      node.ops, escaped(node.call_site));
  for (const auto& c : node.children) module_rows(*c, depth + 1, total, out);
}

}  // namespace

std::string flame_graph_svg(std::string_view folded, std::string_view title) {
  Frame root = parse_folded(folded);
  std::size_t rows = root.value > 0 ? depth_of(root) : 1;
  double height = static_cast<double>(rows) * kRowHeight + 30;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"monospace\" font-size=\"11\">\n"
      "<text x=\"4\" y=\"16\" font-size=\"13\">{}</text>\n",
      kWidth, height, kWidth, height, escaped(title));
  if (root.value > 0) {
    draw(root, 0, 0, kWidth / static_cast<double>(root.value), root.value, out);
  } else {
    out += "<text x=\"4\" y=\"40\">no operator events</text>\n";
  }
  out += "</svg>\n";
  return out;
}

std::map<std::string, std::string> hottest_sources(const std::vector<OpEvent>& events,
                                                   Attributor& attributor) {
  std::map<std::string, std::map<std::string, std::int64_t>> time;  // op -> line -> ns
  for (const auto& e : events) {
    const Attribution& a = attributor.attribute(e.handle, e.delegate_call);
    if (!a.source.empty()) time[std::string(e.op)][a.source] += e.end_ns - e.start_ns;
  }
  std::map<std::string, std::string> out;
  for (const auto& [op, lines] : time) {
    out[op] = std::max_element(lines.begin(), lines.end(), [](const auto& x, const auto& y) {
                return x.second < y.second;
              })->first;
  }
  return out;
}

std::string profile_report_html(const ReportInputs& in) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}"
      "td,th{{padding:2px "
      "8px;text-align:right;font-family:monospace}}td:last-child,th:last-child,td:first-child,"
      "th:first-child{{text-align:left}}th{{cursor:pointer;background:#eee}}"
      "tr:nth-child(even){{background:#f8f8f8}}</style></head><body>\n<h1>{0}</h1>\n"
      "<h2>Flame graph</h2>\n<p>Stacks are the module hierarchy, then the operator; width is "
      "time. Hover a frame for its time.</p>\n",
      escaped(in.title));
  out += flame_graph_svg(in.folded, in.title);
  if (in.modules != nullptr) {
    out +=
        "<h2>Modules</h2>\n<table><tr><th>module</th><th>inclusive µs</th><th>self µs</th>"
        "<th>%</th><th>ops</th><th>called at</th></tr>\n";
    module_rows(*in.modules, 0, in.modules->inclusive_ns, out);
    out += "</table>\n";
  }
  out +=
      "<h2>Operators</h2>\n<p>Click a column to sort.</p>\n<table id=\"ops\"><thead><tr>"
      "<th>operator</th><th>calls</th><th>total µs</th><th>avg µs</th><th>%</th>"
      "<th>MFLOPs</th><th>hottest source line</th></tr></thead><tbody>\n";
  for (const auto& op : in.ops) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:.1f}</td><td>{:.2f}</td><td>{:.2f}</td><td>{}</td><td>{}</"
        "td></tr>\n",
        escaped(op.op), op.count, static_cast<double>(op.total_ns) / 1000.0,
        op.count ? static_cast<double>(op.total_ns) / 1000.0 / static_cast<double>(op.count) : 0.0,
        op.percent,
        op.flops >= 0 ? fmt::format("{:.2f}", static_cast<double>(op.flops) / 1e6)
                      : std::string("-"),
        in.op_sources.contains(op.op) ? escaped(in.op_sources.at(op.op)) : std::string());
  }
  // Sorting: numbers numerically, text alphabetically; a second click reverses.
  out +=
      "</tbody></table>\n<script>\n"
      "document.querySelectorAll('#ops th').forEach((th, col) => th.addEventListener('click', () "
      "=> {\n"
      "  const body = document.querySelector('#ops tbody');\n"
      "  const rows = Array.from(body.rows);\n"
      "  const dir = th.dataset.dir = th.dataset.dir === 'asc' ? 'desc' : 'asc';\n"
      "  const key = r => { const t = r.cells[col].textContent; const n = parseFloat(t); return "
      "isNaN(n) ? t : n; };\n"
      "  rows.sort((a, b) => { const x = key(a), y = key(b); const c = x < y ? -1 : x > y ? 1 : 0; "
      "return dir === 'asc' ? c : -c; });\n"
      "  rows.forEach(r => body.appendChild(r));\n"
      "}));\n</script>\n</body></html>\n";
  return out;
}

}  // namespace symbolite::profiler
