#include "symbolite/debuginfo/sidecar_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/archive/inflate.h"
#include "symbolite/debuginfo/sidecar_format.h"
#include "symbolite/support/byte_cursor.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"

namespace symbolite::debuginfo {
namespace {

constexpr std::uint64_t kMaxInflatedSection = std::uint64_t{1} << 30;

[[noreturn]] void corrupt(std::size_t offset, std::string_view what) {
  throw Error(ErrorKind::kFormat, fmt::format("byte {}: {}", offset, what));
}

std::size_t checked_end(std::size_t offset, std::size_t size, std::size_t limit, std::size_t where,
                        const char* what) {
  if (offset > limit || size > limit - offset) {
    corrupt(where, fmt::format("{} [{}, +{}) lies outside the file ({} bytes)", what, offset, size,
                               limit));
  }
  return offset + size;
}

// Sections that are mostly text or repetitive (strings, call stacks) are deflated; they are
// inflated once when the sidecar is opened. Layout: u64 inflated size | raw deflate.
Bytes inflate_section(const Bytes& file, std::size_t offset, std::size_t size, const char* what) {
  ByteCursor c(file.span().subspan(offset, size), offset, what);
  std::uint64_t raw_size = c.u64();
  if (raw_size > kMaxInflatedSection) {
    throw Error(ErrorKind::kLimit, fmt::format("byte {}: {} of {} bytes exceeds the limit of {}",
                                               offset, what, raw_size, kMaxInflatedSection));
  }
  return archive::inflate_raw(c.take(c.remaining()), raw_size, offset + 8);
}

// A call-stack record's fields, decoded before its node is built.
struct StackFields {
  std::optional<ModuleInstance> instance;
  std::optional<std::uint64_t> source;
  std::uint64_t start = 0, end = 0;
  std::int64_t tag = -1;
  std::string function;
  std::uint64_t callee = 0;  // id + 1, 0 for none
};

}  // namespace

std::shared_ptr<SidecarReader> SidecarReader::open(const std::string& path) {
  return from_bytes(map_file(path), path);
}

std::shared_ptr<SidecarReader> SidecarReader::from_bytes(Bytes bytes, std::string display_name) {
  std::shared_ptr<SidecarReader> reader(new SidecarReader(std::move(bytes), display_name));
  with_context(fmt::format("sidecar {}", display_name), [&] { reader->parse(); });
  return reader;
}

SidecarReader::SidecarReader(Bytes bytes, std::string name)
    : bytes_(std::move(bytes)), name_(std::move(name)) {}

void SidecarReader::parse() {
  const std::size_t size = bytes_.size();
  ByteCursor header(bytes_.span(), 0, "sidecar header");
  auto magic = header.take(sidecar::kMagic.size());
  if (!std::equal(magic.begin(), magic.end(), sidecar::kMagic.begin())) {
    corrupt(0, "not a symbolite sidecar (bad magic)");
  }
  std::uint32_t version = header.u32();
  if (version != sidecar::kVersion) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("sidecar format version {}; this symbolite reads version {}", version,
                            sidecar::kVersion));
  }
  std::uint32_t section_count = header.u32();
  auto id = header.take(model_id_.size());
  std::copy(id.begin(), id.end(), model_id_.begin());
  if (section_count > 64) corrupt(12, fmt::format("{} sections is implausible", section_count));
  checked_end(sidecar::kHeaderSize, section_count * sidecar::kSectionEntrySize, size, 12,
              "section table");

  std::optional<std::pair<std::size_t, std::size_t>> found[6];
  for (std::uint32_t i = 0; i < section_count; ++i) {
    std::size_t entry_offset = header.offset();
    std::uint32_t kind = header.u32();
    header.u32();
    std::uint64_t offset = header.u64();
    std::uint64_t length = header.u64();
    checked_end(offset, length, size, entry_offset, "section");
    if (kind >= 1 && kind <= 5) found[kind] = std::make_pair(offset, length);
  }
  auto section = [&](sidecar::Section kind, const char* what) {
    const auto& s = found[static_cast<std::uint32_t>(kind)];
    if (!s) corrupt(12, fmt::format("missing {} section", what));
    return *s;
  };
  auto [so, ss] = section(sidecar::Section::kStrings, "strings");
  Bytes strings = inflate_section(bytes_, so, ss, "string table");
  strings_ = parse_indexed(strings, 0, strings.size(), "string table");
  auto [ro, rs] = section(sidecar::Section::kSources, "sources");
  sources_ = parse_indexed(bytes_, ro, rs, "source table");
  auto [co, cs] = section(sidecar::Section::kCallStacks, "call stacks");
  Bytes stacks = inflate_section(bytes_, co, cs, "call-stack table");
  stacks_ = parse_indexed(stacks, 0, stacks.size(), "call-stack table");
  source_cache_.resize(sources_.count);
  stack_cache_.resize(stacks_.count);

  auto [ho, hs] = section(sidecar::Section::kHandles, "handles");
  ByteCursor handles(bytes_.span().subspan(ho, hs), ho, "handle index");
  handle_count_ = handles.u32();
  std::uint32_t block_count = handles.u32();
  std::size_t expected_blocks =
      (handle_count_ + sidecar::kHandlesPerBlock - 1) / sidecar::kHandlesPerBlock;
  if (block_count != expected_blocks) {
    corrupt(ho + 4, fmt::format("{} handles need {} blocks, the index has {}", handle_count_,
                                expected_blocks, block_count));
  }
  std::size_t blocks_base =
      checked_end(ho + 8, std::size_t{block_count} * 16, ho + hs, ho + 4, "block index");
  blocks_.reserve(block_count);
  for (std::uint32_t i = 0; i < block_count; ++i) {
    std::size_t at = handles.offset();
    Block b;
    b.first = static_cast<DebugHandle>(handles.u64());
    b.offset = blocks_base + handles.u32();
    b.inflated_size = handles.u32();
    if (b.inflated_size > kMaxInflatedSection) corrupt(at, "implausible handle block size");
    if (b.offset > ho + hs || (!blocks_.empty() && (b.first <= blocks_.back().first ||
                                                    b.offset < blocks_.back().offset))) {
      corrupt(at, "block index out of order or outside the section");
    }
    if (!blocks_.empty()) blocks_.back().end = b.offset;
    blocks_.push_back(b);
  }
  if (!blocks_.empty()) blocks_.back().end = ho + hs;

  auto [mo, ms] = section(sidecar::Section::kMeta, "meta");
  ByteCursor meta(bytes_.span().subspan(mo, ms), mo, "meta section");
  top_module_type_ = std::string(string_at(meta.varint()).str());
  bytecode_version_ = meta.svarint();
  stats_.count = meta.varint();
  stats_.min = meta.svarint();
  stats_.max = meta.svarint();
  if (stats_.count != handle_count_) corrupt(mo, "handle count differs from the index");
}

