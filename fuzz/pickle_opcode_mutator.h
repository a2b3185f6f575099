// A structure-aware mutator for harnesses whose input is a pickle: the input is cut into
// opcodes (each with its argument bytes), and a mutation works on whole opcodes — drop one,
// repeat one, swap two neighbours, copy one elsewhere, or let libFuzzer change one opcode's
// arguments — so most mutants stay pickles and exercise the readers behind the unpickler
// (nesting, memo, containers) instead of failing on the first byte. One mutation in four is
// a plain byte mutation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace symbolite::fuzzing {

// Length of the opcode at `at` (with its arguments), or 0 when it cannot be told (an unknown
// opcode, or arguments past the end).
inline std::size_t pickle_opcode_length(const std::uint8_t* p, std::size_t left) {
  auto counted = [&](std::size_t header, std::size_t width) -> std::size_t {
    if (left < 1 + width) return 0;
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < width; ++i) n |= std::uint64_t{p[1 + i]} << (8 * i);
    return n > left - header ? 0 : header + static_cast<std::size_t>(n);
  };
  auto line = [&](int lines) -> std::size_t {
    std::size_t at = 1;
    for (int l = 0; l < lines; ++l) {
      const void* nl = std::memchr(p + at, '\n', left - at);
      if (nl == nullptr) return 0;
      at = static_cast<std::size_t>(static_cast<const std::uint8_t*>(nl) - p) + 1;
    }
    return at;
  };
  auto fixed = [&](std::size_t n) -> std::size_t { return n <= left ? n : 0; };
  switch (p[0]) {
    case '(':
    case '.':
    case '0':
    case '1':
    case '2':
    case 'N':
    case 'a':
    case 'e':
    case 'b':
    case 'd':
    case '}':
    case ']':
    case ')':
    case 'l':
    case 'R':
    case 's':
    case 'u':
    case 't':
    case 'Q':
    case 'o':
    case 0x85:
    case 0x86:
    case 0x87:
    case 0x88:
    case 0x89:
    case 0x81:
    case 0x92:
    case 0x93:
    case 0x94:
    case 0x8f:
    case 0x90:
    case 0x91:
    case 0x97:
    case 0x98:
      return 1;
    case 'K':
    case 'h':
    case 'q':
    case 0x80:
    case 0x82:
      return fixed(2);
    case 'M':
    case 0x83:
      return fixed(3);
    case 'J':
    case 'j':
    case 'r':
    case 0x84:
      return fixed(5);
    case 'G':
    case 0x95:
      return fixed(9);
    case 'U':
    case 'C':
    case 0x8c:
    case 0x8a:
      return counted(2, 1);
    case 'T':
    case 'X':
    case 'B':
    case 0x8b:
      return counted(5, 4);
    case 0x8d:
    case 0x8e:
    case 0x96:
      return counted(9, 8);
    case 'I':
    case 'L':
    case 'F':
    case 'S':
    case 'V':
    case 'g':
    case 'p':
    case 'P':
      return line(1);
    case 'c':
    case 'i':
      return line(2);
    default:
      return 0;
  }
}

inline std::size_t mutate_pickle(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                 unsigned int seed) {
  std::minstd_rand random(seed);
  if (size == 0 || random() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  // Cut into opcodes; whatever cannot be cut stays one last piece.
  std::vector<std::vector<std::uint8_t>> ops;
  for (std::size_t at = 0; at < size;) {
    std::size_t n = pickle_opcode_length(data + at, size - at);
    if (n == 0) n = size - at;
    ops.emplace_back(data + at, data + at + n);
    at += n;
  }
  const std::size_t i = random() % ops.size();
  const std::size_t j = random() % ops.size();
  switch (random() % 5) {
    case 0:
      if (ops.size() > 1) ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    case 1:
      ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(i), ops[i]);
      break;
    case 2:
      if (i + 1 < ops.size()) std::swap(ops[i], ops[i + 1]);
      break;
    case 3:
      ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(j), ops[i]);
      break;
    default: {
      auto& op = ops[i];
      std::size_t old = op.size();
      op.resize(old + 16);
      op.resize(LLVMFuzzerMutate(op.data(), old, op.size()));
      break;
    }
  }
  std::size_t total = 0;
  for (const auto& op : ops) total += op.size();
  if (total > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::size_t at = 0;
  for (const auto& op : ops) {
    std::copy(op.begin(), op.end(), data + at);
    at += op.size();
  }
  return total;
}

}  // namespace symbolite::fuzzing
