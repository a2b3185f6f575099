// Writing output files so that a reader never sees half of one and a failure leaves nothing:
// each file is written to a new temporary beside it (created exclusively, so never through a
// symlink or over another file) and renamed into place only when every file of the batch is
// complete. Renaming replaces a symlink at the final path instead of writing through it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symbolite {

class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  // Removes the temporaries of a batch that was not committed.
  ~OutputFiles();

  // Writes `bytes` to a temporary for `path`. Throws Error(kIo) naming `path`.
  void stage(const std::string& path, std::span<const std::uint8_t> bytes);
  void stage(const std::string& path, std::string_view text);
  // Creates an empty temporary for `path` and returns its name, for writers that open the
  // file themselves; it is renamed into place by commit() like the others.
  std::string stage_empty(const std::string& path);

  // The final paths staged so far, in order.
  std::vector<std::string> paths() const;

  // Renames every temporary onto its path, in the order staged.
  void commit();

 private:
  struct Staged {
    std::string path;
    std::string temp;
  };
  std::vector<Staged> staged_;
};

// One file, written the same way.
void write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes);
void write_file_atomically(const std::string& path, std::string_view text);

}  // namespace symbolite
