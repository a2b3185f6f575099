// Reading pickled records of a model archive with errors that say where: every failure,
// whether in the zip, the pickle or the decoding of its contents, names the archive and the
// entry ("m.ptl: archive entry 'm/bytecode.pkl': byte 37: ...").
#pragma once

#include <string_view>

#include <fmt/format.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/error.h"

namespace symbolite::debuginfo {

// Unpickles record `name` and passes the Value to `decode`; returns what `decode` returns.
template <typename Decode>
decltype(auto) decode_pickle_record(const archive::ModelArchive& archive, std::string_view name,
                                    Decode&& decode,
                                    const pickle::UnpickleOptions& options = {}) {
  Bytes bytes = archive.read_record(name);  // names the entry itself on failure
  try {
    return std::forward<Decode>(decode)(pickle::unpickle(bytes, options));
  } catch (Error& e) {
    e.add_context(fmt::format("archive entry '{}/{}'", archive.record_folder(), name));
    e.add_context(archive.display_name());
    throw;
  }
}

}  // namespace symbolite::debuginfo
