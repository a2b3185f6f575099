// The sidecar carries everything needed to symbolicate: for every fixture model, every
// handle symbolicated from the sidecar alone equals the answer from the full model. Damaged
// sidecars fail with Error, never crash.
#include <gtest/gtest.h>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/debuginfo/sidecar_writer.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/same_symbolication.h"

namespace symbolite::mobile {
namespace {

using symbolite::testing::fixture_path;

std::vector<std::uint8_t> sidecar_for(const ModelInfo& model) {
  return debuginfo::write_sidecar(
      debuginfo::SidecarContents{compute_model_id(model.archive), model.top_type(),
                                 model.bytecode ? model.bytecode->version : 0, &model.debug.table,
                                 model.debug.has_handle_table ? &model.debug.handles : nullptr});
}

std::shared_ptr<debuginfo::SidecarReader> read(std::vector<std::uint8_t> bytes) {
  return debuginfo::SidecarReader::from_bytes(Bytes::from_vector(std::move(bytes)), "test.symdbg");
}

class SidecarRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(SidecarRoundTrip, EveryHandleSymbolicatesIdentically) {
  auto model = ModelInfo::load(fixture_path("models/" + GetParam()));
  auto sidecar = read(sidecar_for(model));
  EXPECT_EQ(sidecar->model_id(), compute_model_id(model.archive));
  EXPECT_EQ(sidecar->top_module_type(), model.top_type());
  auto handles = model.debug.table.handles();
  ASSERT_FALSE(handles.empty());
  EXPECT_EQ(sidecar->handles(), handles);

  auto from_model = model.symbolicator();
  debuginfo::Symbolicator from_sidecar(sidecar);
  // Every handle, plus misses around and between them.
  handles.push_back(handles.back() + 1);
  handles.push_back(-1);
  handles.push_back(handles.front() - 5);
  for (auto h : handles) {
    symbolite::testing::expect_same_symbolication(from_model.symbolicate(h),
                                                  from_sidecar.symbolicate(h), true);
  }
}

TEST_P(SidecarRoundTrip, WritingIsDeterministic) {
  auto bytes = sidecar_for(ModelInfo::load(fixture_path("models/" + GetParam())));
  EXPECT_EQ(bytes, sidecar_for(ModelInfo::load(fixture_path("models/" + GetParam()))));
}

TEST(SidecarWriter, AtMostHalfOfPyTorchsDebugRecords) {
  // PyTorch's debug records: the call-stack map and every *.debug_pkl (uncompressed), which
  // is what the sidecar replaces. Sizes on the zoo are in docs/PERFORMANCE.md.
  auto model = ModelInfo::load(fixture_path("models/nested.ptl"));
  std::uint64_t pytorch = 0;
  for (const auto& record : model.archive.records()) {
    if (record == "callstack_debug_map.pkl" || record.ends_with(".debug_pkl")) {
      pytorch += *model.archive.record_size(record);
    }
  }
  auto bytes = sidecar_for(model);
  EXPECT_LE(bytes.size(), pytorch / 2) << "sidecar " << bytes.size() << " vs " << pytorch;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SidecarRoundTrip,
                         ::testing::Values("nested.ptl", "nested_legacy.ptl", "tag_minus_one.ptl",
                                           "tag_minus_one_frame.ptl"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(0, n.find('.'));
                         });

TEST(SidecarReader, TruncatedAtEveryLengthFailsCleanly) {
  auto bytes = sidecar_for(ModelInfo::load(fixture_path("models/tag_minus_one_frame.ptl")));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    try {
      auto sidecar = read(cut);
      debuginfo::Symbolicator s(sidecar);
      for (auto h : sidecar->handles()) s.symbolicate(h);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("test.symdbg"), std::string::npos) << e.what();
    }
  }
}

TEST(SidecarReader, BitFlipsAtEveryByteParseOrFailCleanly) {
  auto bytes = sidecar_for(ModelInfo::load(fixture_path("models/tag_minus_one_frame.ptl")));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto flipped = bytes;
    flipped[i] ^= 0x41;
    try {
      auto sidecar = read(flipped);
      debuginfo::Symbolicator s(sidecar);
      for (auto h : sidecar->handles()) s.symbolicate(h);
    } catch (const Error&) {
    }
  }
}

TEST(SidecarReader, RejectsOtherFilesAndVersions) {
  try {
    read({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
          0,   0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kFormat);
    EXPECT_NE(std::string(e.what()).find("not a symbolite sidecar"), std::string::npos);
  }
  auto bytes = sidecar_for(ModelInfo::load(fixture_path("models/nested.ptl")));
  bytes[8] = 9;  // format version
  try {
    read(bytes);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("version 9"), std::string::npos);
  }
}

}  // namespace
}  // namespace symbolite::mobile
