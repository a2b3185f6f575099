// What torchvision 0.14's detection models call beyond the classification ones: torchvision's
// own operators (nms, roi_align: its CPU kernels' arithmetic and order), topk (PyTorch 1.13's
// selection algorithm, so ties come out in PyTorch's order), meshgrid, unbind, maximum /
// minimum of two tensors, and the aliases and conversions tracing records (detach, expand_as,
// _shape_as_tensor, to.other / to.device / to.dtype_layout, full_like).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/legacy_type_name.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// PyTorch's comparators for sort and topk: NaN counts as the largest value.
template <typename T>
bool greater_nan_first(T x, T y) {
  return (std::isnan(x) && !std::isnan(y)) || x > y;
}
template <typename T>
bool less_nan_last(T x, T y) {
  return (!std::isnan(x) && std::isnan(y)) || x < y;
}

// torchvision::nms(dets, scores, iou_threshold): indices of the boxes kept, by descending
// score; equal scores keep their index order (torchvision sorts with stable=true).
template <typename T>
Tensor nms_impl(const Tensor& dets_in, const Tensor& scores_in, double iou_threshold) {
  const std::int64_t n = dets_in.sizes()[0];
  if (dets_in.numel() == 0) return Tensor::empty({0}, DType::kInt64);
  Tensor dets = dets_in.contiguous();
  Tensor scores = scores_in.contiguous();
  const T* d = dets.data<T>();
  const T* sc = scores.data<T>();
  std::vector<T> x1(n), y1(n), x2(n), y2(n), areas(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x1[i] = d[i * 4];
    y1[i] = d[i * 4 + 1];
    x2[i] = d[i * 4 + 2];
    y2[i] = d[i * 4 + 3];
    areas[i] = (x2[i] - x1[i]) * (y2[i] - y1[i]);
  }
  std::vector<std::pair<T, std::int64_t>> order(n);
  for (std::int64_t i = 0; i < n; ++i) order[i] = {sc[i], i};
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return greater_nan_first(a.first, b.first);
  });
  std::vector<std::uint8_t> suppressed(n, 0);
  std::vector<std::int64_t> keep;
  for (std::int64_t oi = 0; oi < n; ++oi) {
    std::int64_t i = order[oi].second;
    if (suppressed[i] != 0) continue;
    keep.push_back(i);
    for (std::int64_t oj = oi + 1; oj < n; ++oj) {
      std::int64_t j = order[oj].second;
      if (suppressed[j] != 0) continue;
      T xx1 = std::max(x1[i], x1[j]);
      T yy1 = std::max(y1[i], y1[j]);
      T xx2 = std::min(x2[i], x2[j]);
      T yy2 = std::min(y2[i], y2[j]);
      T w = std::max(static_cast<T>(0), xx2 - xx1);
      T h = std::max(static_cast<T>(0), yy2 - yy1);
      T inter = w * h;
      T ovr = inter / (areas[i] + areas[j] - inter);
      if (ovr > iou_threshold) suppressed[j] = 1;
    }
  }
  Tensor out = Tensor::uninitialized({static_cast<std::int64_t>(keep.size())}, DType::kInt64);
  std::copy(keep.begin(), keep.end(), out.mutable_data<std::int64_t>());
  return out;
}

void nms(Stack& s) {
  IValue thr = pop(s), scores_v = pop(s), dets_v = pop(s);
  const Tensor& dets = dets_v.to_tensor();
  const Tensor& scores = scores_v.to_tensor();
  if (dets.dim() != 2) fail(fmt::format("boxes should be a 2d tensor, got {}D", dets.dim()));
  if (dets.sizes()[1] != 4) {
    fail(fmt::format("boxes should have 4 elements in dimension 1, got {}", dets.sizes()[1]));
  }
  if (scores.dim() != 1) fail(fmt::format("scores should be a 1d tensor, got {}D", scores.dim()));
  if (dets.sizes()[0] != scores.sizes()[0]) {
    fail(fmt::format(
        "boxes and scores should have same number of elements in dimension 0, got {} and {}",
        dets.sizes()[0], scores.sizes()[0]));
  }
  if (dets.dtype() != scores.dtype()) fail("dets should have the same type as scores");
  double iou = thr.to_double();
  s.emplace_back(dispatch_floating(dets.dtype(), "nms_kernel", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return nms_impl<T>(dets, scores, iou);
  }));
}

