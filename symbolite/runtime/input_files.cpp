#include "symbolite/runtime/input_files.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "symbolite/support/error.h"
#include "symbolite/support/json_text.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/output_files.h"
#include "symbolite/tensor/npy.h"

namespace symbolite::runtime {
namespace {

namespace fs = std::filesystem;

// The file is mapped read-only; a model may write its inputs in place (relu_ of an input),
// as PyTorch lets it: inputs get storages of their own.
ops::IValue read_tensor(const std::string& path) {
  tensor::Tensor t = tensor::read_npy_file(path);
  return ops::IValue(t.storage().is_view() ? t.copy() : std::move(t));
}

// The SAX pass of parse_input_json: refuses, by byte offset, integers that do not fit in 64
// bits and nesting deeper than kMaxInputDepth (+1: the special keys' objects).
class PreCheck : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  explicit PreCheck(const std::string& path) : path_(path) {}

  bool number_float(number_float_t, const string_t& raw) override {
    if (raw.find_first_of(".eE") == string_t::npos) {
      throw Error(ErrorKind::kFormat,
                  fmt::format("{}: the integer {} does not fit in 64 bits (TorchScript's int)",
                              path_, raw));
    }
    return true;
  }
  bool start_object(std::size_t) override { return enter(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw Error(ErrorKind::kFormat, fmt::format("{}: {}", path_, e.what()));
  }

 private:
  bool enter() {
    if (++depth_ > 2 * (kMaxInputDepth + 1)) {
      throw Error(ErrorKind::kLimit,
                  fmt::format("{}: values nested deeper than {}", path_, kMaxInputDepth));
    }
    return true;
  }
  bool leave() {
    --depth_;
    return true;
  }

  const std::string& path_;
  int depth_ = 0;
};

// Reads a JSON value; `where` is the JSON path so far ("[1][\"a\"]") for error messages.
class JsonReader {
 public:
  explicit JsonReader(std::string path)
      : path_(std::move(path)), dir_(fs::path(path_).parent_path()) {}

  ops::IValue read(const nlohmann::ordered_json& j, const std::string& where, int depth = 0) const {
    if (depth > kMaxInputDepth) {
      throw Error(ErrorKind::kLimit, fmt::format("{}: at {}: values nested deeper than {}", path_,
                                                 where, kMaxInputDepth));
    }
    if (j.is_null()) return {};
    if (j.is_boolean()) return ops::IValue(j.get<bool>());
    if (j.is_number_unsigned() &&
        j.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
      fail(where, fmt::format("the integer {} does not fit in 64 bits (TorchScript's int)",
                              j.get<std::uint64_t>()));
    }
    if (j.is_number_integer()) return ops::IValue(j.get<std::int64_t>());
    if (j.is_number()) return ops::IValue(j.get<double>());
    if (j.is_string()) return ops::IValue::string(j.get<std::string>());
    if (j.is_array()) {
      ops::IValueList items;
      for (std::size_t i = 0; i < j.size(); ++i) {
        items.push_back(read(j[i], fmt::format("{}[{}]", where, i), depth + 1));
      }
      return ops::IValue::list(std::move(items));
    }
    if (j.size() == 1) {
      // j.begin(), not *j.items().begin(): the items() proxy would not outlive this line.
      const auto first = j.begin();
      const std::string& key = first.key();
      const auto& value = first.value();
      if (key == "$tensor") return tensor(value, where);
      if (key == "$tuple") return tuple(value, where, depth);
      if (key == "$dict") return dict(value, where, depth);
      if (key == "$float") return special_float(value, where);
    }
    auto d = std::make_shared<ops::Dict>();
    for (const auto& [key, value] : j.items()) {
      d->items.emplace_back(ops::IValue::string(key),
                            read(value, fmt::format("{}[\"{}\"]", where, key), depth + 1));
    }
    return ops::IValue::dict(std::move(d));
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(ErrorKind::kFormat,
                fmt::format("{}: at {}: {}", path_, where.empty() ? "the top" : where, what));
  }

  ops::IValue tensor(const nlohmann::ordered_json& file, const std::string& where) const {
    if (!file.is_string()) fail(where, "\"$tensor\" takes the path of a .npy file");
    fs::path p(file.get<std::string>());
    return read_tensor((p.is_absolute() ? p : dir_ / p).string());
  }

  ops::IValue tuple(const nlohmann::ordered_json& items, const std::string& where,
                    int depth) const {
    if (!items.is_array()) fail(where, "\"$tuple\" takes a list of values");
    ops::IValueList out;
    for (std::size_t i = 0; i < items.size(); ++i) {
      out.push_back(read(items[i], fmt::format("{}[{}]", where, i), depth + 1));
    }
    return ops::IValue::tuple(std::move(out));
  }

