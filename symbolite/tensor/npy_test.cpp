#include "symbolite/tensor/npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::tensor {
namespace {

using Shape = std::vector<std::int64_t>;

nlohmann::json expected_json() {
  std::ifstream in(testing::fixture_path("npy/expected.json"));
  if (!in) throw std::runtime_error("cannot open tests/fixtures/npy/expected.json");
  return nlohmann::json::parse(in);
}

std::string npy_path(const std::string& name) { return testing::fixture_path("npy/" + name); }

// The elements of a contiguous tensor as JSON numbers, as make_npy.py writes them (float16
// as its bit pattern).
nlohmann::json values_of(const Tensor& t) {
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DType::kFloat32:
        out.push_back(static_cast<double>(t.data<float>()[i]));
        break;
      case DType::kFloat64:
        out.push_back(t.data<double>()[i]);
        break;
      case DType::kInt64:
        out.push_back(t.data<std::int64_t>()[i]);
        break;
      case DType::kInt32:
        out.push_back(t.data<std::int32_t>()[i]);
        break;
      case DType::kInt16:
        out.push_back(t.data<std::int16_t>()[i]);
        break;
      case DType::kInt8:
        out.push_back(t.data<std::int8_t>()[i]);
        break;
      case DType::kUInt8:
        out.push_back(t.data<std::uint8_t>()[i]);
        break;
      case DType::kBool:
        out.push_back(t.data<bool>()[i]);
        break;
      case DType::kFloat16:
        out.push_back(t.data<Half>()[i].bits);
        break;
      case DType::kBFloat16:
        out.push_back(t.data<BFloat16>()[i].bits);
        break;
    }
  }
  return out;
}

// A .npy file with the given header text (taken as is: no padding added) and data bytes.
Bytes make_npy(std::string_view header, std::string_view data = "", int major = 1) {
  std::string file = "\x93NUMPY";
  file.push_back(static_cast<char>(major));
  file.push_back(0);
  std::uint32_t n = static_cast<std::uint32_t>(header.size());
  file.push_back(static_cast<char>(n & 0xff));
  file.push_back(static_cast<char>((n >> 8) & 0xff));
  if (major > 1) {
    file.push_back(static_cast<char>((n >> 16) & 0xff));
    file.push_back(static_cast<char>(n >> 24));
  }
  file.append(header);
  file.append(data);
  return Bytes::copy_of(file);
}

