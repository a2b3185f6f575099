// Real pickles written by PyTorch 1.13 and Python's pickle, compared with what Python's own
// unpickler read from them (tests/fixtures/pickle/make_pickles.py writes both).
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/pickle/unpickler.h"
#include "symbolite/pickle/unpickler_test_util.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::pickle {
namespace {

using nlohmann::json;
using test::read_pickle_fixture;

json expected_values() {
  std::ifstream in(symbolite::testing::fixture_path("pickle/expected.json"));
  return json::parse(in);
}

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// Walks a Value alongside its JSON encoding (see make_pickles.py) and reports mismatches
// with the path to them. Node ids check sharing both ways: the same Python object must be
// the same symbolite node, and different objects different nodes.
class Matcher {
 public:
  void match(const Value& value, const json& expected, const std::string& path) {
    if (expected.is_null()) {
      expect_kind(value, Value::Kind::kNone, path);
      return;
    }
    if (expected.is_boolean()) {
      if (expect_kind(value, Value::Kind::kBool, path)) {
        EXPECT_EQ(value.as_bool(), expected.get<bool>()) << path;
      }
      return;
    }
    if (expected.is_number_integer()) {
      if (expect_kind(value, Value::Kind::kInt, path)) {
        EXPECT_EQ(value.as_int(), expected.get<std::int64_t>()) << path;
      }
      return;
    }
    if (expected.is_string()) {
      if (expect_kind(value, Value::Kind::kString, path)) {
        EXPECT_EQ(value.as_string(), expected.get<std::string>()) << path;
      }
      return;
    }
    ASSERT_TRUE(expected.is_object()) << path << ": bad expectation " << expected.dump();
    if (expected.contains("same_as")) {
      int id = expected["same_as"].get<int>();
      ASSERT_TRUE(ids_.count(id)) << path;
      EXPECT_EQ(value.identity(), ids_[id]) << path << ": expected the node shared with #" << id;
      return;
    }
    if (expected.contains("float")) return match_float(value, expected["float"], path);
    if (expected.contains("bytes")) {
      if (expect_kind(value, Value::Kind::kString, path)) {
        EXPECT_EQ(hex(value.as_string()), expected["bytes"]) << path;
      }
      return;
    }
    if (expected.contains("global")) {
      if (expect_kind(value, Value::Kind::kGlobal, path)) {
        EXPECT_EQ(value.as_global(), expected["global"]) << path;
      }
      return;
    }
    if (expected.contains("storage")) {
      if (expect_kind(value, Value::Kind::kStorage, path)) {
        match_storage(value.as_storage(), expected["storage"], path);
      }
      return;
    }
    match_node(value, expected, path);
  }

 private:
  // Whether `value` has `kind`; a mismatch fails the test.
  bool expect_kind(const Value& value, Value::Kind kind, const std::string& path) {
    EXPECT_EQ(value.kind_name(), Value::kind_name(kind)) << path;
    return value.is(kind);
  }

