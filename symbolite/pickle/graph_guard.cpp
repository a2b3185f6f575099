#include "symbolite/pickle/graph_guard.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::pickle {

bool GraphGuard::is_container(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kTuple:
    case Value::Kind::kList:
    case Value::Kind::kDict:
    case Value::Kind::kObject:
      return true;
    default:
      return false;
  }
}

std::size_t GraphGuard::depth(const Value& value) const {
  if (!is_container(value)) return 0;
  auto it = nodes_.find(value.identity());
  if (it == nodes_.end()) {  // every container comes from `created`
    throw Error(ErrorKind::kInternal, "unpickler lost track of a container");
  }
  return it->second.depth;
}

std::uint32_t GraphGuard::depth_above(std::span<const Value> children) const {
  std::size_t deepest = 0;
  for (const Value& child : children) deepest = std::max(deepest, depth(child));
  if (deepest + 1 > max_depth_) {
    throw Error(ErrorKind::kLimit,
                fmt::format("values nested deeper than the limit of {}", max_depth_));
  }
  return static_cast<std::uint32_t>(deepest + 1);
}

void GraphGuard::seal(std::span<const Value> children) {
  for (const Value& child : children) {
    // Tuples are immutable anyway; sealing only matters for lists, dicts and objects.
    if (is_container(child) && !child.is(Value::Kind::kTuple)) {
      nodes_[child.identity()].sealed = true;
    }
  }
}

void GraphGuard::created(const Value& node, std::span<const Value> children) {
  Node info{depth_above(children), false};
  seal(children);
  nodes_[node.identity()] = info;
}

void GraphGuard::adding(const Value& node, std::span<const Value> children) {
  auto it = nodes_.find(node.identity());
  if (it == nodes_.end()) {
    throw Error(ErrorKind::kInternal, "unpickler lost track of a container");
  }
  Node& info = it->second;  // stays valid: unordered_map never moves its elements
  if (info.sealed) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("cannot modify the {}: it is already inside another container "
                            "(recursive structure)",
                            node.kind_name()));
  }
  for (const Value& child : children) {
    if (child.identity() == node.identity()) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("cannot put the {} inside itself", node.kind_name()));
    }
  }
  std::uint32_t depth = depth_above(children);
  seal(children);
  info.depth = std::max(info.depth, depth);
}

}  // namespace symbolite::pickle
