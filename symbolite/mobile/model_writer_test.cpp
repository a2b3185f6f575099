// write_model: a fixture model rewritten with its own bytecode and the debug records built
// from what symbolite read symbolicates every handle as the original does, and is written
// byte for byte the same twice. ModelWriterExport writes such copies for the PyTorch interop
// check (tests/interop/check_rewritten_models.py) when SYMBOLITE_REWRITE_OUT is set.
#include "symbolite/mobile/model_writer.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "symbolite/debuginfo/model_debug_info.h"
#include "symbolite/mobile/bytecode_writer.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/same_symbolication.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::mobile {
namespace {

using symbolite::testing::fixture_path;

// The model at `path` rewritten into `out` from what symbolite reads of it.
void rewrite(const std::string& path, const std::string& out) {
  auto model = ModelInfo::load(path);
  ASSERT_TRUE(model.bytecode.has_value()) << path;
  std::optional<debuginfo::DebugRecords> debug;
  if (model.debug.has_callstack_map || model.debug.has_handle_table) {
    debug = debuginfo::debug_records_from(model.debug.handles, model.debug.table);
  }
  write_model(model.archive, *model.bytecode, debug ? &*debug : nullptr, out);
}

std::vector<std::uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class ModelRewrite : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelRewrite, EveryHandleSymbolicatesAsInTheOriginal) {
  std::string original_path = fixture_path("models/" + GetParam());
  symbolite::testing::ScratchDir dir;
  std::string once = dir.file("once.ptl");
  std::string twice = dir.file("twice.ptl");
  rewrite(original_path, once);
  rewrite(original_path, twice);
  EXPECT_EQ(file_bytes(once), file_bytes(twice));

  auto original = ModelInfo::load(original_path);
  auto copy = ModelInfo::load(once);
  EXPECT_EQ(copy.debug.has_handle_table, original.debug.has_handle_table);
  EXPECT_EQ(copy.debug.table.handles(), original.debug.table.handles());
  EXPECT_EQ(copy.debug.handles.functions().size(), original.debug.handles.functions().size());
  auto a = original.symbolicator();
  auto b = copy.symbolicator();
  auto handles = original.debug.table.handles();
  handles.push_back(-1);
  for (auto h : handles) {
    symbolite::testing::expect_same_symbolication(a.symbolicate(h), b.symbolicate(h), true);
  }
  // The rewritten model rewrites to itself.
  std::string again = dir.file("again.ptl");
  rewrite(once, again);
  EXPECT_EQ(file_bytes(again), file_bytes(once));
}

// Every committed model, with debug info or without.
INSTANTIATE_TEST_SUITE_P(Fixtures, ModelRewrite,
                         ::testing::ValuesIn(symbolite::testing::fixture_files("models", ".ptl")),
                         [](const auto& info) {
                           return symbolite::testing::param_name(info.param);
                         });

TEST(ModelWriter, RecordsKeepPyTorchsOrder) {
  auto model = ModelInfo::load(fixture_path("models/nested.ptl"));
  auto debug = debuginfo::debug_records_from(model.debug.handles, model.debug.table);
  auto bytes = write_model_bytes(model.archive, *model.bytecode, &debug);
  auto copy = archive::ModelArchive::from_bytes(Bytes::from_vector(std::move(bytes)), "copy");
  std::vector<std::string> kept;
  for (const auto& r : model.archive.records()) {
    if (r != "bytecode.pkl" && r != "mobile_debug_handles.pkl" && r != "callstack_debug_map.pkl" &&
        !r.ends_with(".debug_pkl") && r != "version") {
      kept.push_back(r);
    }
  }
  kept.insert(kept.end(),
              {"bytecode.pkl", "mobile_debug_handles.pkl",
               std::string(debuginfo::kSourceRangesRecord), "callstack_debug_map.pkl", "version"});
  EXPECT_EQ(copy.records(), kept);
  EXPECT_EQ(copy.record_folder(), model.archive.record_folder());

  auto plain = archive::ModelArchive::from_bytes(
      Bytes::from_vector(write_model_bytes(model.archive, *model.bytecode, nullptr)), "plain");
  EXPECT_FALSE(plain.has_record("callstack_debug_map.pkl"));
  EXPECT_FALSE(plain.has_record("mobile_debug_handles.pkl"));
  EXPECT_TRUE(plain.has_record("bytecode.pkl"));
}

