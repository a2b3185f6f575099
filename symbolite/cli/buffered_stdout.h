// Standard output held back until the command has succeeded: a command that fails prints
// nothing on stdout (never half a result), and what it prints is made terminal-safe
// (support/printable_text.h) on the way out. Works at the file-descriptor level, so every
// writer — std::cout, fmt::print, a `-` output — is caught.
#pragma once

namespace symbolite::cli {

class BufferedStdout {
 public:
  // Starts holding back standard output (a no-op if that is impossible, e.g. stdout closed).
  BufferedStdout();
  // Discards what was held back unless release() was called.
  ~BufferedStdout();
  BufferedStdout(const BufferedStdout&) = delete;
  BufferedStdout& operator=(const BufferedStdout&) = delete;

  // Writes what was held back to the real standard output, escaped.
  void release();

 private:
  // Puts the real standard output back; returns the held-back bytes' descriptor.
  int restore();

  int saved_stdout_ = -1;
  int buffer_ = -1;
};

}  // namespace symbolite::cli
