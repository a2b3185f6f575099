#include "symbolite/debuginfo/debug_info_recorder.h"

#include <limits>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/support/error.h"

namespace symbolite::debuginfo {
namespace {

DebugInfo op(std::string kind) {
  DebugInfo info;
  info.node_kind = std::move(kind);
  return info;
}

TEST(DebugInfoRecorder, IssuesConsecutiveHandlesAndHandsOverTheMap) {
  DebugHandleCounter counter(100);
  DebugInfoRecorder recorder(counter);
  EXPECT_EQ(recorder.record(op("aten::add")), 100);
  EXPECT_EQ(recorder.record(op("aten::mul")), 101);
  DebugInfoMap map = recorder.stop_recording();
  ASSERT_EQ(map.size(), 2u);
  EXPECT_EQ(map.at(100).node_kind, "aten::add");
  EXPECT_EQ(map.at(101).node_kind, "aten::mul");
}

TEST(DebugInfoRecorder, HandlesAreUniqueAcrossRecordersSharingACounter) {
  DebugHandleCounter counter;
  DebugInfoRecorder a(counter);
  DebugInfoRecorder b(counter);
  DebugHandle first = a.record(op("x"));
  DebugHandle second = b.record(op("y"));
  EXPECT_NE(first, second);
}

TEST(DebugInfoRecorder, ConcurrentIssuersGetDistinctHandlesAndAllAreRecorded) {
  DebugHandleCounter counter;
  DebugInfoRecorder recorder(counter);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 5000;
  std::vector<std::vector<DebugHandle>> issued(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) issued[t].push_back(recorder.record(op("aten::relu")));
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<DebugHandle> all;
  for (const auto& v : issued) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
  DebugInfoMap map = recorder.stop_recording();
  EXPECT_EQ(map.size(), all.size());
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), kThreads * kPerThread - 1);
}

TEST(DebugInfoRecorder, CounterOverflowIsReportedNotWrapped) {
  constexpr DebugHandle kMax = std::numeric_limits<DebugHandle>::max();
  DebugHandleCounter counter(kMax - 2);
  DebugInfoRecorder recorder(counter);
  EXPECT_EQ(recorder.record(op("a")), kMax - 2);
  EXPECT_EQ(recorder.record(op("b")), kMax - 1);
  try {
    recorder.record(op("c"));
    FAIL() << "expected the exhausted counter to throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLimit);
    EXPECT_NE(std::string(e.what()).find("exhausted"), std::string::npos);
  }
  // It stays exhausted, and the failed call recorded nothing.
  EXPECT_THROW(counter.next(), Error);
  EXPECT_EQ(recorder.stop_recording().size(), 2u);
}

TEST(DebugInfoRecorder, OverflowUnderConcurrencyNeverIssuesADuplicate) {
  constexpr DebugHandle kMax = std::numeric_limits<DebugHandle>::max();
  DebugHandleCounter counter(kMax - 1000);
  std::vector<std::vector<DebugHandle>> issued(4);
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        try {
          issued[t].push_back(counter.next());
        } catch (const Error&) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<DebugHandle> all;
  std::size_t total = 0;
  for (const auto& v : issued) {
    all.insert(v.begin(), v.end());
    total += v.size();
  }
  EXPECT_EQ(all.size(), total);
  EXPECT_EQ(total, 1000u);
  EXPECT_EQ(failures[0] + failures[1] + failures[2] + failures[3], 1000);
}

TEST(DebugInfoRecorder, RecordAfterStopIsAUsageError) {
  DebugHandleCounter counter;
  DebugInfoRecorder recorder(counter);
  recorder.stop_recording();
  try {
    recorder.record(op("a"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUsage);
  }
}

}  // namespace
}  // namespace symbolite::debuginfo