// The most bilinear samples roi_align takes for one roi (its table, 32 bytes a sample in
// float32; a whole 1000 x 1000 image pooled to 7 x 7 takes a million).
constexpr double kMaxRoiSamples = 1 << 24;

// torchvision::roi_align(input, rois, spatial_scale, pooled_height, pooled_width,
// sampling_ratio, aligned): torchvision 0.14's CPU kernel, the same bilinear sampling points
// and weights, summed in the same order in T and divided by the sample count.
template <typename T>
void roi_align_impl(const Tensor& input, const Tensor& rois, T spatial_scale, int ph_n, int pw_n,
                    int sampling_ratio, bool aligned, Tensor& out) {
  const int channels = static_cast<int>(input.sizes()[1]);
  const int height = static_cast<int>(input.sizes()[2]);
  const int width = static_cast<int>(input.sizes()[3]);
  const int n_rois = static_cast<int>(rois.sizes()[0]);
  const T* in = input.data<T>();
  const T* r = rois.data<T>();
  T* o = out.mutable_data<T>();
  struct Sample {
    std::array<int, 4> pos;
    std::array<T, 4> w;
  };
  for (int n = 0; n < n_rois; ++n) {
    const T* roi = r + static_cast<std::ptrdiff_t>(n) * 5;
    int batch = static_cast<int>(roi[0]);
    T offset = aligned ? static_cast<T>(0.5) : static_cast<T>(0.0);
    T start_w = roi[1] * spatial_scale - offset;
    T start_h = roi[2] * spatial_scale - offset;
    T end_w = roi[3] * spatial_scale - offset;
    T end_h = roi[4] * spatial_scale - offset;
    T roi_w = end_w - start_w;
    T roi_h = end_h - start_h;
    if (!aligned) {
      roi_w = std::max(roi_w, static_cast<T>(1.));
      roi_h = std::max(roi_h, static_cast<T>(1.));
    }
    T bin_h = roi_h / static_cast<T>(ph_n);
    T bin_w = roi_w / static_cast<T>(pw_n);
    // The sampling grid of a bin, checked before it becomes an int: a NaN or huge box
    // (hostile rois) would make the cast undefined and the sample table unbounded.
    const double grid_hd = sampling_ratio > 0 ? sampling_ratio : std::ceil(roi_h / ph_n);
    const double grid_wd = sampling_ratio > 0 ? sampling_ratio : std::ceil(roi_w / pw_n);
    const double table = grid_hd * grid_wd * ph_n * pw_n;
    if (!(std::abs(table) <= kMaxRoiSamples)) {
      fail(
          fmt::format("roi_align: roi {} needs {} x {} samples in each of {} x {} bins (at most "
                      "{} in all)",
                      n, grid_hd, grid_wd, ph_n, pw_n, kMaxRoiSamples));
    }
    if (table < 0) {
      // Inverted one way only: torchvision sizes its sample table by the negative product.
      throw OpError("ValueError", "cannot create std::vector larger than max_size()");
    }
    const int grid_h = static_cast<int>(grid_hd), grid_w = static_cast<int>(grid_wd);
    const T count = static_cast<T>(std::max(grid_h * grid_w, 1));
    // An inverted box (aligned) makes both grid sizes negative and their product positive:
    // torchvision's nested loops then take no sample, and so does this.
    const int samples = std::max(grid_h, 0) * std::max(grid_w, 0);
    std::vector<Sample> pre;
    pre.reserve(static_cast<std::size_t>(samples) * ph_n * pw_n);
    for (int ph = 0; ph < ph_n; ++ph) {
      for (int pw = 0; pw < pw_n; ++pw) {
        for (int iy = 0; iy < grid_h; ++iy) {
          const T yy =
              start_h + static_cast<T>(ph) * bin_h +
              static_cast<T>(static_cast<float>(iy) + .5F) * bin_h / static_cast<T>(grid_h);
          for (int ix = 0; ix < grid_w; ++ix) {
            const T xx =
                start_w + static_cast<T>(pw) * bin_w +
                static_cast<T>(static_cast<float>(ix) + .5F) * bin_w / static_cast<T>(grid_w);
            T x = xx;
            T y = yy;
            // Outside the map (and NaN, where torchvision's cast would be undefined): zero.
            if (!(y >= -1.0 && y <= height && x >= -1.0 && x <= width)) {
              pre.push_back(Sample{{0, 0, 0, 0}, {0, 0, 0, 0}});
              continue;
            }
            if (y <= 0) y = 0;
            if (x <= 0) x = 0;
            int y_low = static_cast<int>(y);
            int x_low = static_cast<int>(x);
            int y_high = 0;
            int x_high = 0;
            if (y_low >= height - 1) {
              y_high = y_low = height - 1;
              y = static_cast<T>(y_low);
            } else {
              y_high = y_low + 1;
            }
            if (x_low >= width - 1) {
              x_high = x_low = width - 1;
              x = static_cast<T>(x_low);
            } else {
              x_high = x_low + 1;
            }
            T ly = y - static_cast<T>(y_low);
            T lx = x - static_cast<T>(x_low);
            T hy = static_cast<T>(1.) - ly;
            T hx = static_cast<T>(1.) - lx;
            pre.push_back(Sample{{y_low * width + x_low, y_low * width + x_high,
                                  y_high * width + x_low, y_high * width + x_high},
                                 {hy * hx, hy * lx, ly * hx, ly * lx}});
          }
        }
      }
    }
    for (int c = 0; c < channels; ++c) {
      const T* plane = in + (static_cast<std::ptrdiff_t>(batch) * channels + c) * height * width;
      T* dst = o + ((static_cast<std::ptrdiff_t>(n) * channels + c) * ph_n * pw_n);
      std::size_t k = 0;
      for (int p = 0; p < ph_n * pw_n; ++p) {
        T val = 0.;
        for (int g = 0; g < samples; ++g) {
          const Sample& sm = pre[k++];
          val += sm.w[0] * plane[sm.pos[0]] + sm.w[1] * plane[sm.pos[1]] +
                 sm.w[2] * plane[sm.pos[2]] + sm.w[3] * plane[sm.pos[3]];
        }
        dst[p] = val / count;
      }
    }
  }
}

