// Reads a `.symdbg` sidecar (sidecar_format.h) as a DebugInfoSource, decoding on demand: the
// file is memory-mapped, opening checks only the header and the indexes, and a lookup
// decodes one block of handle records plus the strings, sources and call-stack nodes that
// handle needs (each decoded once, then cached and shared).
//
// The file is untrusted: every offset and id is checked, call-stack records may only refer to
// earlier records (so no cycles), and a failure is Error(kFormat) naming the sidecar and the
// byte offset.
//
// Thread safety: all const methods may be called concurrently; the caches take a mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "symbolite/debuginfo/debug_info_source.h"
#include "symbolite/support/bytes.h"
#include "symbolite/support/content_hash.h"

namespace symbolite::debuginfo {

class SidecarReader : public DebugInfoSource {
 public:
  // Maps and validates `path`. Throws Error naming the path.
  static std::shared_ptr<SidecarReader> open(const std::string& path);
  // Reads a sidecar already in memory; `display_name` prefixes errors.
  static std::shared_ptr<SidecarReader> from_bytes(Bytes bytes, std::string display_name);

  const Hash128& model_id() const { return model_id_; }
  std::int64_t bytecode_version() const { return bytecode_version_; }
  const std::string& display_name() const { return name_; }

  std::optional<DebugInfo> find(DebugHandle handle) const override;
  std::optional<InstructionSite> site_of(DebugHandle handle) const override;
  const std::string& top_module_type() const override { return top_module_type_; }
  bool has_call_stacks() const override { return true; }
  HandleStats handle_stats() const override { return stats_; }

  // All handles, ascending (decodes every block).
  std::vector<DebugHandle> handles() const;

 private:
  struct Indexed {         // an indexed-records section
    Bytes data;            // the file, or the inflated section (strings)
    std::size_t base = 0;  // offset in `data` of the first record byte
    std::size_t count = 0;
    std::size_t table = 0;  // offset in `data` of the u32 offsets
  };
  struct Block {
    DebugHandle first = 0;
    std::size_t offset = 0;  // file offset of the deflated records
    std::size_t end = 0;
    std::size_t inflated_size = 0;
  };
  struct Record {  // a handle record with its ids not yet resolved
    DebugHandle handle = 0;
    std::size_t offset = 0;  // offset of its body (after the delta) in the inflated block
    std::uint64_t flags = 0, kind = 0, source = 0, start = 0, end = 0, stack = 0;
    std::uint64_t function = 0, instruction = 0;
    std::int64_t tag = -1;
    bool has_source = false;  // `source` holds a decoded id (possibly inherited)
    bool has_site = false;    // `function`/`instruction` hold a decoded site
  };

  SidecarReader(Bytes bytes, std::string name);
  void parse();
  Indexed parse_indexed(const Bytes& data, std::size_t offset, std::size_t size,
                        const char* what) const;
  std::pair<std::size_t, std::size_t> record_span(const Indexed& section, std::uint64_t id,
                                                  const char* what) const;

  // Decoders; callers hold mutex_.
  std::optional<Record> locate(DebugHandle handle) const;
  // Decodes the records of block `index` in order, calling `visit(record)` until it returns
  // false.
  template <typename Visit>
  void scan_block(std::size_t index, Visit&& visit) const;
  Bytes string_at(std::uint64_t id) const;
  SourcePtr source_at(std::uint64_t id) const;
  InlinedCallStackPtr stack_at(std::uint64_t id) const;

  Bytes bytes_;
  std::string name_;
  Hash128 model_id_{};
  Indexed strings_, sources_, stacks_;
  std::vector<Block> blocks_;
  std::size_t handle_count_ = 0;
  std::string top_module_type_;
  std::int64_t bytecode_version_ = 0;
  HandleStats stats_;

  mutable std::mutex mutex_;
  mutable std::vector<SourcePtr> source_cache_;
  mutable std::vector<InlinedCallStackPtr> stack_cache_;
  mutable std::size_t cached_block_ = SIZE_MAX;
  mutable std::vector<Record> cached_records_;
};

}  // namespace symbolite::debuginfo