SidecarReader::Indexed SidecarReader::parse_indexed(const Bytes& data, std::size_t offset,
                                                    std::size_t size, const char* what) const {
  ByteCursor c(data.span().subspan(offset, size), offset, what);
  Indexed s;
  s.data = data;
  s.count = c.u32();
  s.table = c.offset();
  std::size_t base =
      checked_end(s.table, (s.count + 1) * std::size_t{4}, offset + size, offset, what);
  std::uint32_t previous = 0;
  for (std::size_t i = 0; i <= s.count; ++i) {
    std::size_t at = c.offset();
    std::uint32_t o = c.u32();
    if (o < previous || base + o > offset + size) {
      corrupt(at, fmt::format("{}: record offsets out of order or outside the section", what));
    }
    previous = o;
  }
  s.base = base;
  return s;
}

std::pair<std::size_t, std::size_t> SidecarReader::record_span(const Indexed& section,
                                                               std::uint64_t id,
                                                               const char* what) const {
  if (id >= section.count) {
    corrupt(section.table,
            fmt::format("{} id {} out of range ({} records)", what, id, section.count));
  }
  const std::uint8_t* table = section.data.data() + section.table;
  std::size_t begin = section.base + load_u32le(table + 4 * id);
  std::size_t end = section.base + load_u32le(table + 4 * (id + 1));
  return {begin, end};
}