void roi_align(Stack& s) {
  IValue aligned_v = pop(s), sampling_v = pop(s), pw_v = pop(s), ph_v = pop(s), scale_v = pop(s);
  IValue rois_v = pop(s), input_v = pop(s);
  const Tensor& input = input_v.to_tensor();
  const Tensor& rois = rois_v.to_tensor();
  if (rois.dim() != 2 || rois.sizes()[1] != 5) fail("rois must have shape as Tensor[K, 5]");
  if (input.dtype() != rois.dtype()) {
    fail(fmt::format(
        "Expected tensor for argument #1 'input' to have the same type as tensor for argument "
        "#2 'rois'; but type {} does not equal {} (while checking arguments for "
        "roi_align_forward_kernel)",
        legacy_type_name(input.dtype()), legacy_type_name(rois.dtype())));
  }
  if (input.dim() != 4) {
    fail(fmt::format("roi_align: expected a 4-d input (N, C, H, W), got {}-d", input.dim()));
  }
  const std::int64_t ph = ph_v.to_int();
  const std::int64_t pw = pw_v.to_int();
  if (ph < 0 || pw < 0) fail("roi_align: pooled sizes must be non-negative");
  Tensor out = Tensor::uninitialized({rois.sizes()[0], input.sizes()[1], ph, pw}, input.dtype());
  if (out.numel() == 0) {
    s.emplace_back(std::move(out));
    return;
  }
  Tensor in_c = input.contiguous();
  Tensor rois_c = rois.contiguous();
  dispatch_floating(input.dtype(), "roi_align_forward_kernel", [&](auto tag) {
    using T = decltype(tag);
    const T* r = rois_c.data<T>();
    for (std::int64_t n = 0; n < rois_c.sizes()[0]; ++n) {
      T b = r[n * 5];
      if (!(b >= 0 && b < static_cast<T>(in_c.sizes()[0]))) {
        throw OpError("IndexError", fmt::format("roi_align: roi {} names batch index {} of an "
                                                "input with {} images",
                                                n, static_cast<double>(b), in_c.sizes()[0]));
      }
    }
    roi_align_impl<T>(in_c, rois_c, static_cast<T>(scale_v.to_double()), static_cast<int>(ph),
                      static_cast<int>(pw), static_cast<int>(sampling_v.to_int()),
                      aligned_v.to_bool(), out);
  });
  s.emplace_back(std::move(out));
}