// The Error that read_npy(file) must throw.
Error read_error(const Bytes& file) {
  try {
    read_npy(file);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(ErrorKind::kInternal, "no error");
}

TEST(Npy, ReadsNumPyFixtures) {
  auto expected = expected_json();
  ASSERT_GE(expected["files"].size(), 12u);
  for (const auto& [name, want] : expected["files"].items()) {
    SCOPED_TRACE(name);
    Bytes file = map_file(npy_path(name));
    NpyHeader header = read_npy_header(file.span());
    EXPECT_EQ(header.major_version, want["version"][0].get<int>());
    EXPECT_EQ(header.data_offset % 64, 0u);  // NumPy aligns the data
    Tensor t = read_npy(file);
    EXPECT_EQ(npy_descr(t.dtype()), want["descr"].get<std::string>());
    EXPECT_EQ(t.sizes(), want["shape"].get<Shape>());
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(values_of(t), want["values"]);
    // Zero copy: the tensor views the mapped file.
    EXPECT_TRUE(t.storage().is_view() || t.numel() == 0);
    EXPECT_EQ(t.storage().bytes().owner(), file.owner());
  }
}

TEST(Npy, WriterReproducesNumPyByteForByte) {
  auto expected = expected_json();
  for (const auto& [name, want] : expected["files"].items()) {
    if (want["version"][0] != 1) continue;  // np.save picks 1.0; 2.0/3.0 were forced
    SCOPED_TRACE(name);
    Bytes file = map_file(npy_path(name));
    std::vector<std::uint8_t> written = write_npy(read_npy(file));
    EXPECT_EQ(written, std::vector<std::uint8_t>(file.data(), file.data() + file.size()));
  }
}

TEST(Npy, FortranOrderKeepsPyTorchsStrides) {
  auto expected = expected_json();
  ASSERT_EQ(expected["fortran"].size(), 2u);
  for (const auto& [name, want] : expected["fortran"].items()) {
    SCOPED_TRACE(name);
    Tensor t = read_npy_file(npy_path(name));
    EXPECT_EQ(t.sizes(), want["shape"].get<Shape>());
    EXPECT_EQ(t.strides(), want["strides"].get<Shape>());  // torch.from_numpy's
    EXPECT_FALSE(t.is_contiguous());
    EXPECT_EQ(values_of(t.contiguous()), want["values"]);
  }
}

TEST(Npy, RefusesBigEndian) {
  auto expected = expected_json();
  ASSERT_EQ(expected["refused"].size(), 1u);
  for (const auto& [name, why] : expected["refused"].items()) {
    SCOPED_TRACE(name);
    try {
      read_npy_file(npy_path(name));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
      EXPECT_NE(std::string(e.what()).find(why.get<std::string>()), std::string::npos) << e.what();
      EXPECT_EQ(e.context().back(), npy_path(name));  // the file is named
      EXPECT_EQ(e.message().rfind("byte ", 0), 0u);   // and the byte offset
    }
  }
}

TEST(Npy, WriteStridedAndRead) {
  // A transposed view is written in C order of its logical layout.
  Storage s = Storage::allocate(6 * sizeof(std::int32_t));
  auto* v = reinterpret_cast<std::int32_t*>(s.mutable_data());
  for (int i = 0; i < 6; ++i) v[i] = i;
  Tensor t = Tensor::from_storage(s, DType::kInt32, {3, 2}, {1, 3}, 0);
  Tensor back = read_npy(Bytes::from_vector(write_npy(t)));
  EXPECT_EQ(back.sizes(), (Shape{3, 2}));
  EXPECT_EQ(values_of(back), nlohmann::json({0, 3, 1, 4, 2, 5}));
}

TEST(Npy, WriteRefusesBFloat16) {
  try {
    write_npy(Tensor::empty({2}, DType::kBFloat16));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_EQ(e.message(), "NumPy has no torch.bfloat16 dtype; convert the tensor first");
  }
}

TEST(Npy, NormalizesBoolsLikeNumPy) {
  Tensor t = read_npy(make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n",
                               std::string_view("\x00\x01\x07", 3)));
  EXPECT_EQ(values_of(t), nlohmann::json({false, true, true}));
  EXPECT_FALSE(t.storage().is_view());
}

TEST(Npy, AcceptsHeaderVariants) {
  // Double quotes, other key order, no trailing comma, no padding at all.
  Tensor t = read_npy(make_npy(R"({"shape": (1, 2), "fortran_order": False, "descr": "<i2"})",
                               std::string_view("\x01\x00\x02\x00", 4), 2));
  EXPECT_EQ(t.sizes(), (Shape{1, 2}));
  EXPECT_EQ(values_of(t), nlohmann::json({1, 2}));
  // Misaligned data (header not padded) is copied, not viewed.
  EXPECT_FALSE(t.storage().is_view() && !t.storage().is_aligned(DType::kInt16));
  EXPECT_EQ(read_npy(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                              std::string(8, '\0')))
                .dim(),
            0);
}