Bytes SidecarReader::string_at(std::uint64_t id) const {
  auto [begin, end] = record_span(strings_, id, "string");
  return strings_.data.slice(begin, end - begin);
}

SourcePtr SidecarReader::source_at(std::uint64_t id) const {
  auto [begin, end] = record_span(sources_, id, "source");
  if (source_cache_[id]) return source_cache_[id];
  ByteCursor c(sources_.data.span().subspan(begin, end - begin), begin, "source record");
  std::uint64_t filename_id = c.varint();
  std::optional<std::string> filename;
  if (filename_id) filename = std::string(string_at(filename_id - 1).str());
  std::int64_t starting_line = c.svarint();
  std::uint64_t pieces = c.varint();
  if (pieces > c.remaining()) corrupt(begin, "source claims more lines than it has bytes");
  Bytes text;
  if (pieces == 1) {
    text = string_at(c.varint());  // a zero-copy view into the sidecar
  } else {
    std::string joined;
    for (std::uint64_t i = 0; i < pieces; ++i) joined += string_at(c.varint()).str();
    text = Bytes::copy_of(joined);
  }
  source_cache_[id] = std::make_shared<Source>(std::move(text), std::move(filename), starting_line);
  return source_cache_[id];
}

InlinedCallStackPtr SidecarReader::stack_at(std::uint64_t id) const {
  // Walk the callee chain iteratively (a hostile file could make it very deep), then build
  // nodes innermost first. Callees always have smaller ids, so the walk terminates.
  std::vector<std::pair<std::uint64_t, StackFields>> chain;
  std::uint64_t current = id;
  while (true) {
    auto [begin, end] = record_span(stacks_, current, "call stack");
    if (stack_cache_[current]) break;
    ByteCursor c(stacks_.data.span().subspan(begin, end - begin), begin, "call-stack record");
    StackFields f;
    if (std::uint64_t type = c.varint()) {
      f.instance = ModuleInstance{std::string(string_at(type - 1).str()),
                                  std::string(string_at(c.varint()).str())};
    }
    if (c.varint()) {
      f.source = c.varint();
      f.start = c.varint();
      f.end = c.varint();
    } else {
      f.tag = c.svarint();
    }
    f.function = std::string(string_at(c.varint()).str());
    f.callee = c.varint();
    if (f.callee > current) {
      corrupt(begin,
              fmt::format("call-stack record {} refers to later record {}", current, f.callee - 1));
    }
    std::uint64_t next = f.callee;
    chain.emplace_back(current, std::move(f));
    if (next == 0) break;
    current = next - 1;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    StackFields& f = it->second;
    SourceRange range;
    if (f.source) {
      if (f.end < f.start) corrupt(0, "call-stack record with an inverted source range");
      range = SourceRange(source_at(*f.source), f.start, f.end);
    }
    InlinedCallStackPtr callee = f.callee ? stack_cache_[f.callee - 1] : nullptr;
    stack_cache_[it->first] = std::make_shared<InlinedCallStack>(
        std::move(f.instance), std::move(range), f.tag, std::move(f.function), std::move(callee));
  }
  return stack_cache_[id];
}

