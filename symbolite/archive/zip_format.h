// Constants of the zip format (APPNOTE.TXT) shared by the reader and the writer.
#pragma once

#include <cstdint>

namespace symbolite::archive::zip {

inline constexpr std::uint32_t kLocalHeaderSignature = 0x04034b50;    // "PK\3\4"
inline constexpr std::uint32_t kDescriptorSignature = 0x08074b50;     // "PK\7\8"
inline constexpr std::uint32_t kCentralHeaderSignature = 0x02014b50;  // "PK\1\2"
inline constexpr std::uint32_t kEndSignature = 0x06054b50;            // "PK\5\6"
inline constexpr std::uint32_t kZip64EndSignature = 0x06064b50;       // "PK\6\6"
inline constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;   // "PK\6\7"

inline constexpr std::uint64_t kLocalHeaderSize = 30;
inline constexpr std::uint64_t kCentralHeaderSize = 46;
inline constexpr std::uint64_t kEndSize = 22;
inline constexpr std::uint64_t kZip64LocatorSize = 20;
inline constexpr std::uint64_t kZip64EndSize = 56;

inline constexpr std::uint16_t kMethodStored = 0;
inline constexpr std::uint16_t kMethodDeflated = 8;

inline constexpr std::uint16_t kZip64ExtraId = 0x0001;
inline constexpr std::uint32_t kZip64Marker32 = 0xFFFFFFFF;
inline constexpr std::uint16_t kZip64Marker16 = 0xFFFF;

}  // namespace symbolite::archive::zip