  ops::IValue dict(const nlohmann::ordered_json& pairs, const std::string& where, int depth) const {
    if (!pairs.is_array()) fail(where, "\"$dict\" takes a list of [key, value] pairs");
    auto d = std::make_shared<ops::Dict>();
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto& pair = pairs[i];
      std::string at = fmt::format("{}[{}]", where, i);
      if (!pair.is_array() || pair.size() != 2) fail(at, "a \"$dict\" item is a [key, value] pair");
      d->items.emplace_back(read(pair[0], at + "[0]", depth + 1),
                            read(pair[1], at + "[1]", depth + 1));
    }
    return ops::IValue::dict(std::move(d));
  }

  ops::IValue special_float(const nlohmann::ordered_json& name, const std::string& where) const {
    const std::string s = name.is_string() ? name.get<std::string>() : "";
    if (s == "nan") return ops::IValue(std::numeric_limits<double>::quiet_NaN());
    if (s == "inf") return ops::IValue(std::numeric_limits<double>::infinity());
    if (s == "-inf") return ops::IValue(-std::numeric_limits<double>::infinity());
    fail(where, R"("$float" is "nan", "inf" or "-inf")");
  }

  std::string path_;
  fs::path dir_;
};

// A value as JSON; `tensor_file(t)` writes a tensor and returns the name to refer to it by.
nlohmann::ordered_json to_json(const ops::IValue& v,
                               const std::function<std::string(const tensor::Tensor&)>& tensor_file,
                               bool objects_as_repr) {
  using Kind = ops::IValue::Kind;
  switch (v.kind()) {
    case Kind::kNone:
      return nullptr;
    case Kind::kBool:
      return v.to_bool();
    case Kind::kInt:
      return v.to_int();
    case Kind::kDouble: {
      double d = v.to_double();
      if (std::isnan(d)) return {{"$float", "nan"}};
      if (std::isinf(d)) return {{"$float", d > 0 ? "inf" : "-inf"}};
      return d;
    }
    case Kind::kString:
      return v.to_string();
    case Kind::kTensor:
      return {{"$tensor", tensor_file(v.to_tensor())}};
    case Kind::kList:
    case Kind::kTuple: {
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (const auto& item : v.is(Kind::kList) ? v.to_list() : v.to_tuple()) {
        items.push_back(to_json(item, tensor_file, objects_as_repr));
      }
      if (v.is(Kind::kList)) return items;
      return {{"$tuple", std::move(items)}};
    }
    case Kind::kDict: {
      const auto& items = v.to_dict().items;
      bool string_keys = true;
      for (const auto& [key, value] : items) string_keys = string_keys && key.is(Kind::kString);
      if (string_keys) {
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        for (const auto& [key, value] : items)
          out[key.to_string()] = to_json(value, tensor_file, objects_as_repr);
        return out;
      }
      nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
      for (const auto& [key, value] : items) {
        pairs.push_back({to_json(key, tensor_file, objects_as_repr),
                         to_json(value, tensor_file, objects_as_repr)});
      }
      return {{"$dict", std::move(pairs)}};
    }
    case Kind::kObject:
    case Kind::kDevice:
      if (objects_as_repr) return {{"$repr", v.repr()}};
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("a {} is not an input file's value", v.kind_name()));
  }
  return nullptr;
}

}  // namespace

ops::IValue parse_input_json(std::string_view text, const std::string& path) {
  nlohmann::ordered_json j;
  try {
    // First a pass that builds nothing: it finds integers past 64 bits (the DOM would make
    // them doubles) and nesting past the limit, before any value is built.
    PreCheck check(path);
    nlohmann::ordered_json::sax_parse(text, &check);
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kFormat, fmt::format("{}: {}", path, e.what()));
  }
  return JsonReader(path).read(j, "");
}

ops::IValue read_input_file(const std::string& path) {
  if (path.ends_with(".json")) {
    Bytes text = map_file(path);
    return parse_input_json(text.str(), path);
  }
  return read_tensor(path);
}

std::string write_input_file(const std::string& stem, const ops::IValue& value) {
  if (value.is(ops::IValue::Kind::kTensor)) {
    std::string path = stem + ".npy";
    tensor::write_npy_file(path, value.to_tensor());
    return path;
  }
  std::size_t tensors = 0;
  nlohmann::ordered_json j = to_json(
      value,
      [&](const tensor::Tensor& t) {
        std::string file = fmt::format("{}_{}.npy", stem, tensors++);
        tensor::write_npy_file(file, t);
        return fs::path(file).filename().string();
      },
      false);
  std::string path = stem + ".json";
  write_file_atomically(path, json_text(j, -1) + "\n");
  return path;
}

nlohmann::ordered_json write_result_files(const ops::IValue& result, const std::string& dir,
                                          OutputFiles* files) {
  std::size_t tensors = 0;
  return to_json(
      result,
      [&](const tensor::Tensor& t) {
        std::string name = fmt::format("output_{}.npy", tensors++);
        if (files != nullptr) files->stage((fs::path(dir) / name).string(), tensor::write_npy(t));
        return name;
      },
      true);
}

}  // namespace symbolite::runtime
