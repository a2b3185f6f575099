// Reading a pickled record of a model archive (bytecode.pkl, data.pkl, the debug records) with
// errors that say where: every failure,
// whether in the zip, the pickle or the decoding of its contents, names the archive and the
// entry ("m.ptl: archive entry 'm/bytecode.pkl': byte 37: ...").
#pragma once

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/error.h"

namespace symbolite::archive {

// The largest pickled record inflated for decoding. The largest pickle of the largest
// torchvision model is 334 KB (maxvit_t's callstack_debug_map.pkl); a deflated record can
// declare up to the zip limit (4 GiB) from a few MB of file, which is refused here, from the
// central directory, before anything is allocated.
inline constexpr std::uint64_t kMaxPickleRecordSize = std::uint64_t{256} << 20;

// Unpickles record `name` and passes the Value to `decode`; returns what `decode` returns.
template <typename Decode>
decltype(auto) decode_pickle_record(const ModelArchive& archive, std::string_view name,
                                    Decode&& decode, const pickle::UnpickleOptions& options = {}) {
  if (std::uint64_t size = archive.record_size(name).value_or(0); size > kMaxPickleRecordSize) {
    throw Error(ErrorKind::kLimit,
                fmt::format("{}: archive entry '{}/{}': the pickle is {} bytes uncompressed, more "
                            "than the limit of {}",
                            archive.display_name(), archive.record_folder(), name, size,
                            kMaxPickleRecordSize));
  }
  Bytes bytes = archive.read_record(name);  // names the entry itself on failure
  try {
    return std::forward<Decode>(decode)(pickle::unpickle(bytes, options));
  } catch (Error& e) {
    e.add_context(fmt::format("archive entry '{}/{}'", archive.record_folder(), name));
    e.add_context(archive.display_name());
    throw;
  }
}

}  // namespace symbolite::archive