TEST(Npy, HostileHeaders) {
  struct Case {
    const char* what;
    Bytes file;
    ErrorKind kind;
    const char* message;  // exact
  };
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight(8, '\0');
  std::string thirty_three_ones;
  for (int i = 0; i < 33; ++i) thirty_three_ones += "1, ";
  auto with_length = [](std::uint16_t length, std::string_view rest) {
    std::string f = "\x93NUMPY\x01";
    f.push_back('\0');
    f.push_back(static_cast<char>(length & 0xff));
    f.push_back(static_cast<char>(length >> 8));
    f.append(rest);
    return Bytes::copy_of(f);
  };
  std::vector<Case> cases = {
      {"empty", Bytes(), ErrorKind::kFormat,
       "byte 0: truncated npy header: needs 6 more bytes, only 0 left"},
      {"bad magic", Bytes::copy_of("\x93NUMPX\x01\x00\x00\x00"), ErrorKind::kFormat,
       "byte 0: not a .npy file (no \\x93NUMPY magic)"},
      {"version 4", make_npy(ok_dict, eight, 4), ErrorKind::kUnsupported,
       "byte 6: .npy format version 4.0 is not supported (1.0, 2.0 and 3.0 are)"},
      {"length past end", with_length(200, ok_dict), ErrorKind::kFormat,
       "byte 8: header length 200 runs past the end of the file (67 bytes)"},
      {"length over limit", make_npy(ok_dict + std::string(10001, ' '), eight, 2),
       ErrorKind::kLimit, "byte 8: header length 10058 exceeds the limit of 10000 bytes"},
      {"truncated dict", make_npy("{'descr': '<f4', 'fortran_"), ErrorKind::kFormat,
       "byte 36: header ends inside the dict"},
      {"not a dict", make_npy("['descr']"), ErrorKind::kFormat, "byte 10: expected '{' in header"},
      {"unknown key", make_npy("{'descr': '<f4', 'evil': 1}"), ErrorKind::kFormat,
       "byte 27: unexpected header key 'evil'"},
      {"repeated key", make_npy("{'descr': '<f4', 'descr': '<f4'}"), ErrorKind::kFormat,
       "byte 27: header key 'descr' repeated"},
      {"missing shape", make_npy("{'descr': '<f4', 'fortran_order': False}"), ErrorKind::kFormat,
       "byte 10: header has no 'shape'"},
      {"python call", make_npy("{'descr': __import__('os'), 'fortran_order': False}"),
       ErrorKind::kFormat, "byte 20: expected a string in header"},
      {"negative dim", make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"),
       ErrorKind::kFormat, "byte 61: expected a non-negative integer in shape"},
      {"int, not tuple", make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }"),
       ErrorKind::kFormat, "byte 62: shape is not a tuple"},
      {"huge dim",
       make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"),
       ErrorKind::kFormat, "byte 61: shape dimension overflows int64"},
      {"absurd shape",
       make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                eight),
       ErrorKind::kFormat,
       "byte 10: shape (4294967296, 4294967296) has more elements than int64 holds"},
      {"absurd empty shape",  // 0 elements, but its contiguous strides would overflow
       make_npy(
           "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 66615, 7483795267391600), }"),
       ErrorKind::kFormat,
       "byte 10: shape (0, 66615, 7483795267391600) has more elements than int64 holds"},
      {"absurd bytes",
       make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }",
                eight),
       ErrorKind::kFormat,
       "byte 85: data is 8 bytes, but shape (4611686018427387904,) of <f8 needs more than 2^64"},
      {"short data", make_npy(ok_dict + "\n", "1234567"), ErrorKind::kFormat,
       "byte 68: data is 7 bytes, but shape (2,) of <f4 needs 8"},
      {"extra data", make_npy(ok_dict + "\n", "123456789"), ErrorKind::kFormat,
       "byte 68: data is 9 bytes, but shape (2,) of <f4 needs 8"},
      {"junk after dict", make_npy(ok_dict + " x\n", eight), ErrorKind::kFormat,
       "byte 68: unexpected text after the header dict"},
      {"object dtype", make_npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"),
       ErrorKind::kUnsupported,
       "byte 10: dtype '|O' is not supported (little-endian bool, uint8, int8/16/32/64, "
       "float16/32/64 are)"},
      {"structured", make_npy("{'descr': [('a', '<f4')], 'fortran_order': False}"),
       ErrorKind::kUnsupported, "byte 20: structured dtypes are not supported"},
      {"too many dims",
       make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + thirty_three_ones + "), }"),
       ErrorKind::kLimit, "byte 157: shape has more than 32 dimensions"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Error e = read_error(c.file);
    EXPECT_EQ(e.kind(), c.kind) << e.what();
    EXPECT_EQ(e.message(), c.message);
  }
}

