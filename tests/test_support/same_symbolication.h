// Two answers for one debug handle from two sources of the same debug info (a model and its
// sidecar, a model and its rewritten copy) must agree: status, operator, site, module
// hierarchy, traceback and frames; with `explanations`, also the notes and the tags of lost
// ranges, which say why a range is unknown.
#pragma once

#include <gtest/gtest.h>

#include "symbolite/debuginfo/symbolication.h"

namespace symbolite::testing {

inline void expect_same_symbolication(const debuginfo::Symbolication& a,
                                      const debuginfo::Symbolication& b, bool explanations) {
  SCOPED_TRACE("handle " + std::to_string(a.handle));
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.module_hierarchy, b.module_hierarchy);
  EXPECT_EQ(a.traceback, b.traceback);
  if (explanations) {
    EXPECT_EQ(a.notes, b.notes);
  }
  ASSERT_EQ(a.site.has_value(), b.site.has_value());
  if (a.site) {
    EXPECT_EQ(a.site->function, b.site->function);
    EXPECT_EQ(a.site->instruction, b.site->instruction);
  }
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (std::size_t i = 0; i < a.frames.size(); ++i) {
    EXPECT_EQ(a.frames[i].range.start(), b.frames[i].range.start());
    EXPECT_EQ(a.frames[i].range.text(), b.frames[i].range.text());
    // Tags matter only where the range is lost (they explain why); only those are kept.
    if (explanations && !a.frames[i].range.known()) {
      EXPECT_EQ(a.frames[i].range_tag, b.frames[i].range_tag);
    }
  }
}

}  // namespace symbolite::testing
