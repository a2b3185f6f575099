#include "symbolite/tensor/npy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "symbolite/support/byte_cursor.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/output_files.h"

namespace symbolite::tensor {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kAlign = 64;         // NumPy's ARRAY_ALIGN
constexpr std::size_t kGrowthDigits = 21;  // NumPy's GROWTH_AXIS_MAX_DIGITS

[[noreturn]] void fail(ErrorKind kind, std::uint64_t offset, std::string_view message) {
  throw Error(kind, fmt::format("byte {}: {}", offset, message));
}

// The header dict, `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, read
// token by token. Only what np.save writes is accepted: single- or double-quoted keys and
// strings without escapes, True/False, tuples of non-negative decimal ints.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::uint64_t base) : text_(text), base_(base) {}

  void parse(NpyHeader& header) {
    std::optional<std::string_view> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::int64_t>> shape;
    skip_spaces();
    expect('{');
    for (;;) {
      skip_spaces();
      if (peek() == '}') break;
      std::uint64_t key_offset = offset();
      std::string_view key = string();
      skip_spaces();
      expect(':');
      skip_spaces();
      auto duplicate = [&] {
        fail(ErrorKind::kFormat, key_offset, fmt::format("header key '{}' repeated", key));
      };
      if (key == "descr") {
        if (descr) duplicate();
        if (peek() == '[') {
          fail(ErrorKind::kUnsupported, offset(), "structured dtypes are not supported");
        }
        descr = string();
      } else if (key == "fortran_order") {
        if (fortran_order) duplicate();
        fortran_order = boolean();
      } else if (key == "shape") {
        if (shape) duplicate();
        shape = tuple();
      } else {
        fail(ErrorKind::kFormat, key_offset, fmt::format("unexpected header key '{}'", key));
      }
      skip_spaces();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_spaces();
      if (peek() != '}') fail(ErrorKind::kFormat, offset(), "expected ',' or '}' in header");
    }
    expect('}');
    // np.save pads with spaces and ends with a newline.
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        fail(ErrorKind::kFormat, offset(), "unexpected text after the header dict");
      }
      ++pos_;
    }
    if (!descr) fail(ErrorKind::kFormat, base_, "header has no 'descr'");
    if (!fortran_order) fail(ErrorKind::kFormat, base_, "header has no 'fortran_order'");
    if (!shape) fail(ErrorKind::kFormat, base_, "header has no 'shape'");
    auto dtype = dtype_from_npy_descr(*descr);
    if (!dtype) {
      fail(ErrorKind::kUnsupported, base_,
           fmt::format("dtype '{}' is not supported (little-endian bool, uint8, int8/16/32/64, "
                       "float16/32/64 are)",
                       *descr));
    }
    header.dtype = *dtype;
    header.fortran_order = *fortran_order;
    header.shape = std::move(*shape);
  }

 private:
  std::uint64_t offset() const { return base_ + pos_; }
  char peek() const {
    if (pos_ >= text_.size()) fail(ErrorKind::kFormat, offset(), "header ends inside the dict");
    return text_[pos_];
  }
  void expect(char c) {
    if (peek() != c) {
      fail(ErrorKind::kFormat, offset(), fmt::format("expected '{}' in header", c));
    }
    ++pos_;
  }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }

  std::string_view string() {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail(ErrorKind::kFormat, offset(), "expected a string in header");
    std::size_t start = ++pos_;
    for (;;) {
      char c = peek();
      if (c == quote) break;
      if (c == '\\' || c == '\n')
        fail(ErrorKind::kFormat, offset(), "unsupported character in header string");
      ++pos_;
    }
    std::string_view s = text_.substr(start, pos_ - start);
    ++pos_;
    return s;
  }

  bool boolean() {
    if (text_.substr(pos_).starts_with("True")) {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_).starts_with("False")) {
      pos_ += 5;
      return false;
    }
    fail(ErrorKind::kFormat, offset(), "expected True or False in header");
  }

  std::int64_t integer() {
    std::uint64_t start_offset = offset();
    if (peek() < '0' || peek() > '9')
      fail(ErrorKind::kFormat, offset(), "expected a non-negative integer in shape");
    std::int64_t value = 0;
    std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
        fail(ErrorKind::kFormat, start_offset, "shape dimension overflows int64");
      }
      ++pos_;
    }
    if (text_[start] == '0' && pos_ - start > 1) {
      fail(ErrorKind::kFormat, start_offset, "integer with a leading zero in shape");
    }
    return value;
  }

  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> items;
    expect('(');
    skip_spaces();
    bool trailing_comma = false;
    while (peek() != ')') {
      if (items.size() == kNpyMaxDims) {
        fail(ErrorKind::kLimit, offset(),
             fmt::format("shape has more than {} dimensions", kNpyMaxDims));
      }
      items.push_back(integer());
      skip_spaces();
      trailing_comma = peek() == ',';
      if (!trailing_comma) break;
      ++pos_;
      skip_spaces();
    }
    // Python's (3) is an int, not a tuple.
    if (items.size() == 1 && !trailing_comma)
      fail(ErrorKind::kFormat, offset(), "shape is not a tuple");
    expect(')');
    return items;
  }

  std::string_view text_;
  std::uint64_t base_;
  std::size_t pos_ = 0;
};

