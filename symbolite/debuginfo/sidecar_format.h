// The `.symdbg` sidecar: everything needed to symbolicate a model's debug handles, apart from
// the model. Full description in docs/FORMATS.md ("Sidecar"). In short, little-endian:
//
//   header   magic "SYMDBG\0\x1a" | u32 version | u32 section count | 16-byte model id
//   table    per section: u32 kind | u32 reserved (0) | u64 offset | u64 size
//   sections STRINGS, CALL_STACKS: u64 inflated size | raw deflate of indexed records
//            SOURCES: indexed records
//              (u32 count | u32 offsets[count + 1] | record bytes)
//            HANDLES: u32 handle count | u32 block count | blocks index
//              (i64 first handle | u32 offset | u32 inflated size) per block | deflated blocks
//            META: varints (top module type string, bytecode version, handle stats)
//
// Every integer inside a record is a varint (support/varint.h); strings are shared through the
// one STRINGS table across all sources of the archive (source texts are stored as lists of
// line strings, so a line repeated in many files is stored once). Lookups binary-search the
// block index and inflate and decode one block (kept until another block is needed): a
// handle symbolicates without decoding the rest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace symbolite::debuginfo::sidecar {

inline constexpr std::array<std::uint8_t, 8> kMagic = {'S', 'Y', 'M', 'D', 'B', 'G', 0x00, 0x1a};
inline constexpr std::uint32_t kVersion = 1;
inline constexpr std::size_t kHeaderSize = 32;
inline constexpr std::size_t kSectionEntrySize = 24;
inline constexpr std::size_t kHandlesPerBlock = 128;

enum class Section : std::uint32_t {
  kStrings = 1,
  kSources = 2,
  kCallStacks = 3,
  kHandles = 4,
  kMeta = 5,
};

// A handle record, in a block (fields relative to the previous record of the same block,
// or to zero at the block start — most handles continue their predecessor):
//   varint  handle delta (0 for the block's first handle)
//   varint  flags (below)
//   varint  node kind (string id)
//   range:  known:   [varint source id unless kSameSource] svarint start delta, varint length
//           unknown: svarint source-range tag
//   svarint call-stack (id + 1, 0 for none) delta
//   site:   kHasSite and not kNextInstruction: varint function (string id), varint instruction
inline constexpr std::uint64_t kRangeKnown = 1;
inline constexpr std::uint64_t kHasSite = 2;
inline constexpr std::uint64_t kNextInstruction = 4;  // same function, instruction + 1
inline constexpr std::uint64_t kSameSource = 8;       // same source as the previous record

}  // namespace symbolite::debuginfo::sidecar