TEST(Npy, EveryTruncationIsAnError) {
  Bytes file = map_file(npy_path("f32_2x3_v2.npy"));
  for (std::size_t n = 0; n < file.size(); ++n) {
    EXPECT_THROW(read_npy(file.slice(0, n)), Error) << n;
  }
}

TEST(Npy, FileErrorsNameThePath) {
  std::string path = testing::fixture_path("npy/make_npy.py");
  try {
    read_npy_file(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": byte 0: not a .npy file (no \\x93NUMPY magic)");
  }
}

// Our writer's files, read back by real NumPy.
TEST(Npy, NumPyReadsWhatWeWrite) {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with numpy not available";
  }
  auto dir =
      std::filesystem::temp_directory_path() / ("symbolite_npy_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  std::vector<std::pair<std::string, Tensor>> tensors;
  auto add = [&](const std::string& name, Tensor t) { tensors.emplace_back(name, std::move(t)); };
  {
    Tensor t = Tensor::empty({2, 3}, DType::kFloat32);
    for (int i = 0; i < 6; ++i) t.mutable_data<float>()[i] = static_cast<float>(i) * 0.25f - 1;
    add("f32", t);
    // Transposed view of it.
    add("f32_t", Tensor::from_storage(t.storage(), DType::kFloat32, {3, 2}, {1, 3}, 0));
  }
  {
    Tensor t = Tensor::empty({}, DType::kInt64);
    t.mutable_data<std::int64_t>()[0] = -(std::int64_t{1} << 60);
    add("i64_scalar", t);
  }
  {
    Tensor t = Tensor::empty({4}, DType::kBool);
    t.mutable_data<bool>()[1] = true;
    add("bool", t);
  }
  {
    Tensor t = Tensor::empty({2}, DType::kFloat16);
    t.mutable_data<Half>()[0] = Half{0x3c00};  // 1.0
    t.mutable_data<Half>()[1] = Half{0xc000};  // -2.0
    add("f16", t);
  }
  add("u8_empty", Tensor::empty({0, 2}, DType::kUInt8));
  add("i8", Tensor::empty({3, 1, 2}, DType::kInt8));
  add("i16", Tensor::empty({1}, DType::kInt16));
  add("i32", Tensor::empty({2, 2}, DType::kInt32));
  add("f64", Tensor::empty({5}, DType::kFloat64));

  for (const auto& [name, t] : tensors) write_npy_file((dir / (name + ".npy")).string(), t);
  std::string script =
      "import json, sys, numpy as np\n"
      "out = {}\n"
      "for name in sys.argv[2:]:\n"
      "    a = np.load(sys.argv[1] + '/' + name + '.npy')\n"
      "    v = a.reshape(-1).view(np.uint16) if a.dtype == np.float16 else a.reshape(-1)\n"
      "    out[name] = {'descr': a.dtype.str, 'shape': list(a.shape), 'values': v.tolist()}\n"
      "print(json.dumps(out))\n";
  std::string script_path = (dir / "read.py").string();
  std::ofstream(script_path) << script;
  std::string command = "/usr/bin/python3 " + script_path + " " + dir.string();
  for (const auto& [name, t] : tensors) command += " " + name;
  std::string output;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    ::pclose(pipe);
  }
  std::filesystem::remove_all(dir);
  auto got = nlohmann::json::parse(output);
  for (const auto& [name, t] : tensors) {
    SCOPED_TRACE(name);
    const auto& g = got.at(name);
    EXPECT_EQ(g["descr"], std::string(*npy_descr(t.dtype())));
    EXPECT_EQ(g["shape"].get<Shape>(), t.sizes());
    EXPECT_EQ(g["values"], values_of(t.contiguous()));
  }
}

}  // namespace
}  // namespace symbolite::tensor