  void match_float(const Value& value, const json& repr, const std::string& path) {
    if (!expect_kind(value, Value::Kind::kDouble, path)) return;
    double want = std::strtod(repr.get<std::string>().c_str(), nullptr);
    double got = value.as_double();
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << path;
    } else {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want))
          << path << ": " << got << " vs " << repr;
    }
  }

  void match_storage(const StorageRef& storage, const json& expected, const std::string& path) {
    EXPECT_EQ(storage.dtype, expected["dtype"]) << path;
    EXPECT_EQ(storage.key, expected["key"]) << path;
    EXPECT_EQ(storage.device, expected["device"]) << path;
    EXPECT_EQ(storage.numel, expected["numel"]) << path;
  }

  void match_node(const Value& value, const json& expected, const std::string& path) {
    if (expected.contains("id")) {
      int id = expected["id"].get<int>();
      ids_[id] = value.identity();
      auto [it, fresh] = owners_.emplace(value.identity(), id);
      EXPECT_TRUE(fresh) << path << ": node #" << id << " is the same node as #" << it->second;
    }
    auto items = [&](Value::Kind kind, const json& list) {
      if (!expect_kind(value, kind, path)) return;
      const ValueList& got = value.as_sequence();
      ASSERT_EQ(got.size(), list.size()) << path;
      for (std::size_t i = 0; i < got.size(); ++i)
        match(got[i], list[i], fmt::format("{}[{}]", path, i));
    };
    if (expected.contains("tuple")) return items(Value::Kind::kTuple, expected["tuple"]);
    if (expected.contains("list")) return items(Value::Kind::kList, expected["list"]);
    if (expected.contains("dict")) {
      if (!expect_kind(value, Value::Kind::kDict, path)) return;
      const DictItems& got = value.as_dict();
      const json& want = expected["dict"];
      ASSERT_EQ(got.size(), want.size()) << path;
      for (std::size_t i = 0; i < got.size(); ++i) {
        std::string where = fmt::format("{}{{{}}}", path, got[i].first.debug_string(40));
        match(got[i].first, want[i][0], where + ".key");
        match(got[i].second, want[i][1], where);
      }
      return;
    }
    if (expected.contains("object")) {
      if (!expect_kind(value, Value::Kind::kObject, path)) return;
      EXPECT_EQ(value.as_object().type_name, expected["object"]) << path;
      return match(value.as_object().state, expected["state"], path + ".state");
    }
    if (expected.contains("tensor")) {
      if (!expect_kind(value, Value::Kind::kTensor, path)) return;
      const TensorRef& tensor = value.as_tensor();
      const json& want = expected["tensor"];
      match_storage(tensor.storage, want["storage"]["storage"], path + ".storage");
      EXPECT_EQ(tensor.storage_offset, want["offset"]) << path;
      EXPECT_EQ(tensor.sizes, want["sizes"].get<std::vector<std::int64_t>>()) << path;
      EXPECT_EQ(tensor.strides, want["strides"].get<std::vector<std::int64_t>>()) << path;
      EXPECT_EQ(tensor.requires_grad, want["requires_grad"]) << path;
      return;
    }
    ADD_FAILURE() << path << ": unknown expectation " << expected.dump();
  }

  std::map<int, const void*> ids_;
  std::map<const void*, int> owners_;
};

TEST(UnpicklerFixtures, EveryFixtureMatchesPython) {
  json expected = expected_values();
  ASSERT_GE(expected.size(), 8u);
  for (const auto& [name, value] : expected.items()) {
    SCOPED_TRACE(name);
    Value parsed = unpickle(read_pickle_fixture(name));
    Matcher().match(parsed, value, name);
  }
}

const Value& attribute(const Value& object, std::string_view name) {
  for (const auto& [key, value] : object.as_object().state.as_dict()) {
    if (key.as_string() == name) return value;
  }
  throw std::runtime_error("no attribute " + std::string(name));
}