// The top of the heap [first, first + len) (std::make_heap's, under `cmp`) replaced by
// `value`, as libstdc++'s heap selection replaces it (std::partial_sort, which PyTorch's topk
// calls): the hole at the top moves down to a leaf along the larger children, then `value`
// moves up from there. The same moves give the same order of equal elements as PyTorch's.
template <typename It, typename V, typename Cmp>
void replace_heap_top(It first, std::int64_t len, V value, Cmp cmp) {
  std::int64_t hole = 0, child = 0;
  while (child < (len - 1) / 2) {
    child = 2 * (child + 1);
    if (cmp(first[child], first[child - 1])) --child;
    first[hole] = first[child];
    hole = child;
  }
  if ((len & 1) == 0 && child == (len - 2) / 2) {
    child = 2 * (child + 1);
    first[hole] = first[child - 1];
    hole = child - 1;
  }
  for (std::int64_t parent = (hole - 1) / 2; hole > 0 && cmp(first[parent], value);
       parent = (hole - 1) / 2) {
    first[hole] = first[parent];
    hole = parent;
  }
  first[hole] = value;
}

// topk(self, k, dim=-1, largest=True, sorted=True): PyTorch 1.13's CPU algorithm per slice
// (partial_sort when k * 64 <= n, else nth_element then sort of the first k - 1), with its
// comparators, so equal values come out in the same order.
void topk(Stack& s) {
  IValue sorted_v = pop(s), largest_v = pop(s), dim_v = pop(s), k_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const std::int64_t dim = wrap_dim(dim_v.to_int(), self.dim());
  const std::int64_t k = k_v.to_int();
  const std::int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  if (k < 0 || k > n) fail("selected index k out of range");
  const bool largest = largest_v.to_bool();
  const bool sorted = sorted_v.to_bool();
  std::vector<std::int64_t> out_sizes = self.sizes();
  if (self.dim() > 0) out_sizes[dim] = k;
  Tensor values = Tensor::uninitialized(out_sizes, self.dtype());
  Tensor indices = Tensor::uninitialized(out_sizes, DType::kInt64);
  if (k > 0 && self.numel() > 0) {
    Tensor x = self.contiguous();
    std::int64_t outer = 1;
    std::int64_t inner = 1;
    for (std::int64_t d = 0; d < dim; ++d) outer *= self.sizes()[d];
    for (std::int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.sizes()[d];
    dispatch_numeric(self.dtype(), "topk_cpu", [&](auto tag) {
      using T = decltype(tag);
      const T* src = x.template data<T>();
      T* vals = values.template mutable_data<T>();
      std::int64_t* idx = indices.mutable_data<std::int64_t>();
      using Elem = std::pair<T, std::int64_t>;
      auto gt = [](const Elem& a, const Elem& b) {
        if constexpr (std::is_floating_point_v<T>) return greater_nan_first(a.first, b.first);
        return a.first > b.first;
      };
      auto lt = [](const Elem& a, const Elem& b) {
        if constexpr (std::is_floating_point_v<T>) return less_nan_last(a.first, b.first);
        return a.first < b.first;
      };
      // Rows (o, i) across threads, each with its own scratch.
      parallel_for(outer * inner, std::max<std::int64_t>(1, 16384 / n),
                   [&](std::int64_t first, std::int64_t last) {
                     std::vector<Elem> q(static_cast<std::size_t>(n));
                     for (std::int64_t row = first; row < last; ++row) {
                       const std::int64_t o = row / inner, i = row % inner;
                       const T* base = src + o * n * inner + i;
                       auto select = [&](auto cmp) {
                         if (k * 64 <= n) {
                           // A few of many: PyTorch's partial_sort (libstdc++'s heap
                           // selection) without the pairs of elements that never enter it.
                           for (std::int64_t j = 0; j < k; ++j) q[j] = {base[j * inner], j};
                           const auto heap = q.begin(), heap_end = q.begin() + k;
                           std::make_heap(heap, heap_end, cmp);
                           for (std::int64_t j = k; j < n; ++j) {
                             const Elem e{base[j * inner], j};
                             if (cmp(e, *heap)) replace_heap_top(heap, k, e, cmp);
                           }
                           std::sort_heap(heap, heap_end, cmp);
                         } else {
                           for (std::int64_t j = 0; j < n; ++j) q[j] = {base[j * inner], j};
                           std::nth_element(q.begin(), q.begin() + k - 1, q.end(), cmp);
                           if (sorted) std::sort(q.begin(), q.begin() + k - 1, cmp);
                         }
                       };
                       if (largest) {
                         select(gt);
                       } else {
                         select(lt);
                       }
                       for (std::int64_t j = 0; j < k; ++j) {
                         vals[o * k * inner + j * inner + i] = q[j].first;
                         idx[o * k * inner + j * inner + i] = q[j].second;
                       }
                     }
                   });
    });
  }
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(indices));
}