std::string shape_repr(const std::vector<std::int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

}  // namespace

NpyHeader read_npy_header(std::span<const std::uint8_t> file) {
  ByteCursor cursor(file, 0, "npy header");
  auto magic = cursor.take(kMagic.size());
  if (std::memcmp(magic.data(), kMagic.data(), kMagic.size()) != 0) {
    fail(ErrorKind::kFormat, 0, "not a .npy file (no \\x93NUMPY magic)");
  }
  NpyHeader header;
  header.major_version = cursor.u8();
  header.minor_version = cursor.u8();
  if (header.major_version < 1 || header.major_version > 3 || header.minor_version != 0) {
    fail(ErrorKind::kUnsupported, 6,
         fmt::format(".npy format version {}.{} is not supported (1.0, 2.0 and 3.0 are)",
                     header.major_version, header.minor_version));
  }
  std::uint64_t length_offset = cursor.offset();
  std::size_t length = header.major_version == 1 ? cursor.u16() : cursor.u32();
  if (length > kNpyMaxHeaderLength) {
    fail(
        ErrorKind::kLimit, length_offset,
        fmt::format("header length {} exceeds the limit of {} bytes", length, kNpyMaxHeaderLength));
  }
  std::uint64_t text_offset = cursor.offset();
  if (length > cursor.remaining()) {
    fail(ErrorKind::kFormat, length_offset,
         fmt::format("header length {} runs past the end of the file ({} bytes)", length,
                     file.size()));
  }
  auto text = cursor.take(length);
  HeaderParser(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()),
               text_offset)
      .parse(header);
  std::int64_t numel = 1;
  for (std::int64_t size : header.shape) {
    // Sizes 0 count as 1 (as checked_numel), so strides of an empty shape fit too.
    if (__builtin_mul_overflow(numel, std::max<std::int64_t>(size, 1), &numel)) {
      fail(ErrorKind::kFormat, text_offset,
           fmt::format("shape {} has more elements than int64 holds", shape_repr(header.shape)));
    }
  }
  header.data_offset = static_cast<std::size_t>(cursor.offset());
  return header;
}

