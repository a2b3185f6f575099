#include "symbolite/runtime/input_files.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "symbolite/support/error.h"
#include "symbolite/tensor/npy.h"

namespace symbolite::runtime {
namespace {

ops::IValue from_json(const nlohmann::json& j, const std::string& path) {
  if (j.is_null()) return {};
  if (j.is_boolean()) return ops::IValue(j.get<bool>());
  if (j.is_number_integer()) return ops::IValue(j.get<std::int64_t>());
  if (j.is_number()) return ops::IValue(j.get<double>());
  if (j.is_string()) return ops::IValue::string(j.get<std::string>());
  if (j.is_array()) {
    ops::IValueList items;
    for (const auto& item : j) items.push_back(from_json(item, path));
    return ops::IValue::list(std::move(items));
  }
  throw Error(ErrorKind::kUsage,
              fmt::format("{}: JSON objects are not model inputs (use numbers, booleans, "
                          "strings, null or lists)", path));
}

nlohmann::json to_json(const ops::IValue& v) {
  using Kind = ops::IValue::Kind;
  switch (v.kind()) {
    case Kind::kNone: return nullptr;
    case Kind::kBool: return v.to_bool();
    case Kind::kInt: return v.to_int();
    case Kind::kDouble: return v.to_double();
    case Kind::kString: return v.to_string();
    case Kind::kList: {
      nlohmann::json items = nlohmann::json::array();
      for (const auto& item : v.to_list()) items.push_back(to_json(item));
      return items;
    }
    default:
      throw Error(ErrorKind::kUnsupported, fmt::format("a {} is not an input file's value", v.kind_name()));
  }
}

}  // namespace

ops::IValue read_input_file(const std::string& path) {
  if (path.ends_with(".json")) {
    std::ifstream in(path);
    if (!in) throw Error(ErrorKind::kNotFound, fmt::format("{}: cannot open", path));
    try {
      return from_json(nlohmann::json::parse(in), path);
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorKind::kFormat, fmt::format("{}: {}", path, e.what()));
    }
  }
  // The file is mapped read-only; a model may write its inputs in place (relu_ of an input),
  // as PyTorch lets it: inputs get storages of their own.
  tensor::Tensor t = tensor::read_npy_file(path);
  return ops::IValue(t.storage().is_view() ? t.copy() : std::move(t));
}

std::string write_input_file(const std::string& stem, const ops::IValue& value) {
  if (value.is(ops::IValue::Kind::kTensor)) {
    std::string path = stem + ".npy";
    tensor::write_npy_file(path, value.to_tensor());
    return path;
  }
  nlohmann::json j = to_json(value);
  std::string path = stem + ".json";
  std::ofstream out(path);
  out << j.dump() << "\n";
  if (!out) throw Error(ErrorKind::kIo, fmt::format("{}: cannot write", path));
  return path;
}

}  // namespace symbolite::runtime