TEST(UnpicklerFixtures, DataPklHoldsParametersAndBuffers) {
  Value model = unpickle(read_pickle_fixture("data.pkl"));
  EXPECT_EQ(model.as_object().type_name, "__torch__.pickle_models.Model");

  const TensorRef& steps = attribute(model, "steps").as_tensor();
  EXPECT_EQ(steps.storage.dtype, "Long");
  EXPECT_EQ(steps.storage.key, "0");
  EXPECT_EQ(steps.storage.device, "cpu");
  EXPECT_EQ(steps.storage.numel, 2);
  EXPECT_EQ(steps.sizes, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(steps.strides, (std::vector<std::int64_t>{1}));
  EXPECT_FALSE(steps.requires_grad);

  const Value& linear = attribute(attribute(model, "a"), "lin");
  EXPECT_EQ(linear.as_object().type_name, "__torch__.torch.nn.modules.linear.Linear");
  const TensorRef& weight = attribute(linear, "weight").as_tensor();
  EXPECT_EQ(weight.storage.dtype, "Float");
  EXPECT_EQ(weight.storage.numel, 4);
  EXPECT_EQ(weight.sizes, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(weight.strides, (std::vector<std::int64_t>{2, 1}));
  EXPECT_TRUE(weight.requires_grad);

  EXPECT_EQ(attribute(model, "counts").as_dict()[0].second.as_int(), std::int64_t{1} << 40);
  EXPECT_EQ(attribute(model, "scale").as_double(), 0.5);
  EXPECT_EQ(attribute(model, "floats").debug_string(), "[1.5, -2.0]");  // build_doublelist

  // torch.zeros(2, 3).t(), torch.ones(3, dtype=torch.float16), arange(4).view(2, 2)[:, 1]
  const ValueList& tensors = attribute(model, "tensors").as_list();
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].as_tensor().sizes, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(tensors[0].as_tensor().strides, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(tensors[1].as_tensor().storage.dtype, "Half");
  const TensorRef& column = attribute(model, "by_name").as_dict()[0].second.as_tensor();
  EXPECT_EQ(column.storage.numel, 4);
  EXPECT_EQ(column.storage_offset, 1);
  EXPECT_EQ(column.sizes, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(column.strides, (std::vector<std::int64_t>{2}));
}

TEST(UnpicklerFixtures, StringsViewTheInput) {
  Bytes data = read_pickle_fixture("data.pkl");
  Value model = unpickle(data);
  const Bytes& name = attribute(model, "pair").as_tuple()[1].as_string_bytes();
  EXPECT_EQ(name.str(), "seven");
  EXPECT_EQ(name.owner(), data.owner());
  EXPECT_GE(name.data(), data.data());
  EXPECT_LE(name.data() + name.size(), data.data() + data.size());
}

TEST(UnpicklerFixtures, CallstackMapSharesMemoizedTuples) {
  Value map = unpickle(read_pickle_fixture("callstack_debug_map.pkl"));
  // Entries are (debug_handle, source_range_tag, node_name, inlined_call_stack | None); a
  // call stack is (module_instance_info, source_range_tag, callee | None, function_name).
  std::map<const void*, int> module_info_seen;
  std::map<const void*, int> call_stacks_seen;
  for (const Value& entry : map.as_tuple()) {
    const Value& call_stack = entry.as_tuple()[3];
    if (call_stack.is_none()) continue;
    ++call_stacks_seen[call_stack.identity()];
    ++module_info_seen[call_stack.as_tuple()[0].identity()];
  }
  // Both calls of `a` share one ('__torch__.pickle_models.Sub', 'a') tuple, and repeated
  // call stacks are one node reached again through BINGET.
  ASSERT_FALSE(module_info_seen.empty());
  EXPECT_EQ(module_info_seen.size(), 1u);
  int most_shared = 0;
  for (const auto& [identity, count] : call_stacks_seen) most_shared = std::max(most_shared, count);
  EXPECT_GT(most_shared, 1);
  EXPECT_LT(call_stacks_seen.size(), map.as_tuple().size());
}

TEST(UnpicklerFixtures, DebugPklFormats) {
  Value with_table = unpickle(read_pickle_fixture("debug_string_table.pkl"));
  const ValueList& parts = with_table.as_tuple();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].as_string(), "FORMAT_WITH_STRING_TABLE");
  EXPECT_EQ(parts[1].as_tuple()[4].as_string(), "pickle_models.py");
  // (byte_offset, ((line_indices, filename_index, starting_line), start, end), tag)
  const Value& range = parts[2].as_tuple()[1].as_tuple()[1];
  EXPECT_EQ(range.as_tuple()[0].as_tuple()[0].as_list().size(), 4u);

  Value legacy = unpickle(read_pickle_fixture("debug_legacy.pkl"));
  // (byte_offset, ((text, filename, starting_line), start, end), tag)
  const ValueList& source = legacy.as_tuple()[1].as_tuple()[1].as_tuple()[0].as_tuple();
  EXPECT_EQ(source[1].as_string(), "pickle_models.py");
  EXPECT_NE(source[0].as_string().find("def forward"), std::string_view::npos);
}

TEST(UnpicklerFixtures, BytecodeAndDebugHandles) {
  Value bytecode = unpickle(read_pickle_fixture("bytecode.pkl"));
  EXPECT_EQ(bytecode.as_tuple()[0].as_int(), 8);  // bytecode version
  const ValueList& method = bytecode.as_tuple()[1].as_tuple();
  EXPECT_EQ(method[0].as_string(), "__torch__.pickle_models.Model.forward");
  EXPECT_EQ(method[1].as_tuple()[0].as_tuple()[0].as_string(), "instructions");

  Value handles = unpickle(read_pickle_fixture("mobile_debug_handles.pkl"));
  const Value& list = handles.as_tuple()[1].as_tuple()[1].as_tuple()[0].as_tuple()[1].as_tuple()[0];
  EXPECT_EQ(list.as_list().size(), 40u);  // build_intlist -> a list of ints
  EXPECT_EQ(list.as_list()[39].as_int(), 39);
}

}  // namespace
}  // namespace symbolite::pickle
