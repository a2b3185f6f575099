#include "symbolite/ops/schema/schema_table.h"

#include <string>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "symbolite/ops/schema/schema_parser.h"
#include "symbolite/ops/schema/schema_table_data.h"
#include "symbolite/support/error.h"

namespace symbolite::ops {
namespace {

struct Table {
  std::vector<FunctionSchema> schemas;
  std::unordered_map<std::string_view, std::size_t> by_full_name;  // views into schemas
  std::vector<std::string> full_names;                             // owns what the keys view
  std::unordered_map<std::string_view, std::vector<std::size_t>> by_name;
};

Table build() {
  Table table;
  std::string text = detail::pytorch_schema_text();
  std::string_view rest = text;
  std::size_t line_number = 0;
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    table.schemas.push_back(with_context(fmt::format("pytorch_schemas.txt line {}", line_number),
                                         [&] { return parse_schema(line); }));
  }
  table.full_names.reserve(table.schemas.size());
  for (const auto& schema : table.schemas) table.full_names.push_back(schema.full_name());
  for (std::size_t i = 0; i < table.schemas.size(); ++i) {
    if (!table.by_full_name.emplace(table.full_names[i], i).second) {
      throw Error(ErrorKind::kInternal,
                  fmt::format("schema table: duplicate operator {}", table.full_names[i]));
    }
    table.by_name[table.schemas[i].name].push_back(i);
  }
  return table;
}

const Table& table() {
  static const Table instance = build();
  return instance;
}

}  // namespace

const FunctionSchema* find_schema(std::string_view full_name) {
  const Table& t = table();
  auto it = t.by_full_name.find(full_name);
  return it == t.by_full_name.end() ? nullptr : &t.schemas[it->second];
}

std::vector<const FunctionSchema*> schemas_named(std::string_view name) {
  const Table& t = table();
  std::vector<const FunctionSchema*> out;
  auto it = t.by_name.find(name);
  if (it == t.by_name.end()) return out;
  for (std::size_t i : it->second) out.push_back(&t.schemas[i]);
  return out;
}

std::span<const FunctionSchema> all_schemas() { return table().schemas; }

}  // namespace symbolite::ops