template <typename Visit>
void SidecarReader::scan_block(std::size_t index, Visit&& visit) const {
  const Block& block = blocks_[index];
  std::size_t in_block =
      std::min(sidecar::kHandlesPerBlock, handle_count_ - index * sidecar::kHandlesPerBlock);
  // Blocks are deflated; offsets in errors are then within the inflated block.
  Bytes records =
      archive::inflate_raw(bytes_.span().subspan(block.offset, block.end - block.offset),
                           block.inflated_size, block.offset);
  ByteCursor c(records.span(), 0, "handle block");
  DebugHandle current = block.first;
  Record previous;  // fields of the previous record; zero at the block start
  for (std::size_t i = 0; i < in_block; ++i) {
    std::uint64_t delta = c.varint();
    if (i > 0 && delta == 0) corrupt(c.offset(), "handles in a block are not ascending");
    current += static_cast<DebugHandle>(delta);
    Record r = previous;
    r.handle = current;
    r.offset = c.offset();
    r.flags = c.varint();
    r.kind = c.varint();
    if (r.flags & sidecar::kRangeKnown) {
      if (!(r.flags & sidecar::kSameSource)) {
        r.source = c.varint();
      } else if (!previous.has_source) {
        corrupt(r.offset, "record reuses a source, but no earlier record in its block has one");
      }
      r.has_source = true;
      r.start = previous.start + static_cast<std::uint64_t>(c.svarint());
      std::uint64_t length = c.varint();
      if (length > UINT64_MAX - r.start) corrupt(r.offset, "source range overflows");
      r.end = r.start + length;
    } else {
      r.tag = c.svarint();
    }
    r.stack = previous.stack + static_cast<std::uint64_t>(c.svarint());
    if (r.flags & sidecar::kHasSite) {
      if (r.flags & sidecar::kNextInstruction) {
        if (!previous.has_site) corrupt(r.offset, "record continues a site, but none precedes it");
        r.instruction = previous.instruction + 1;
      } else {
        r.function = c.varint();
        r.instruction = c.varint();
      }
      r.has_site = true;
    }
    previous = r;
    if (!visit(r)) return;
  }
}

std::optional<SidecarReader::Record> SidecarReader::locate(DebugHandle handle) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), handle,
                             [](DebugHandle h, const Block& b) { return h < b.first; });
  if (it == blocks_.begin()) return std::nullopt;
  // Lookups usually come in handle order (a log, a profile, `find` then `site_of`): keep the
  // last decoded block.
  auto index = static_cast<std::size_t>(it - 1 - blocks_.begin());
  if (cached_block_ != index) {
    cached_records_.clear();
    cached_block_ = SIZE_MAX;  // stays invalid if decoding throws
    scan_block(index, [&](const Record& r) {
      cached_records_.push_back(r);
      return true;
    });
    cached_block_ = index;
  }
  auto found = std::lower_bound(cached_records_.begin(), cached_records_.end(), handle,
                                [](const Record& r, DebugHandle h) { return r.handle < h; });
  if (found == cached_records_.end() || found->handle != handle) return std::nullopt;
  return *found;
}

std::optional<DebugInfo> SidecarReader::find(DebugHandle handle) const {
  return with_context(fmt::format("sidecar {}", name_), [&]() -> std::optional<DebugInfo> {
    std::lock_guard<std::mutex> lock(mutex_);
    auto r = locate(handle);
    if (!r) return std::nullopt;
    DebugInfo info;
    info.node_kind = std::string(string_at(r->kind).str());
    if (r->flags & sidecar::kRangeKnown) {
      info.range = SourceRange(source_at(r->source), r->start, r->end);
    } else {
      info.range_tag = r->tag;
    }
    if (r->stack) info.call_stack = stack_at(r->stack - 1);
    return info;
  });
}

std::optional<InstructionSite> SidecarReader::site_of(DebugHandle handle) const {
  return with_context(fmt::format("sidecar {}", name_), [&]() -> std::optional<InstructionSite> {
    std::lock_guard<std::mutex> lock(mutex_);
    auto r = locate(handle);
    if (!r || !(r->flags & sidecar::kHasSite)) return std::nullopt;
    return InstructionSite{std::string(string_at(r->function).str()),
                           static_cast<std::size_t>(r->instruction)};
  });
}

std::vector<DebugHandle> SidecarReader::handles() const {
  return with_context(fmt::format("sidecar {}", name_), [&] {
    std::vector<DebugHandle> out;
    out.reserve(handle_count_);
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      scan_block(b, [&](const Record& r) {
        out.push_back(r.handle);
        return true;
      });
    }
    return out;
  });
}

}  // namespace symbolite::debuginfo
