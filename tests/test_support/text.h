// String helpers the tests share.
#pragma once

#include <string>
#include <string_view>

namespace symbolite::testing {

// `s` without trailing newlines and spaces: tracebacks compared as text, whatever their ends.
inline std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

inline bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace symbolite::testing
