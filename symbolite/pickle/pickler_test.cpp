// The pickler writes what the unpickler (and PyTorch) read back: round trips of real
// PyTorch pickles keep every value and every shared node; PyTorch 1.13 loads a model whose
// debug records and bytecode symbolite re-pickled and prints the same tracebacks.
#include "symbolite/pickle/pickler.h"

#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/archive/model_archive_writer.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::pickle {
namespace {

using symbolite::testing::fixture_path;
using symbolite::testing::source_path;

Value round_trip(const Value& v) {
  auto bytes = pickle(v);
  return unpickle(Bytes::from_vector(std::move(bytes)));
}

// How many times each shared node is reached, as a sorted multiset (identities differ
// between the two graphs, the sharing pattern must not).
std::multiset<std::size_t> sharing(const Value& root) {
  std::map<const void*, std::size_t> reached;
  std::vector<const Value*> todo{&root};
  while (!todo.empty()) {
    const Value* v = todo.back();
    todo.pop_back();
    const void* id = v->identity();
    if (id != nullptr && ++reached[id] > 1) continue;
    if (v->is(Value::Kind::kTuple) || v->is(Value::Kind::kList)) {
      for (const auto& item : v->as_sequence()) todo.push_back(&item);
    } else if (v->is(Value::Kind::kDict)) {
      for (const auto& [k, item] : v->as_dict()) {
        todo.push_back(&k);
        todo.push_back(&item);
      }
    } else if (v->is(Value::Kind::kObject)) {
      todo.push_back(&v->as_object().state);
    }
  }
  std::multiset<std::size_t> out;
  for (const auto& [id, n] : reached) out.insert(n);
  return out;
}

class RealPickle : public ::testing::TestWithParam<std::string> {};

TEST_P(RealPickle, RoundTripKeepsValuesAndSharing) {
  Value original = unpickle(map_file(fixture_path("pickle/" + GetParam())));
  Value copy = round_trip(original);
  EXPECT_EQ(copy.debug_string(1u << 30), original.debug_string(1u << 30));
  EXPECT_EQ(sharing(copy), sharing(original));
  // Writing is deterministic and stable under a second round trip.
  EXPECT_EQ(pickle(copy), pickle(original));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RealPickle,
                         ::testing::Values("bytecode.pkl", "callstack_debug_map.pkl",
                                           "debug_legacy.pkl", "debug_string_table.pkl",
                                           "mobile_debug_handles.pkl"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(0, n.find('.'));
                         });

TEST(Pickler, ScalarsOfEverySize) {
  for (std::int64_t i :
       std::vector<std::int64_t>{0, 1, 255, 256, 65535, 65536, -1, -129, 2147483647, 2147483648,
                                 -2147483648LL, -2147483649LL, INT64_MAX, INT64_MIN}) {
    EXPECT_EQ(round_trip(Value::integer(i)).as_int(), i);
  }
  for (double d : {0.0, -0.0, 1.5, -3.25e300, 1e-320}) {
    EXPECT_EQ(round_trip(Value::real(d)).as_double(), d);
  }
  EXPECT_EQ(round_trip(Value::string("snowman \xe2\x98\x83")).as_string(), "snowman \xe2\x98\x83");
  EXPECT_TRUE(round_trip(Value::none()).is_none());
  EXPECT_FALSE(round_trip(Value::boolean(false)).as_bool());
}

TEST(Pickler, ContainersObjectsAndTypedLists) {
  Value shared = Value::tuple({Value::integer(1), Value::string("x")});
  Value v = Value::tuple({
      Value::tuple({}),
      Value::tuple({shared}),
      Value::tuple({shared, shared, shared, shared}),
      Value::list({}),
      Value::list({Value::integer(1)}).with_list_tag(ListTag::kInt),
      Value::dict({{Value::string("k"), Value::list({shared})}}),
      Value::object("__torch__.M",
                    Value::dict({{Value::string("training"), Value::boolean(true)}})),
  });
  Value copy = round_trip(v);
  EXPECT_EQ(copy.debug_string(10000), v.debug_string(10000));
  EXPECT_EQ(sharing(copy), sharing(v));
  EXPECT_EQ(copy.as_tuple()[4].list_tag(), ListTag::kInt);
  EXPECT_EQ(copy.as_tuple()[3].list_tag(), ListTag::kGeneric);
}

TEST(Pickler, TensorsKeepTheirStorageReference) {
  TensorRef t;
  t.storage = StorageRef{"Float", "3", "cpu", 12};
  t.storage_offset = 2;
  t.sizes = {2, 5};
  t.strides = {5, 1};
  TensorRef u = t;  // another view of the same storage: its persistent id is written once
  u.storage_offset = 0;
  u.sizes = {12};
  u.strides = {1};
  u.requires_grad = true;
  Value v = Value::tuple(
      {Value::tensor(t), Value::list({Value::tensor(u)}).with_list_tag(ListTag::kTensor)});
  auto bytes = pickle(v);
  std::string text(bytes.begin(), bytes.end());
  EXPECT_EQ(text.find("storage", text.find("storage") + 1), std::string::npos);
  Value copy = unpickle(Bytes::from_vector(std::move(bytes)));
  EXPECT_EQ(copy.debug_string(10000), v.debug_string(10000));
  const TensorRef& back = copy.as_tuple()[0].as_tensor();
  EXPECT_EQ(back.storage.key, "3");
  EXPECT_EQ(back.storage.dtype, "Float");
  EXPECT_EQ(back.storage.numel, 12);
  EXPECT_EQ(back.storage_offset, 2);
  EXPECT_EQ(back.strides, (std::vector<std::int64_t>{5, 1}));
  EXPECT_TRUE(copy.as_tuple()[1].as_list()[0].as_tensor().requires_grad);
}

// PyTorch reads what we write: nested.ptl with its debug records and bytecode re-pickled by
// symbolite still gives PyTorch's own error texts (hierarchy and traceback included).
TEST(Pickler, PyTorchLoadsRepickledDebugRecords) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no PyTorch for /usr/bin/python3";
  }
  auto original = archive::ModelArchive::open(fixture_path("models/nested.ptl"));
  symbolite::testing::ScratchDir dir;
  std::string written = dir.file("nested.ptl");
  {
    archive::ModelArchiveWriter writer(archive::ZipWriter::to_file(written),
                                       original.record_folder());
    for (const auto& record : original.records()) {
      bool repickle = record == "bytecode.pkl" || record == "callstack_debug_map.pkl" ||
                      record == "mobile_debug_handles.pkl" || record.ends_with(".debug_pkl");
      if (!repickle) {
        writer.copy_record(original, record);
        continue;
      }
      auto bytes = pickle(unpickle(original.read_record(record)));
      writer.add_record(record, bytes, archive::pytorch_compression(record, bytes.size()));
    }
    writer.finish();
  }
  std::string command = "/usr/bin/python3 " +
                        source_path("tests/interop/check_repickled_model.py") + " " + written +
                        " " + fixture_path("goldens/nested.json");
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace symbolite::pickle
