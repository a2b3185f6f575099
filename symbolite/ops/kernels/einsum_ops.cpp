// aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None): Einstein summation as
// maxvit's relative attention writes it ("bhid,bhjd->bhij"). The operands are folded left to
// right; each pair becomes one batched matrix product — labels in both operands and kept are
// the batch, labels in both and no longer needed are contracted, the rest are the rows and
// columns — after labels only one operand has and nothing later needs are summed away.
// Ellipsis ("...") stands for the leading dimensions; without "->" the output is every label
// used once, in alphabetical order, after the ellipsis. A label repeated within one operand
// selects a diagonal: a strided view of that operand with the repeated dimensions merged.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;
using Labels = std::string;  // one char per dimension; the ellipsis's dimensions are '0'..'9'

// A tensor with a label per dimension.
struct Term {
  Tensor t;
  Labels labels;
};

// `term` with its dimensions in the order of `order` (a permutation of its labels).
Term permuted(const Term& term, const Labels& order) {
  Sizes perm;
  for (char c : order) perm.push_back(static_cast<std::int64_t>(term.labels.find(c)));
  return {run_op("aten::permute", {term.t, int_list_value(perm)}).to_tensor(), order};
}

// Sums away the dimensions of `term` whose labels are not in `keep`.
Term sum_unless(const Term& term, const Labels& keep) {
  Sizes dims;
  Labels left;
  for (std::size_t i = 0; i < term.labels.size(); ++i) {
    if (keep.find(term.labels[i]) == Labels::npos)
      dims.push_back(static_cast<std::int64_t>(i));
    else
      left += term.labels[i];
  }
  if (dims.empty()) return term;
  return {
      run_op("aten::sum.dim_IntList", {term.t, int_list_value(dims), false, IValue()}).to_tensor(),
      left};
}

std::int64_t size_of(const Term& term, char c) { return term.t.sizes()[term.labels.find(c)]; }

// a × b, keeping the labels in `needed` (the output's and later operands').
Term contract(const Term& a0, const Term& b0, const Labels& needed) {
  Labels in_b = b0.labels;
  Term a = sum_unless(a0, needed + in_b);
  Term b = sum_unless(b0, needed + a.labels);
  Labels batch, rows, cols, summed;
  for (char c : a.labels) {
    bool shared = b.labels.find(c) != Labels::npos;
    bool kept = needed.find(c) != Labels::npos;
    if (shared && kept)
      batch += c;
    else if (shared)
      summed += c;
    else
      rows += c;
  }
  for (char c : b.labels) {
    if (a.labels.find(c) == Labels::npos) cols += c;
  }
  auto product = [&](const Term& t, const Labels& labels) {
    std::int64_t n = 1;
    for (char c : labels) n *= size_of(t, c);
    return n;
  };
  // Broadcast size-1 batch dimensions against each other, as PyTorch's einsum does.
  Sizes batch_sizes;
  for (char c : batch) batch_sizes.push_back(std::max(size_of(a, c), size_of(b, c)));
  Term pa = permuted(a, batch + rows + summed);
  Term pb = permuted(b, batch + summed + cols);
  Sizes a_shape = batch_sizes, b_shape = batch_sizes;
  a_shape.push_back(product(a, rows));
  a_shape.push_back(product(a, summed));
  b_shape.push_back(product(b, summed));
  b_shape.push_back(product(b, cols));
  // Expand (broadcast) then reshape each side to [batch..., m, k] and [batch..., k, n].
  auto as_matrix = [&](const Term& t, const Sizes& shape) {
    Sizes expanded = batch_sizes;
    for (std::size_t i = batch.size(); i < t.labels.size(); ++i) expanded.push_back(t.t.sizes()[i]);
    IValue e = run_op("aten::expand", {t.t, int_list_value(expanded), false});
    return run_op("aten::reshape", {e, int_list_value(shape)});
  };
  IValue m = run_op("aten::matmul", {as_matrix(pa, a_shape), as_matrix(pb, b_shape)});
  Sizes out_shape = batch_sizes;
  for (char c : rows) out_shape.push_back(size_of(a, c));
  for (char c : cols) out_shape.push_back(size_of(b, c));
  return {run_op("aten::reshape", {m, int_list_value(out_shape)}).to_tensor(), batch + rows + cols};
}

