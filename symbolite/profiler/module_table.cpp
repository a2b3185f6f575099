#include "symbolite/profiler/module_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/profiler/units.h"

namespace symbolite::profiler {

ModuleNode& ModuleNode::child(const std::string& child_label) {
  for (auto& c : children) {
    if (c->label == child_label) return *c;
  }
  children.push_back(std::make_unique<ModuleNode>());
  children.back()->label = child_label;
  return *children.back();
}

std::unique_ptr<ModuleNode> module_tree(const std::vector<OpEvent>& events,
                                        Attributor& attributor) {
  auto root = std::make_unique<ModuleNode>();
  for (const auto& e : events) {
    const auto& a = attributor.attribute(e.handle, e.delegate_call);
    std::int64_t duration = e.end_ns - e.start_ns;
    if (root->label.empty()) root->label = a.module_path.front();
    auto add = [&](ModuleNode& node) {
      node.inclusive_ns += duration;
      ++node.ops;
      node.flops += std::max<std::int64_t>(e.flops, 0);
      node.bytes_allocated += e.bytes_allocated;
    };
    ModuleNode* node = root.get();
    add(*node);
    for (std::size_t i = 1; i < a.module_path.size(); ++i) {
      node = &node->child(a.module_path[i]);
      if (node->call_site.empty() && i < a.call_sites.size()) node->call_site = a.call_sites[i];
      add(*node);
    }
    node->exclusive_ns += duration;
  }
  return root;
}

namespace {

void render(const ModuleNode& node, int depth, std::int64_t total, std::uint32_t details,
            std::string& out) {
  out += fmt::format(
      "{:{}}{:<{}}  {:>11}  {:>11}  {:>6.2f}%  {:>7}", "", depth * 2, node.label,
      std::max(1, 48 - depth * 2), format_time(node.inclusive_ns), format_time(node.exclusive_ns),
      total > 0 ? 100.0 * static_cast<double>(node.inclusive_ns) / static_cast<double>(total) : 0.0,
      node.ops);
  if (details & kDetailFlops) out += fmt::format("  {:>11}", format_flops(node.flops));
  if (details & kDetailMemory) out += fmt::format("  {:>11}", format_bytes(node.bytes_allocated));
  out += "\n";
  for (const auto& child : node.children) render(*child, depth + 1, total, details, out);
}

}  // namespace

std::string render_module_tree(const ModuleNode& root, std::uint32_t details) {
  std::string out = fmt::format("{:<48}  {:>11}  {:>11}  {:>7}  {:>7}", "module", "inclusive",
                                "self", "%", "ops");
  if (details & kDetailFlops) out += fmt::format("  {:>11}", "FLOPs");
  if (details & kDetailMemory) out += fmt::format("  {:>11}", "allocated");
  out += "\n";
  render(root, 0, root.inclusive_ns, details, out);
  return out;
}

nlohmann::json module_tree_json(const ModuleNode& root, std::uint32_t details) {
  nlohmann::json children = nlohmann::json::array();
  for (const auto& c : root.children) children.push_back(module_tree_json(*c, details));
  nlohmann::json node = {{"module", root.label},
                         {"inclusive_ns", root.inclusive_ns},
                         {"exclusive_ns", root.exclusive_ns},
                         {"ops", root.ops}};
  if (details & kDetailFlops) node["flops"] = root.flops;
  if (details & kDetailMemory) node["bytes_allocated"] = root.bytes_allocated;
  node["children"] = std::move(children);
  return node;
}

std::string folded_stacks(const std::vector<OpEvent>& events, Attributor& attributor) {
  std::map<std::string, std::int64_t> stacks;
  std::vector<std::string> order;
  for (const auto& e : events) {
    const auto& a = attributor.attribute(e.handle, e.delegate_call);
    std::string key;
    for (const auto& label : a.module_path) key += label + ";";
    key += std::string(e.op);
    auto [it, inserted] = stacks.emplace(key, 0);
    if (inserted) order.push_back(key);
    it->second += e.end_ns - e.start_ns;
  }
  std::string out;
  for (const auto& key : order) {
    out += fmt::format("{} {}\n", key, std::max<std::int64_t>(1, stacks[key]));
  }
  return out;
}

}  // namespace symbolite::profiler
