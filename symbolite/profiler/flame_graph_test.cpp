// The flame graph and HTML report: frames are as wide as their time, nested as the module
// hierarchy, names are escaped, and the files need nothing from the network.
#include "symbolite/profiler/flame_graph.h"

#include <gtest/gtest.h>

namespace symbolite::profiler {
namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(FlameGraph, FramesAreAsWideAsTheirTime) {
  // 300 µs in all: top 300, level1 200 (add 150, mul 50), relu 100 directly under top
  // (folded stacks count nanoseconds).
  std::string folded =
      "top(Net);level1(L1);aten::add 150000\n"
      "top(Net);level1(L1);aten::mul 50000\n"
      "top(Net);aten::relu 100000\n";
  std::string svg = flame_graph_svg(folded, "net <forward>");
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(svg, "<rect"), 6u);  // all, top, level1, add, mul, relu
  // Width 1200 for 300 µs: level1 800, relu 400, add 600, mul 200.
  EXPECT_NE(svg.find("<title>level1(L1) — 200.0 µs, 66.67 %</title><rect x=\"0.00\" y=\"60.0\" "
                     "width=\"800.00\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>aten::relu — 100.0 µs, 33.33 %</title><rect x=\"800.00\" y=\"60.0\" "
                     "width=\"400.00\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>aten::mul — 50.0 µs, 16.67 %</title><rect x=\"600.00\" y=\"78.0\" "
                     "width=\"200.00\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("net &lt;forward&gt;"), std::string::npos);  // the title, escaped
}

TEST(FlameGraph, NamesAreEscapedAndMalformedLinesSkipped) {
  std::string svg = flame_graph_svg("top(A<&>\"');x 10\nno value here\n;; -5\n", "t");
  EXPECT_NE(svg.find("A&lt;&amp;&gt;&quot;&#39;"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("A<&>"), std::string::npos);
  EXPECT_EQ(count(svg, "<rect"), 3u);
  EXPECT_NE(flame_graph_svg("", "t").find("no operator events"), std::string::npos);
}

TEST(FlameGraph, ReportIsSelfContained) {
  ModuleNode root;
  root.label = "top(Net)";
  root.inclusive_ns = 300000;
  root.exclusive_ns = 100000;
  root.ops = 3;
  root.child("level1(L1)").inclusive_ns = 200000;
  root.child("level1(L1)").call_site = "net.py:12";
  OpStats add;
  add.op = "aten::add";
  add.count = 2;
  add.total_ns = 150000;
  add.percent = 50;
  ReportInputs in{"net.ptl forward",
                  "top(Net);level1(L1);aten::add 150\n",
                  &root,
                  {add},
                  {{"aten::add", "net.py:20"}}};
  std::string html = profile_report_html(in);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<td style=\"padding-left:1em\">level1(L1)</td><td>200.0</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>0</td><td>net.py:12</td></tr>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>aten::add</td><td>2</td><td>150.0</td><td>75.00</td><td>50.00</"
                      "td><td>-</td><td>net.py:20</td></tr>"),
            std::string::npos)
      << html;
  // Nothing is fetched when the page opens: no external scripts, styles, images or fonts.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(count(html, "http"), 1u);  // the SVG namespace only
  EXPECT_EQ(count(html, "<script>"), 1u);
}

}  // namespace
}  // namespace symbolite::profiler