// meshgrid.indexing(tensors, *, indexing): views of each 0-d or 1-d tensor expanded to the
// grid; "xy" swaps the roles of the first two.
void meshgrid(Stack& s) {
  IValue indexing_v = pop(s), tensors_v = pop(s);
  const std::string& indexing = indexing_v.to_string();
  std::vector<Tensor> ts = tensor_list_arg(tensors_v);
  if (ts.empty()) fail("torch.meshgrid: Expected at least one tensor");
  if (indexing != "ij" && indexing != "xy") {
    fail(fmt::format(R"(torch.meshgrid: indexing must be one of "xy" or "ij", but received: {})",
                     indexing));
  }
  for (std::size_t i = 1; i < ts.size(); ++i) {
    if (ts[i].dtype() != ts[0].dtype()) {
      fail("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype");
    }
  }
  for (const Tensor& t : ts) {
    if (t.dim() > 1) {
      fail(
          fmt::format("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a "
                      "{}-d tensor",
                      t.dim()));
    }
  }
  const bool swap = indexing == "xy" && ts.size() >= 2;
  if (swap) std::swap(ts[0], ts[1]);
  std::vector<std::int64_t> shape;
  shape.reserve(ts.size());
  for (const Tensor& t : ts) shape.push_back(t.numel());
  IValueList out;
  out.reserve(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    std::vector<std::int64_t> view(ts.size(), 1);
    view[i] = -1;
    IValue v = run_op("aten::view", {IValue(ts[i]), int_list_value(view)});
    v = run_op("aten::expand", {v, int_list_value(shape)});
    out.push_back(std::move(v));
  }
  if (swap) std::swap(out[0], out[1]);
  s.emplace_back(IValue::list(std::move(out)));
}

// unbind.int(self, dim=0): select along dim, views.
void unbind(Stack& s) {
  IValue dim_v = pop(s), self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  if (self.dim() == 0) fail("Dimension specified as 0 but tensor has no dimensions");
  const std::int64_t dim = wrap_dim(dim_v.to_int(), self.dim());
  IValueList out;
  for (std::int64_t i = 0; i < self.sizes()[dim]; ++i) {
    out.push_back(run_op("aten::select.int", {self_v, IValue(dim), IValue(i)}));
  }
  s.emplace_back(IValue::list(std::move(out)));
}

// max.other / min.other: torch.maximum / torch.minimum, broadcast, promoted, NaN propagates.
template <bool IsMax>
void max_min_other(Stack& s) {
  IValue other_v = pop(s), self_v = pop(s);
  const Tensor& a = self_v.to_tensor();
  const Tensor& b = other_v.to_tensor();
  DType common = ResultType().tensor(a).tensor(b).result();
  const char* name = IsMax ? "maximum_cpu" : "minimum_cpu";
  s.emplace_back(dispatch_all(common, name, [&](auto tag) -> Tensor {
    using T = decltype(tag);
    return binary_kernel<T>(a, b, [](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
      }
      if constexpr (IsMax) return x > y ? x : y;
      return x < y ? x : y;
    });
  }));
}