Tensor read_npy(const Bytes& file) {
  NpyHeader header = read_npy_header(file.span());
  DType dtype = header.dtype;
  std::int64_t numel = checked_numel(header.shape);  // read_npy_header checked it
  std::int64_t nbytes = 0;
  std::size_t available = file.size() - header.data_offset;
  if (__builtin_mul_overflow(numel, static_cast<std::int64_t>(element_size(dtype)), &nbytes) ||
      static_cast<std::uint64_t>(nbytes) != available) {
    fail(ErrorKind::kFormat, header.data_offset,
         fmt::format(
             "data is {} bytes, but shape {} of {} needs {}", available, shape_repr(header.shape),
             npy_descr(dtype).value_or("?"),
             static_cast<std::uint64_t>(numel) > UINT64_MAX / element_size(dtype)
                 ? std::string("more than 2^64")
                 : fmt::format("{}", static_cast<std::uint64_t>(numel) * element_size(dtype))));
  }
  Bytes data = file.slice(header.data_offset, available);
  bool bad_bools = dtype == DType::kBool && std::any_of(data.data(), data.data() + data.size(),
                                                        [](std::uint8_t b) { return b > 1; });
  Storage storage;
  if (!bad_bools && reinterpret_cast<std::uintptr_t>(data.data()) % element_size(dtype) == 0) {
    storage = Storage::view(data);
  } else {
    storage = Storage::allocate_uninitialized(data.size());
    std::uint8_t* out = storage.mutable_data();
    if (!data.empty()) std::memcpy(out, data.data(), data.size());
    if (bad_bools) {
      for (std::size_t i = 0; i < data.size(); ++i) out[i] = out[i] != 0;
    }
  }
  // Fortran order is the transpose's C order: strides grow from the first dimension, as
  // PyTorch's torch.from_numpy keeps them.
  std::vector<std::int64_t> strides;
  if (header.fortran_order) {
    std::vector<std::int64_t> reversed(header.shape.rbegin(), header.shape.rend());
    auto s = contiguous_strides(reversed);
    strides.assign(s.rbegin(), s.rend());
  } else {
    strides = contiguous_strides(header.shape);
  }
  return Tensor::from_storage(std::move(storage), dtype, std::move(header.shape),
                              std::move(strides), 0);
}

Tensor read_npy_file(const std::string& path) {
  // map_file's errors already name the path.
  Bytes bytes = map_file(path);
  return with_context(path, [&] { return read_npy(bytes); });
}

std::vector<std::uint8_t> write_npy(const Tensor& tensor) {
  auto descr = npy_descr(tensor.dtype());
  if (!descr) {
    throw Error(
        ErrorKind::kUnsupported,
        fmt::format("NumPy has no {} dtype; convert the tensor first", torch_name(tensor.dtype())));
  }
  // Exactly np.save: sorted keys, repr() values, spare spaces for growing the first axis,
  // then spaces and a newline up to a multiple of 64 bytes.
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", *descr,
                                 shape_repr(tensor.sizes()));
  if (!tensor.sizes().empty()) {
    std::size_t digits = fmt::formatted_size("{}", tensor.sizes()[0]);
    if (digits < kGrowthDigits) dict.append(kGrowthDigits - digits, ' ');
  }
  std::size_t prefix = kMagic.size() + 2 + 2;
  std::size_t padding = kAlign - (prefix + dict.size() + 1) % kAlign;
  dict.append(padding, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xffff) {
    throw Error(ErrorKind::kUnsupported, "npy header too long for format 1.0");
  }

  Tensor data = tensor.contiguous();
  // The header filled in place, the data appended: GCC 12 warns of an overflow that cannot
  // happen when it inlines a chain of inserts into a reserved vector (-Wstringop-overflow).
  std::vector<std::uint8_t> out;
  out.reserve(prefix + dict.size() + data.nbytes());
  out.resize(prefix + dict.size());
  std::uint8_t* at = std::copy(kMagic.begin(), kMagic.end(), out.data());
  *at++ = 1;
  *at++ = 0;
  *at++ = static_cast<std::uint8_t>(dict.size() & 0xff);
  *at++ = static_cast<std::uint8_t>(dict.size() >> 8);
  std::copy(dict.begin(), dict.end(), at);
  out.insert(out.end(), data.raw_data(), data.raw_data() + data.nbytes());
  return out;
}

void write_npy_file(const std::string& path, const Tensor& tensor) {
  write_file_atomically(path, write_npy(tensor));
}

}  // namespace symbolite::tensor
