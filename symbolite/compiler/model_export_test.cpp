// The recorder's two handle schemes on a real model: PyTorch's counter (in export order, from
// where the counter stands, refusing to wrap) and stable content-derived handles.
#include "symbolite/compiler/model_export.h"

#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "symbolite/compiler/lifter.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::compiler {
namespace {

Program lstm() { return lift(mobile::ModelInfo::load(testing::fixture_path("models/lstm.ptl"))); }

std::vector<debuginfo::DebugHandle> all_handles(const EmittedProgram& emitted) {
  std::vector<debuginfo::DebugHandle> out;
  for (const auto& [name, handles] : emitted.debug.function_handles)
    out.insert(out.end(), handles.begin(), handles.end());
  return out;
}

TEST(HandleSchemes, CounterHandsOutOneHandlePerInstructionInExportOrder) {
  Program program = lstm();
  debuginfo::DebugHandleCounter counter(100);
  debuginfo::DebugInfoRecorder recorder(counter);
  EmittedProgram emitted = emit_program(program, HandleScheme::kCounter, recorder);
  auto handles = all_handles(emitted);
  ASSERT_FALSE(handles.empty());
  for (std::size_t i = 0; i < handles.size(); ++i)
    EXPECT_EQ(handles[i], 100 + static_cast<std::int64_t>(i));
  EXPECT_EQ(emitted.debug.infos.size(), handles.size());
}

TEST(HandleSchemes, CounterRefusesToWrap) {
  Program program = lstm();
  debuginfo::DebugHandleCounter counter(std::numeric_limits<std::int64_t>::max() - 3);
  debuginfo::DebugInfoRecorder recorder(counter);
  try {
    emit_program(program, HandleScheme::kCounter, recorder);
    FAIL() << "wrapped";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLimit);
  }
}

TEST(HandleSchemes, StableHandlesAreUniqueAndIndependentOfTheCounter) {
  Program program = lstm();
  debuginfo::DebugHandleCounter a(0), b(12345);
  debuginfo::DebugInfoRecorder ra(a), rb(b);
  auto first = all_handles(emit_program(program, HandleScheme::kStable, ra));
  auto second = all_handles(emit_program(program, HandleScheme::kStable, rb));
  EXPECT_EQ(first, second);
  EXPECT_EQ(std::set<debuginfo::DebugHandle>(first.begin(), first.end()).size(), first.size());
  for (auto h : first) EXPECT_GE(h, 0);
}

}  // namespace
}  // namespace symbolite::compiler
