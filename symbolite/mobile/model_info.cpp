#include "symbolite/mobile/model_info.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "symbolite/archive/pickle_record.h"
#include "symbolite/debuginfo/table_debug_info_source.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

// PyTorch writes the archive format version as a short decimal number ("8\n"); a record that
// is anything else is a damaged or crafted file, refused before it is used or copied. Returns
// the number, read as PyTorch reads it: `.data/version` when present, else `version`.
std::optional<std::uint64_t> read_version_record(const archive::ModelArchive& archive) {
  std::optional<std::uint64_t> version;
  for (std::string_view name : {".data/version", "version"}) {
    std::optional<std::uint64_t> size = archive.record_size(name);
    if (!size) continue;
    constexpr std::uint64_t kMaxVersionSize = 32;
    if (*size > kMaxVersionSize) {
      throw Error(ErrorKind::kFormat,
                  fmt::format("{}: archive entry '{}/{}' is {} bytes; PyTorch writes the format "
                              "version there as a short number",
                              archive.display_name(), archive.record_folder(), name, *size));
    }
    std::string_view text = archive.read_record(name).str();
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    bool number = !text.empty() && digit(text[0]) &&
                  std::all_of(text.begin(), text.end(),
                              [&](char c) { return digit(c) || c == '\n' || c == '\r'; });
    if (!number) {
      throw Error(ErrorKind::kFormat,
                  fmt::format("{}: archive entry '{}/{}' does not hold a version number",
                              archive.display_name(), archive.record_folder(), name));
    }
    std::uint64_t value = 0;
    auto digits_end = std::find_if_not(text.begin(), text.end(), digit);
    const char* first = text.data();
    if (std::from_chars(first, first + (digits_end - text.begin()), value).ec != std::errc()) {
      throw Error(ErrorKind::kFormat,
                  fmt::format("{}: archive entry '{}/{}' holds a version number too large",
                              archive.display_name(), archive.record_folder(), name));
    }
    if (!version) version = value;
  }
  return version;
}

}  // namespace

ModelInfo ModelInfo::load(const std::string& path) {
  return from_archive(archive::ModelArchive::open(path));
}

ModelInfo ModelInfo::from_archive(archive::ModelArchive archive, Contents contents) {
  std::optional<std::uint64_t> operator_version = read_version_record(archive);
  const bool all = contents == Contents::kAll;
  ModuleNode modules;
  if (all) {
    modules = archive::decode_pickle_record(
        archive, "data.pkl", [](const pickle::Value& v) { return read_module_tree(v); });
  }
  std::optional<Bytecode> bytecode;
  if (archive.has_record("bytecode.pkl")) {
    // Instruction lists read packed: a Value per instruction was half of a large model's load.
    pickle::PackedTriples packed{std::string(kInstructionsKey)};
    pickle::UnpickleOptions options;
    options.packed_triples = &packed;
    bytecode = archive::decode_pickle_record(
        archive, "bytecode.pkl", [&](const pickle::Value& v) { return read_bytecode(v, packed); },
        options);
    if (!bytecode) {  // a packed tuple elsewhere (a constant shaped like a list): as values
      bytecode = archive::decode_pickle_record(
          archive, "bytecode.pkl", [](const pickle::Value& v) { return read_bytecode(v); });
    }
  }
  auto debug = all ? debuginfo::ModelDebugInfo::load(archive)
                   : debuginfo::ModelDebugInfo::find_records(archive);
  return ModelInfo{std::move(archive), std::move(bytecode), std::move(modules), std::move(debug),
                   contents,           operator_version};
}

debuginfo::Symbolicator ModelInfo::symbolicator() const {
  return debuginfo::Symbolicator(std::make_shared<debuginfo::TableDebugInfoSource>(
      debug.table, debug.has_handle_table ? &debug.handles : nullptr, modules.type,
      debug.has_callstack_map));
}

}  // namespace symbolite::mobile