// `term` with each label that repeats in it (a diagonal, "ii") once: a view whose stride for
// the label is the sum of its dimensions' strides, as PyTorch's einsum takes diagonals.
Term diagonals(const Term& term, std::size_t operand) {
  const Tensor& t = term.t;
  Sizes sizes, strides;
  Labels labels;
  for (std::size_t i = 0; i < term.labels.size(); ++i) {
    const char c = term.labels[i];
    const auto first = labels.find(c);
    if (first == Labels::npos) {
      labels += c;
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
      continue;
    }
    if (t.sizes()[i] != sizes[first]) {
      fail(
          fmt::format("einsum(): subscript {} is repeated for operand {} but the sizes don't "
                      "match, {} != {}",
                      c, operand, t.sizes()[i], sizes[first]));
    }
    strides[first] += t.strides()[i];
  }
  if (labels.size() == term.labels.size()) return term;
  return {Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, t.storage_offset()), labels};
}

// The labels of one operand's subscript; "..." becomes the ellipsis dimensions' labels.
Labels parse_operand(const std::string& sub, std::size_t operand, std::int64_t dims,
                     std::int64_t& ellipsis_dims, bool& has_ellipsis) {
  Labels out;
  const auto dot = sub.find("...");
  std::string letters = sub;
  if (dot != std::string::npos) letters.erase(dot, 3);
  for (char c : letters) {
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      fail(
          fmt::format("einsum(): invalid subscript given at index {} in the equation string, "
                      "subscripts must be "
                      "in [a-zA-Z]",
                      sub.find(c)));
    }
  }
  const auto named = static_cast<std::int64_t>(letters.size());
  if (dot == std::string::npos) {
    if (named != dims) {
      fail(fmt::format(
          "einsum(): the number of subscripts in the equation ({}) does not match the number of "
          "dimensions ({}) for operand {} and no ellipsis was given",
          named, dims, operand));
    }
    return letters;
  }
  const std::int64_t e = dims - named;
  if (e < 0) {
    fail(fmt::format(
        "einsum(): the number of subscripts in the equation ({}) is more than the number of "
        "dimensions ({}) for operand {}",
        named, dims, operand));
  }
  has_ellipsis = true;
  ellipsis_dims = std::max(ellipsis_dims, e);
  std::string mid;
  for (std::int64_t i = 0; i < e; ++i)
    mid += static_cast<char>('0' + (10 - e + i));  // right-aligned
  return sub.substr(0, dot) + mid + sub.substr(dot + 3);
}

void einsum(Stack& s) {
  IValue path = pop(s), tensors_v = pop(s), equation_v = pop(s);
  (void)path;  // an optimization hint only
  std::string eq = equation_v.to_string();
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const std::vector<Tensor> tensors = tensor_list_arg(tensors_v);
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> subs;
  for (std::size_t start = 0;;) {
    auto comma = lhs.find(',', start);
    subs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (subs.size() != tensors.size()) {
    fail(fmt::format("einsum(): {} operands were provided than specified in the equation",
                     tensors.size() > subs.size() ? "more" : "fewer"));
  }
  std::int64_t ellipsis_dims = 0;
  bool has_ellipsis = false;
  std::vector<Term> terms;
  std::map<char, int> uses;
  for (std::size_t i = 0; i < subs.size(); ++i) {
    Labels labels = parse_operand(subs[i], i, tensors[i].dim(), ellipsis_dims, has_ellipsis);
    for (char c : labels) ++uses[c];
    terms.push_back(diagonals({tensors[i], labels}, i));
  }
  std::string ellipsis;
  for (std::int64_t i = 0; i < ellipsis_dims; ++i)
    ellipsis += static_cast<char>('0' + (10 - ellipsis_dims + i));
  Labels output;
  if (arrow == std::string::npos) {
    output = ellipsis;
    for (const auto& [c, n] : uses) {
      if (n == 1 && std::isalpha(static_cast<unsigned char>(c))) output += c;
    }
  } else {
    std::string rhs = eq.substr(arrow + 2);
    auto dot = rhs.find("...");
    output = dot == std::string::npos ? rhs : rhs.substr(0, dot) + ellipsis + rhs.substr(dot + 3);
    for (char c : output) {
      if (!uses.contains(c) && !std::isdigit(static_cast<unsigned char>(c))) {
        fail(fmt::format(
            "einsum(): output subscript {} does not appear in the equation for any input operand",
            c));
      }
    }
  }
  Term acc = terms.front();
  for (std::size_t i = 1; i < terms.size(); ++i) {
    Labels needed = output;
    for (std::size_t j = i + 1; j < terms.size(); ++j) needed += terms[j].labels;
    acc = contract(acc, terms[i], needed);
  }
  acc = sum_unless(acc, output);
  Term out = permuted(acc, output);
  s.emplace_back(out.t.contiguous());
}

}  // namespace

void register_einsum_ops(OperatorRegistry& r) { r.add({"aten::einsum", 3, {IValue()}, einsum}); }

}  // namespace symbolite::ops