TEST(ModelWriter, EmptyDebugRecordsAndUnknownRanges) {
  auto model = ModelInfo::load(fixture_path("models/nested.ptl"));
  debuginfo::DebugRecords empty;
  auto copy = archive::ModelArchive::from_bytes(
      Bytes::from_vector(write_model_bytes(model.archive, *model.bytecode, &empty)), "empty");
  EXPECT_TRUE(debuginfo::ModelDebugInfo::load(copy).table.empty());

  // An unknown range on the row and on a frame: both read back as unknown.
  debuginfo::DebugRecords unknown;
  auto frame = std::make_shared<debuginfo::InlinedCallStack>(
      debuginfo::ModuleInstance{"__torch__.A", "a"}, debuginfo::SourceRange(), -1, "forward",
      nullptr);
  unknown.infos[3] = debuginfo::DebugInfo{debuginfo::SourceRange(), -1, "aten::add", frame};
  unknown.function_handles.emplace_back("__torch__.M.forward",
                                        std::vector<debuginfo::DebugHandle>{3});
  auto with_unknown = archive::ModelArchive::from_bytes(
      Bytes::from_vector(write_model_bytes(model.archive, *model.bytecode, &unknown)), "unknown");
  auto info = debuginfo::ModelDebugInfo::load(with_unknown);
  const auto* read = info.table.find(3);
  ASSERT_NE(read, nullptr);
  EXPECT_FALSE(read->range.known());
  ASSERT_NE(read->call_stack, nullptr);
  EXPECT_FALSE(read->call_stack->callsite().known());
  EXPECT_EQ(read->call_stack->module_instance()->instance_name, "a");
}

TEST(ModelWriter, MissingTensorStorageAndUnwritablePath) {
  auto model = ModelInfo::load(fixture_path("models/nested.ptl"));
  Bytecode bytecode = *model.bytecode;
  pickle::TensorRef t;
  t.storage = pickle::StorageRef{"Float", "99", "cpu", 1};
  bytecode.functions[0].constants.push_back(pickle::Value::tensor(t));
  EXPECT_THROW(write_model_bytes(model.archive, bytecode, nullptr), Error);
  try {
    write_model(model.archive, *model.bytecode, nullptr, "/nonexistent-dir/x.ptl");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.ptl"), std::string::npos) << e.what();
  }
}

// `records` with every range unknown: rows and call sites (call-stack sharing kept).
debuginfo::DebugRecords without_ranges(debuginfo::DebugRecords records) {
  std::map<const debuginfo::InlinedCallStack*, debuginfo::InlinedCallStackPtr> done;
  auto strip = [&](auto&& self,
                   const debuginfo::InlinedCallStackPtr& cs) -> debuginfo::InlinedCallStackPtr {
    if (!cs) return nullptr;
    auto& slot = done[cs.get()];
    if (!slot) {
      slot = std::make_shared<debuginfo::InlinedCallStack>(
          cs->module_instance(), debuginfo::SourceRange(), debuginfo::kNoSourceRangeTag,
          cs->function_name(), self(self, cs->callee()));
    }
    return slot;
  };
  for (auto& [handle, info] : records.infos) {
    info.range = debuginfo::SourceRange();
    info.call_stack = strip(strip, info.call_stack);
  }
  return records;
}

TEST(ModelWriter, EveryRangeUnknown) {
  auto model = ModelInfo::load(fixture_path("models/nested.ptl"));
  auto records =
      without_ranges(debuginfo::debug_records_from(model.debug.handles, model.debug.table));
  symbolite::testing::ScratchDir dir;
  write_model(model.archive, *model.bytecode, &records, dir.file("unknown.ptl"));
  auto copy = ModelInfo::load(dir.file("unknown.ptl"));
  auto a = model.symbolicator();
  auto b = copy.symbolicator();
  for (auto h : model.debug.table.handles()) {
    auto x = a.symbolicate(h);
    auto y = b.symbolicate(h);
    EXPECT_EQ(x.module_hierarchy, y.module_hierarchy) << h;
    for (const auto& frame : y.frames) EXPECT_FALSE(frame.range.known()) << h;
  }
}

// Writes rewritten copies for the interop check: every .ptl of SYMBOLITE_REWRITE_IN (default:
// the committed fixture models) into SYMBOLITE_REWRITE_OUT, and with the default input also
// nested_unknown_ranges.ptl: nested.ptl with every range unknown. Skipped when that is unset.
TEST(ModelWriterExport, WriteRewrittenModels) {
  const char* out = std::getenv("SYMBOLITE_REWRITE_OUT");
  if (out == nullptr) GTEST_SKIP() << "SYMBOLITE_REWRITE_OUT not set";
  const char* in = std::getenv("SYMBOLITE_REWRITE_IN");
  std::string in_dir = in != nullptr ? in : fixture_path("models");
  for (const auto& entry : std::filesystem::directory_iterator(in_dir)) {
    if (entry.path().extension() != ".ptl") continue;
    rewrite(entry.path().string(), (std::filesystem::path(out) / entry.path().filename()).string());
  }
  if (in == nullptr) {
    auto model = ModelInfo::load(fixture_path("models/nested.ptl"));
    auto records =
        without_ranges(debuginfo::debug_records_from(model.debug.handles, model.debug.table));
    write_model(model.archive, *model.bytecode, &records,
                (std::filesystem::path(out) / "nested_unknown_ranges.ptl").string());
  }
}

}  // namespace
}  // namespace symbolite::mobile
