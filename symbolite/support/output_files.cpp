#include "symbolite/support/output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite {
namespace {

[[noreturn]] void fail(const std::string& path, int error) {
  throw Error(ErrorKind::kIo, fmt::format("{}: cannot write: {}", path, std::strerror(error)));
}

// A new file beside `path` (".NAME.XXXXXX"), created with O_EXCL by mkstemp: it cannot be an
// existing file or a symlink someone planted.
int create_temporary(const std::string& path, std::string& temp) {
  std::filesystem::path p(path);
  std::filesystem::path dir = p.parent_path();
  temp = (dir / ("." + p.filename().string() + ".XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  if (fd < 0) fail(path, errno);
  // mkstemp makes the file 0600; an output is as readable as any file the user creates.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return fd;
}

}  // namespace

OutputFiles::~OutputFiles() {
  for (const auto& s : staged_) ::unlink(s.temp.c_str());
}

std::string OutputFiles::stage_empty(const std::string& path) {
  std::string temp;
  int fd = create_temporary(path, temp);
  ::close(fd);
  staged_.push_back({path, temp});
  return temp;
}

void OutputFiles::stage(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::string temp;
  int fd = create_temporary(path, temp);
  staged_.push_back({path, temp});  // removed by the destructor if anything below fails
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail(path, error);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail(path, errno);
}

void OutputFiles::stage(const std::string& path, std::string_view text) {
  stage(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::vector<std::string> OutputFiles::paths() const {
  std::vector<std::string> out;
  for (const auto& s : staged_) out.push_back(s.path);
  return out;
}

void OutputFiles::commit() {
  // What would make a rename fail is checked for every file before the first rename, so that
  // a batch does not stop half-way: a directory where a file goes.
  for (const auto& s : staged_) {
    struct stat st {};
    if (::lstat(s.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(s.path, EISDIR);
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    if (::rename(staged_[i].temp.c_str(), staged_[i].path.c_str()) != 0) {
      int error = errno;
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
      fail(staged_.front().path, error);
    }
  }
  staged_.clear();
}

void write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes) {
  OutputFiles files;
  files.stage(path, bytes);
  files.commit();
}

void write_file_atomically(const std::string& path, std::string_view text) {
  OutputFiles files;
  files.stage(path, text);
  files.commit();
}

}  // namespace symbolite
