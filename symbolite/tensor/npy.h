// NumPy `.npy` files: one array, a small header, then the raw elements. symbolite reads them
// for model inputs (`symbolite run --input x.npy`) and writes them for outputs. Format
// versions 1.0, 2.0 and 3.0; little-endian, C-order arrays of the DTypes NumPy has (all but
// bfloat16). See docs/FORMATS.md.
//
// Files are untrusted: the header is bounded (NumPy's own limit, 10000 bytes), the dict is
// parsed by a strict little parser (no Python eval), and the data size must match the
// shape exactly (overflow-checked). Errors name the byte offset; the *_file functions add
// the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "symbolite/support/bytes.h"
#include "symbolite/tensor/dtype.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::tensor {

// Longest header accepted (the dict and its padding), as numpy.lib.format._MAX_HEADER_SIZE.
inline constexpr std::size_t kNpyMaxHeaderLength = 10000;
// Most dimensions accepted (NumPy's NPY_MAXDIMS).
inline constexpr std::size_t kNpyMaxDims = 32;

struct NpyHeader {
  int major_version = 1;  // 1, 2 or 3
  int minor_version = 0;
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  bool fortran_order = false;   // column-major data (np.save of a transposed array)
  std::size_t data_offset = 0;  // first data byte, from the start of the file
};

// Parses and checks the header. Throws Error(kFormat) for a malformed file,
// Error(kUnsupported) for valid NumPy files symbolite does not read (big-endian, structured
// or other dtypes), Error(kLimit) past the limits above. Fortran order is read, with strides.
NpyHeader read_npy_header(std::span<const std::uint8_t> file);

// The array in `file`. The tensor views `file` without copying when the data is aligned for
// its dtype (NumPy aligns it to 64 bytes), else it copies; bools other than 0/1 are
// normalized to 1 in a copy, as NumPy reads them.
Tensor read_npy(const Bytes& file);
// Maps and reads `path`; errors carry the path.
Tensor read_npy_file(const std::string& path);

// The .npy bytes of `tensor` (C order; strided tensors are copied), exactly as NumPy 1.24's
// np.save writes them: format 1.0, header padded to 64 bytes. Throws Error(kUnsupported)
// for bfloat16.
std::vector<std::uint8_t> write_npy(const Tensor& tensor);
// Writes write_npy(tensor) to `path`; Error(kIo) naming the path on failure.
void write_npy_file(const std::string& path, const Tensor& tensor);

}  // namespace symbolite::tensor
