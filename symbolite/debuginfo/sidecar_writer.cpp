#include "symbolite/debuginfo/sidecar_writer.h"

#include <deque>
#include <string_view>
#include <unordered_map>

#include "symbolite/archive/deflate.h"
#include "symbolite/debuginfo/sidecar_format.h"
#include "symbolite/support/error.h"
#include "symbolite/support/varint.h"

namespace symbolite::debuginfo {
namespace {

using Buffer = std::vector<std::uint8_t>;

// Records of one indexed section: u32 count | u32 offsets[count + 1] | bytes.
class IndexedSection {
 public:
  Buffer& begin_record() {
    offsets_.push_back(static_cast<std::uint32_t>(data_.size()));
    return data_;
  }
  std::size_t size() const { return offsets_.size(); }
  Buffer finish() const {
    if (data_.size() > UINT32_MAX) throw Error(ErrorKind::kLimit, "sidecar section over 4 GiB");
    Buffer out;
    put_u32le(out, static_cast<std::uint32_t>(offsets_.size()));
    for (auto o : offsets_) put_u32le(out, o);
    put_u32le(out, static_cast<std::uint32_t>(data_.size()));
    out.insert(out.end(), data_.begin(), data_.end());
    return out;
  }

 private:
  std::vector<std::uint32_t> offsets_;
  Buffer data_;
};

// u64 inflated size | raw deflate.
Buffer deflated(const Buffer& raw) {
  Buffer out;
  put_u64le(out, raw.size());
  Buffer packed = archive::deflate_raw(raw);
  out.insert(out.end(), packed.begin(), packed.end());
  return out;
}

class SidecarBuilder {
 public:
  explicit SidecarBuilder(const SidecarContents& c) : c_(c) {}

  Buffer build() {
    // Node kinds and function names first: they recur in every handle record, and small
    // string ids take one byte.
    for (auto handle : c_.table->handles()) intern(c_.table->find(handle)->node_kind);
    if (c_.handles) {
      for (const auto& fn : c_.handles->functions()) intern(fn.function);
    }
    Buffer handles = encode_handles();
    Buffer meta;
    put_varint(meta, intern(c_.top_module_type));
    put_svarint(meta, c_.bytecode_version);
    auto all = c_.table->handles();
    put_varint(meta, all.size());
    put_svarint(meta, all.empty() ? 0 : all.front());
    put_svarint(meta, all.empty() ? 0 : all.back());

    std::vector<std::pair<sidecar::Section, Buffer>> sections;
    sections.emplace_back(sidecar::Section::kStrings, deflated(strings_.finish()));
    sections.emplace_back(sidecar::Section::kSources, sources_.finish());
    sections.emplace_back(sidecar::Section::kCallStacks, deflated(stacks_.finish()));
    sections.emplace_back(sidecar::Section::kHandles, std::move(handles));
    sections.emplace_back(sidecar::Section::kMeta, std::move(meta));

    Buffer out(sidecar::kMagic.begin(), sidecar::kMagic.end());
    put_u32le(out, sidecar::kVersion);
    put_u32le(out, static_cast<std::uint32_t>(sections.size()));
    out.insert(out.end(), c_.model_id.begin(), c_.model_id.end());
    std::uint64_t offset = sidecar::kHeaderSize + sections.size() * sidecar::kSectionEntrySize;
    for (const auto& [kind, bytes] : sections) {
      put_u32le(out, static_cast<std::uint32_t>(kind));
      put_u32le(out, 0);
      put_u64le(out, offset);
      put_u64le(out, bytes.size());
      offset += bytes.size();
    }
    for (const auto& [kind, bytes] : sections) out.insert(out.end(), bytes.begin(), bytes.end());
    return out;
  }

 private:
  std::uint64_t intern(std::string_view s) {
    auto it = string_ids_.find(s);
    if (it != string_ids_.end()) return it->second;
    owned_.emplace_back(s);
    std::uint64_t id = strings_.size();
    Buffer& data = strings_.begin_record();
    data.insert(data.end(), s.begin(), s.end());
    string_ids_.emplace(owned_.back(), id);
    return id;
  }

  // Source texts are stored as line strings so that lines shared across files (and across
  // the many functions PyTorch cuts one file into) are stored once.
  std::uint64_t source_id(const SourcePtr& source) {
    auto it = source_ids_.find(source.get());
    if (it != source_ids_.end()) return it->second;
    std::vector<std::uint64_t> lines;
    std::string_view text = source->text();
    for (std::size_t pos = 0; pos < text.size();) {
      std::size_t end = text.find('\n', pos);
      end = end == std::string_view::npos ? text.size() : end + 1;
      lines.push_back(intern(text.substr(pos, end - pos)));
      pos = end;
    }
    std::uint64_t filename = source->filename() ? intern(*source->filename()) + 1 : 0;
    std::uint64_t id = sources_.size();
    Buffer& data = sources_.begin_record();
    put_varint(data, filename);
    put_svarint(data, source->starting_line());
    put_varint(data, lines.size());
    for (auto line : lines) put_varint(data, line);
    source_ids_.emplace(source.get(), id);
    return id;
  }

  void put_range(Buffer& data, const SourceRange& range, std::int64_t tag) {
    if (range.known()) {
      put_varint(data, source_id(range.source()));
      put_varint(data, range.start());
      put_varint(data, range.end());
    } else {
      put_svarint(data, tag);
    }
  }

