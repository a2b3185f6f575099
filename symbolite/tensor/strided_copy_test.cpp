// copy_strided against a plain element-by-element walk of the same view: transposes and
// permutations (ShuffleNet's channel shuffle), stepped views, size-1 and empty dims, every
// element size, and copies large enough to be split across threads.
#include "symbolite/tensor/strided_copy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

namespace symbolite::tensor {
namespace {

struct View {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;  // in elements
};

// The view's elements in row-major order, one index step at a time.
template <typename T>
std::vector<T> walk(const std::vector<T>& base, const View& v) {
  std::vector<T> out;
  std::int64_t count = 1;
  for (std::int64_t s : v.sizes) count *= s;
  std::vector<std::int64_t> index(v.sizes.size(), 0);
  for (std::int64_t n = 0; n < count; ++n) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * v.strides[d];
    out.push_back(base[static_cast<std::size_t>(offset)]);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < v.sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

template <typename T>
void expect_copies(const View& v) {
  std::int64_t span = 1;
  for (std::size_t d = 0; d < v.sizes.size(); ++d) span += (v.sizes[d] - 1) * v.strides[d];
  std::vector<T> base(static_cast<std::size_t>(std::max<std::int64_t>(span, 1)));
  std::iota(base.begin(), base.end(), T(1));
  std::vector<T> expected = walk(base, v);
  std::vector<T> got(expected.size() + 1, T(0));  // one spare: nothing written past the end
  copy_strided(reinterpret_cast<const std::uint8_t*>(base.data()), v.sizes, v.strides, sizeof(T),
               reinterpret_cast<std::uint8_t*>(got.data()));
  EXPECT_EQ(got.back(), T(0));
  got.pop_back();
  EXPECT_EQ(got, expected);
}

std::vector<View> views() {
  return {
      {{}, {}},                                         // a scalar
      {{5}, {1}},                                       // contiguous
      {{7}, {3}},                                       // stepped
      {{4, 6}, {1, 4}},                                 // transposed
      {{37, 19}, {1, 40}},                              // transposed by tiles, ragged edges
      {{2, 13, 21}, {600, 1, 13}},                      // a batch of them
      {{2, 3, 9, 16}, {2000, 500, 1, 9}},               // two dims of them (NCHW -> NHWC)
      {{3, 1, 5}, {5, 99, 1}},                          // size-1 dim with any stride
      {{2, 0, 3}, {0, 3, 1}},                           // empty
      {{1, 2, 24, 28, 28}, {37632, 784, 1568, 28, 1}},  // channel shuffle: view + transpose(1, 2)
      {{2, 3, 4, 5}, {60, 1, 15, 3}},                   // permuted (0, 3, 1, 2) of NCHW
      {{64, 130, 17}, {17, 64 * 17, 1}},                // permuted, large enough for threads
      {{300, 257}, {1, 300}},                           // a large transpose: inner stride 300
  };
}

TEST(StridedCopy, MatchesElementByElementWalk) {
  for (const View& v : views()) {
    SCOPED_TRACE(::testing::PrintToString(v.sizes) + " " + ::testing::PrintToString(v.strides));
    expect_copies<std::uint8_t>(v);
    expect_copies<std::uint16_t>(v);
    expect_copies<float>(v);
    expect_copies<double>(v);
  }
}

}  // namespace
}  // namespace symbolite::tensor
