// Read-only memory mapping of a whole file. The returned Bytes owns the mapping: the file
// stays mapped until the last view of it is gone.
#pragma once

#include <string>

#include "symbolite/support/bytes.h"

namespace symbolite {

// What mapping a file does up front. kWhole fills the page tables for the whole file in the
// mapping call (MAP_POPULATE): one pass in the kernel instead of a fault per few pages, for a
// caller that reads everything (loading a model to run reads every tensor); kOnDemand maps
// pages as they are touched (inspect or symbolicate read a few records of a large file).
enum class MapPrefetch { kOnDemand, kWhole };

// Maps `path` read-only. Throws Error(kIo / kNotFound) naming the path on failure; what is not
// a regular file (directory, device, FIFO, socket) is refused before it is opened. An empty
// file gives empty Bytes.
Bytes map_file(const std::string& path, MapPrefetch prefetch = MapPrefetch::kOnDemand);

// Gives the pages wholly inside `bytes` back to the system when they belong to a mapping made
// by map_file; read again, they come back from the file (the mapping is read-only, so they
// never hold anything else). For bytes read once into another form that need not stay
// resident: a convolution's weights, reordered for oneDNN (ops/cpu/onednn_conv.h). Does
// nothing for other bytes (a decompressed buffer would lose its contents).
void release_mapped_pages(const Bytes& bytes);

// Registers `f` to be called after any mapping made by map_file is unmapped (its last view
// gone), on the thread that dropped that view: for caches of what was derived from a file's
// bytes (ops/cpu/onednn_conv.h drops its copies of the file's weights). Registrations last for
// the process; `f` must not drop views of mappings itself.
void call_after_unmap(void (*f)());

}  // namespace symbolite