  // Callees are written before their callers, so a record only refers to smaller ids: the
  // reader can reject cycles by checking that.
  std::uint64_t stack_id(const InlinedCallStack& node) {
    auto it = stack_ids_.find(&node);
    if (it != stack_ids_.end()) return it->second;
    std::uint64_t callee = node.callee() ? stack_id(*node.callee()) + 1 : 0;
    std::uint64_t type = 0, instance = 0;
    if (node.module_instance()) {
      type = intern(node.module_instance()->type_name) + 1;
      instance = intern(node.module_instance()->instance_name);
    }
    std::uint64_t function = intern(node.function_name());
    Buffer record;
    put_varint(record, type);
    if (type) put_varint(record, instance);
    put_varint(record, node.callsite().known() ? 1 : 0);
    put_range(record, node.callsite(), node.callsite_tag());
    put_varint(record, function);
    put_varint(record, callee);
    std::uint64_t id = stacks_.size();
    Buffer& data = stacks_.begin_record();
    data.insert(data.end(), record.begin(), record.end());
    stack_ids_.emplace(&node, id);
    return id;
  }

  Buffer encode_handles() {
    auto handles = c_.table->handles();
    Buffer index;
    Buffer blocks;  // deflated blocks, back to back
    Buffer block;   // the records of the block being built
    std::uint32_t block_count = 0;
    BlockState previous;
    auto flush = [&] {
      if (block.empty()) return;
      if (block.size() > UINT32_MAX) throw Error(ErrorKind::kLimit, "sidecar block over 4 GiB");
      Buffer packed = archive::deflate_raw(block);
      put_u32le(index, static_cast<std::uint32_t>(block.size()));
      blocks.insert(blocks.end(), packed.begin(), packed.end());
      block.clear();
    };
    for (std::size_t i = 0; i < handles.size(); ++i) {
      DebugHandle handle = handles[i];
      bool block_start = i % sidecar::kHandlesPerBlock == 0;
      if (block_start) {
        flush();
        put_u64le(index, static_cast<std::uint64_t>(handle));
        put_u32le(index, static_cast<std::uint32_t>(blocks.size()));
        ++block_count;
        previous = BlockState{};
      }
      const DebugInfo& info = *c_.table->find(handle);
      auto site = c_.handles ? c_.handles->site_of(handle) : std::nullopt;
      BlockState current;
      current.stack = info.call_stack ? stack_id(*info.call_stack) + 1 : 0;
      std::uint64_t flags = 0;
      if (info.range.known()) {
        flags |= sidecar::kRangeKnown;
        current.source = source_id(info.range.source());
        current.start = static_cast<std::int64_t>(info.range.start());
        if (previous.source == current.source) flags |= sidecar::kSameSource;
      }
      if (site) {
        flags |= sidecar::kHasSite;
        current.function = intern(site->function);
        current.instruction = static_cast<std::int64_t>(site->instruction);
        if (previous.function == current.function &&
            previous.instruction + 1 == current.instruction) {
          flags |= sidecar::kNextInstruction;
        }
      }
      Buffer& record = block;
      put_varint(record, block_start ? 0 : static_cast<std::uint64_t>(handle - handles[i - 1]));
      put_varint(record, flags);
      put_varint(record, intern(info.node_kind));
      if (info.range.known()) {
        if (!(flags & sidecar::kSameSource)) put_varint(record, *current.source);
        put_svarint(record, current.start - previous.start);
        put_varint(record, info.range.end() - info.range.start());
      } else {
        put_svarint(record, info.range_tag);
        current.source = previous.source;
        current.start = previous.start;
      }
      put_svarint(record, static_cast<std::int64_t>(current.stack) -
                              static_cast<std::int64_t>(previous.stack));
      if (site && !(flags & sidecar::kNextInstruction)) {
        put_varint(record, *current.function);
        put_varint(record, static_cast<std::uint64_t>(current.instruction));
      }
      if (!site) {
        current.function = previous.function;
        current.instruction = previous.instruction;
      }
      previous = current;
    }
    flush();
    if (blocks.size() > UINT32_MAX) throw Error(ErrorKind::kLimit, "sidecar handles over 4 GiB");
    Buffer out;
    put_u32le(out, static_cast<std::uint32_t>(handles.size()));
    put_u32le(out, block_count);
    out.insert(out.end(), index.begin(), index.end());
    out.insert(out.end(), blocks.begin(), blocks.end());
    return out;
  }

  // What a handle record is relative to (see sidecar_format.h).
  struct BlockState {
    std::optional<std::uint64_t> source;
    std::int64_t start = 0;
    std::uint64_t stack = 0;
    std::optional<std::uint64_t> function;
    std::int64_t instruction = -1;
  };

  const SidecarContents& c_;
  IndexedSection strings_, sources_, stacks_;
  std::deque<std::string> owned_;
  std::unordered_map<std::string_view, std::uint64_t> string_ids_;
  std::unordered_map<const Source*, std::uint64_t> source_ids_;
  std::unordered_map<const InlinedCallStack*, std::uint64_t> stack_ids_;
};

}  // namespace

std::vector<std::uint8_t> write_sidecar(const SidecarContents& contents) {
  if (contents.table == nullptr) throw Error(ErrorKind::kUsage, "write_sidecar: no debug table");
  return SidecarBuilder(contents).build();
}

}  // namespace symbolite::debuginfo
