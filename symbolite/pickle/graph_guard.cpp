#include "symbolite/pickle/graph_guard.h"

#include <algorithm>
#include <limits>
#include <utility>

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

const GraphGuard::Node& GraphGuard::node_of(const Value& value) const {
  const std::uint32_t id = value.guard_id();
  if (id == 0 || id > nodes_.size()) {  // every container comes from `created`
    throw Error(ErrorKind::kInternal, "unpickler lost track of a container");
  }
  return nodes_[id - 1];
}

GraphGuard::Node& GraphGuard::node_of(const Value& value) {
  return const_cast<Node&>(std::as_const(*this).node_of(value));
}

std::size_t GraphGuard::depth(const Value& value) const {
  if (!is_container(value)) return 0;
  return node_of(value).depth;
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
      node_of(child).sealed = true;
    }
  }
}

void GraphGuard::created(Value& node, std::span<const Value> children) {
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw Error(ErrorKind::kLimit, "more than 2^32 containers");
  }
  Node info{depth_above(children), false};
  seal(children);
  nodes_.push_back(info);
  node.set_guard_id(static_cast<std::uint32_t>(nodes_.size()));
}

void GraphGuard::adding(const Value& node, std::span<const Value> children) {
  Node& info = node_of(node);  // stays valid: nothing below adds nodes
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