void detach(Stack& s) {
  // An alias: the same tensor (symbolite has no autograd to detach from).
  IValue self = pop(s);
  s.emplace_back(self.to_tensor());
}

void expand_as(Stack& s) {
  IValue other = pop(s), self = pop(s);
  s.emplace_back(run_op("aten::expand", {self, int_list_value(other.to_tensor().sizes())}));
}

void shape_as_tensor(Stack& s) {
  IValue self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  Tensor out = Tensor::uninitialized({self.dim()}, DType::kInt64);
  std::copy(self.sizes().begin(), self.sizes().end(), out.mutable_data<std::int64_t>());
  s.emplace_back(std::move(out));
}

void check_cpu(const IValue& device) {
  if (device.is_none()) return;
  const std::string& d = device.to_device();
  if (d != "cpu") fail(fmt::format("symbolite runs on the CPU only; got device '{}'", d));
}

// to.other(self, other, non_blocking, copy, memory_format): other's dtype (both on the CPU).
void to_other(Stack& s) {
  IValue mf = pop(s), copy = pop(s), nb = pop(s), other = pop(s), self = pop(s);
  IValue code = dtype_value(other.to_tensor().dtype());
  s.emplace_back(run_op("aten::to.dtype", {self, code, nb, copy, mf}));
}

// to.device(self, device, dtype, non_blocking, copy, memory_format).
void to_device(Stack& s) {
  IValue mf = pop(s), copy = pop(s), nb = pop(s), dtype = pop(s), device = pop(s), self = pop(s);
  check_cpu(device);
  s.emplace_back(run_op("aten::to.dtype", {self, dtype, nb, copy, mf}));
}

// to.dtype_layout(self, *, dtype, layout, device, pin_memory, non_blocking, copy, mf).
void to_dtype_layout(Stack& s) {
  IValue mf = pop(s), copy = pop(s), nb = pop(s), pin = pop(s), device = pop(s), layout = pop(s);
  IValue dtype = pop(s), self = pop(s);
  check_cpu(device);
  IValue code = dtype.is_none() ? dtype_value(self.to_tensor().dtype()) : dtype;
  s.emplace_back(run_op("aten::to.dtype", {self, code, nb, copy, mf}));
}

// full_like(self, fill_value, *, dtype, layout, device, pin_memory, memory_format): self's
// shape, dtype (unless given) and the value.
void full_like(Stack& s) {
  IValue mf = pop(s), pin = pop(s), device = pop(s), layout = pop(s), dtype = pop(s);
  IValue value = pop(s), self = pop(s);
  check_cpu(device);
  IValue code = dtype.is_none() ? dtype_value(self.to_tensor().dtype()) : dtype;
  s.emplace_back(run_op("aten::full", {int_list_value(self.to_tensor().sizes()), value, code,
                                       layout, IValue(), IValue()}));
}

}  // namespace

void register_detection_ops(OperatorRegistry& r) {
  IValue none;
  IValue no(false);
  r.add({"torchvision::nms", 3, {}, nms});
  r.add({"torchvision::roi_align", 7, {}, roi_align});
  r.add({"aten::topk", 5, {IValue(std::int64_t{-1}), IValue(true), IValue(true)}, topk});
  r.add({"aten::meshgrid.indexing", 2, {}, meshgrid});
  r.add({"aten::unbind.int", 2, {IValue(std::int64_t{0})}, unbind});
  r.add({"aten::max.other", 2, {}, max_min_other<true>});
  r.add({"aten::min.other", 2, {}, max_min_other<false>});
  r.add({"aten::maximum", 2, {}, max_min_other<true>});
  r.add({"aten::minimum", 2, {}, max_min_other<false>});
  r.add({"aten::detach", 1, {}, detach});
  r.add({"aten::expand_as", 2, {}, expand_as});
  r.add({"aten::_shape_as_tensor", 1, {}, shape_as_tensor});
  r.add({"aten::to.other", 5, {no, no, none}, to_other});
  r.add({"aten::to.device", 6, {no, no, none}, to_device});
  r.add({"aten::to.dtype_layout", 8, {none, none, none, none, no, no, none}, to_dtype_layout});
  r.add({"aten::full_like", 7, {none, none, none, none, none}, full_like});
}

}  // namespace symbolite::ops
