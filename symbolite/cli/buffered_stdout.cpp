#include "symbolite/cli/buffered_stdout.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "symbolite/support/printable_text.h"

namespace symbolite::cli {
namespace {

void flush_writers() {
  std::cout.flush();
  std::fflush(stdout);
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;  // stdout closed or full: nothing more can be said on it
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

BufferedStdout::BufferedStdout() {
  flush_writers();
  buffer_ = ::memfd_create("symbolite-stdout", MFD_CLOEXEC);
  if (buffer_ < 0) return;
  saved_stdout_ = ::dup(STDOUT_FILENO);
  if (saved_stdout_ < 0 || ::dup2(buffer_, STDOUT_FILENO) < 0) {
    if (saved_stdout_ >= 0) ::close(saved_stdout_);
    ::close(buffer_);
    saved_stdout_ = buffer_ = -1;
  }
}

BufferedStdout::~BufferedStdout() {
  if (int fd = restore(); fd >= 0) ::close(fd);
}

int BufferedStdout::restore() {
  if (buffer_ < 0) return -1;
  flush_writers();
  ::dup2(saved_stdout_, STDOUT_FILENO);
  ::close(saved_stdout_);
  int fd = buffer_;
  saved_stdout_ = buffer_ = -1;
  return fd;
}

void BufferedStdout::release() {
  int fd = restore();
  if (fd < 0) return;
  std::string held;
  char chunk[1 << 16];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;)
    held.append(chunk, static_cast<std::size_t>(n));
  ::close(fd);
  write_all(STDOUT_FILENO, printable_text(held));
}

}  // namespace symbolite::cli
