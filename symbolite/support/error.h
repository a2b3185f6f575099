// The one error type of the library. symbolite throws `Error` for everything a caller can
// act on: bad input files, unsupported features, usage mistakes. Each error has a kind
// (what went wrong, which also picks the CLI exit code) and a context chain that says
// where: the file, the archive entry, the byte offset, the method, the instruction.
//
// Context is added while the error travels outwards, innermost first:
//
//   try { parse(bytes); } catch (Error& e) { e.add_context("archive entry 'm/bytecode.pkl'"); throw; }
//
// and `what()` prints it outermost first:
//   "model.ptl: archive entry 'm/bytecode.pkl': byte 37: unknown pickle opcode 0xff"
//
// Errors are never used for control flow: a lookup that may miss returns an optional.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace symbolite {

enum class ErrorKind {
  kFormat,  // the bytes are not what the format says (corrupt zip, bad pickle, ...)
  kModel,   // well-formed bytes that do not make a valid model (missing entry, bad tuple shape)
  kUnsupported,  // valid input using a feature symbolite does not handle (yet)
  kNotFound,     // something asked for is absent: a file, a handle, a method
  kUsage,        // the caller asked for something meaningless
  kLimit,        // input exceeds a safety limit (nesting depth, size)
  kIo,           // the operating system refused (open, read, map)
  kInternal,     // a broken invariant inside symbolite
};

std::string_view to_string(ErrorKind kind);

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::string message);

  ErrorKind kind() const { return kind_; }
  // The innermost message, without context.
  const std::string& message() const { return message_; }
  // Where the error happened, innermost first.
  const std::vector<std::string>& context() const { return context_; }

  // Adds an outer location ("archive entry 'x'", "method 'forward'") and returns *this so
  // that `throw e.add_context(...)` reads naturally.
  Error& add_context(std::string where);
  // Adds a line below the message (one per missing operator, say). A message and its context
  // are one line; details are the only line breaks an Error has, so the CLI can print every
  // newline from a file escaped.
  Error& add_detail(std::string line);
  const std::vector<std::string>& details() const { return details_; }

  // Context outermost first, then the message, then each detail on a line of its own.
  const char* what() const noexcept override { return rendered_.c_str(); }
  // The same, whole: text from a file may hold a NUL, which would end what() early.
  const std::string& text() const noexcept { return rendered_; }
  // Context and message, without the details.
  std::string_view summary() const noexcept {
    return std::string_view(rendered_).substr(0, summary_size_);
  }

 private:
  void render();

  ErrorKind kind_;
  std::string message_;
  std::vector<std::string> context_;
  std::vector<std::string> details_;
  std::string rendered_;
  std::size_t summary_size_ = 0;
};

// Runs `body`; if it throws an Error, adds `where` to its context and rethrows. A string
// `where` is built before `body` runs; pass a callable (the overload below) when it is costly
// to format, so that it is only called on failure.
template <typename Body>
decltype(auto) with_context(std::string_view where, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (Error& e) {
    e.add_context(std::string(where));
    throw;
  }
}

// The same with `where` a callable returning the text, called only if `body` throws.
template <typename Where, typename Body>
requires std::is_invocable_r_v<std::string, Where&>
decltype(auto) with_context(Where&& where, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (Error& e) {
    e.add_context(std::string(where()));
    throw;
  }
}

}  // namespace symbolite
