// torch_peer: PyTorch 1.13's own C++ lite interpreter timed the way `symbolite bench` times
// symbolite, so bench/run_peer_bench.py can put the two side by side.
//
//   torch_peer MODEL.ptl INPUT.npy [--runs N] [--warmup W] [--threads T] [--output OUT.npy]
//
// Loads the model with torch::jit::_load_for_mobile (timed), sets at::set_num_threads(T) and one
// inter-op thread, reads INPUT.npy (float32, C order), runs forward W times untimed and N times
// timed under c10::InferenceMode (no autograd recording, as a deployed model runs), and prints
// one JSON line:
//   {"load_ms":..., "median_ms":..., "min_ms":..., "p90_ms":..., "peak_rss_mib":..., "threads":T, ...}
// peak_rss_mib is VmHWM of /proc/self/status (rss_before_load_mib, VmRSS before loading the
// model, is libtorch's own share of it). With --output, the result's tensors (tuples and
// lists flattened in order) are written as float32 .npy: the first to OUT.npy, the next ones to
// OUT_1.npy, OUT_2.npy, ... (symbolite `run --output-dir` writes output_0.npy, output_1.npy, ...).
#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/jit/mobile/import.h>
#include <torch/csrc/jit/mobile/module.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "torch_peer: " << what << "\n";
  std::exit(1);
}

// A float32, C-order .npy file (format versions 1 to 3) as a tensor that owns its data.
at::Tensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail(path + ": not a .npy file");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0;
  size_t offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else {
    if (bytes.size() < 12) fail(path + ": truncated header");
    for (int i = 3; i >= 0; --i)
      header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    offset = 12;
  }
  if (offset + header_len > bytes.size()) fail(path + ": truncated header");
  const std::string header = bytes.substr(offset, header_len);
  offset += header_len;
  if (header.find("'descr': '<f4'") == std::string::npos) {
    fail(path + ": only float32 ('<f4') inputs are supported");
  }
  if (header.find("'fortran_order': False") == std::string::npos) {
    fail(path + ": only C-order arrays are supported");
  }
  const auto open = header.find('(', header.find("'shape'"));
  const auto close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) fail(path + ": no shape in header");
  std::vector<int64_t> shape;
  std::stringstream dims(header.substr(open + 1, close - open - 1));
  std::string item;
  int64_t count = 1;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos) continue;
    shape.push_back(std::stoll(item));
    count *= shape.back();
  }
  if (bytes.size() - offset < static_cast<size_t>(count) * sizeof(float))
    fail(path + ": truncated data");
  at::Tensor tensor = at::empty(shape, at::kFloat);
  std::memcpy(tensor.data_ptr<float>(), bytes.data() + offset,
              static_cast<size_t>(count) * sizeof(float));
  return tensor;
}

void write_npy(const std::string& path, at::Tensor tensor) {
  tensor = tensor.to(at::kFloat).contiguous();
  std::string shape;
  for (auto d : tensor.sizes()) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  if (tensor.dim() == 1) shape += ",";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + ")";
  header += ", }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) fail("cannot write " + path);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(tensor.data_ptr<float>()),
            static_cast<std::streamsize>(tensor.numel() * sizeof(float)));
}

void flatten(const c10::IValue& value, std::vector<at::Tensor>& out) {
  if (value.isTensor()) {
    out.push_back(value.toTensor());
  } else if (value.isTuple()) {
    for (const auto& v : value.toTupleRef().elements()) flatten(v, out);
  } else if (value.isList()) {
    for (const auto& v : value.toListRef()) flatten(v, out);
  }
}

// A figure of /proc/self/status in MiB ("VmHWM:", "VmRSS:"; the file gives kB).
double status_mib(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(key.size())) / 1024.0;
  }
  return 0.0;
}

int int_arg(const char* name, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > 1000000) fail(std::string(name) + ": bad number '" + text + "'");
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  int runs = 20, warmup = 3, threads = 1;
  std::string output;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--runs")
      runs = int_arg("--runs", value());
    else if (a == "--warmup")
      warmup = int_arg("--warmup", value());
    else if (a == "--threads")
      threads = int_arg("--threads", value());
    else if (a == "--output")
      output = value();
    else if (a.rfind("--", 0) == 0)
      fail("unknown option " + a);
    else
      positional.push_back(a);
  }
  if (positional.size() != 2 || runs < 1 || threads < 1) {
    std::cerr
        << "usage: torch_peer MODEL.ptl INPUT.npy [--runs N>=1] [--warmup W] [--threads T>=1] "
           "[--output OUT.npy]\n";
    return 2;
  }

  // libtorch's own choice, left alone (it counts physical cores, through cpuinfo).
  const int default_threads = at::get_num_threads();
  // Before any parallel work: inter-op threads can only be set once, before first use.
  at::set_num_interop_threads(1);
  at::set_num_threads(threads);
  c10::InferenceMode inference;

  // What libtorch alone costs (its libraries' touched pages and static initialisation).
  const double rss_before_load = status_mib("VmRSS:");
  const auto load_start = std::chrono::steady_clock::now();
  torch::jit::mobile::Module module = torch::jit::_load_for_mobile(positional[0]);
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();

  const std::vector<c10::IValue> inputs{read_npy(positional[1])};
  c10::IValue result;
  for (int i = 0; i < warmup; ++i) result = module.forward(inputs);
  std::vector<double> times;
  times.reserve(static_cast<size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    result = module.forward(inputs);
    const auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  // The same quantiles as `symbolite bench`: sorted[min(n - 1, floor(q * n))].
  auto at_quantile = [&](double q) {
    return sorted[std::min(sorted.size() - 1,
                           static_cast<size_t>(q * static_cast<double>(sorted.size())))];
  };
  const double median = at_quantile(0.5);
  const double p90 = at_quantile(0.9);

  if (!output.empty()) {
    std::vector<at::Tensor> tensors;
    flatten(result, tensors);
    std::string stem = output;
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".npy") == 0)
      stem.resize(stem.size() - 4);
    for (size_t i = 0; i < tensors.size(); ++i) {
      write_npy(i == 0 ? output : stem + "_" + std::to_string(i) + ".npy", tensors[i]);
    }
  }

  // intra_op_threads: what libtorch reports it will use after at::set_num_threads(T);
  // default_intra_op_threads: what it would have used without it.
  std::printf(
      "{\"load_ms\": %.3f, \"median_ms\": %.3f, \"min_ms\": %.3f, \"p90_ms\": %.3f, "
      "\"peak_rss_mib\": %.1f, \"rss_before_load_mib\": %.1f, \"threads\": %d, "
      "\"intra_op_threads\": %d, \"default_intra_op_threads\": %d, \"runs\": %d, \"warmup\": %d}\n",
      load_ms, median, sorted.front(), p90, status_mib("VmHWM:"), rss_before_load, threads,
      at::get_num_threads(), default_threads, runs, warmup);
  return 0;
}
