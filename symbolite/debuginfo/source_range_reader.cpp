#include "symbolite/debuginfo/source_range_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::debuginfo {
namespace {

const pickle::ValueList& expect_tuple(const pickle::Value& v, std::size_t size,
                                      std::string_view what) {
  const auto& items = v.as_tuple();
  if (items.size() != size) {
    throw Error(ErrorKind::kModel, fmt::format("{}: expected a tuple of {} elements, got {}", what,
                                               size, items.size()));
  }
  return items;
}

// Builds Sources from serialized source tuples, sharing one Source per pickled tuple.
class SourceDecoder {
 public:
  SourceDecoder(const pickle::ValueList* string_table, SourceTextBudget& budget)
      : table_(string_table), budget_(budget) {}

  SourcePtr decode(const pickle::Value& v) {
    if (auto it = cache_.find(v.identity()); it != cache_.end()) return it->second;
    const auto& items = expect_tuple(v, 3, "source");
    SourcePtr source = table_ ? decode_with_table(items) : decode_legacy(items);
    cache_.emplace(v.identity(), source);
    return source;
  }

 private:
  SourcePtr decode_legacy(const pickle::ValueList& items) {
    std::optional<std::string> filename;
    if (!items[1].is_none()) filename = std::string(items[1].as_string());
    charge(items[0].as_string_bytes().str());
    return std::make_shared<Source>(items[0].as_string_bytes(), std::move(filename),
                                    items[2].as_int());
  }

  SourcePtr decode_with_table(const pickle::ValueList& items) {
    const auto& pieces = items[0].as_sequence();
    Bytes text;
    if (pieces.size() == 1) {
      text = table_string(pieces[0].as_int());  // a single piece stays a zero-copy view
      charge(text.str());
    } else {
      // Charged piece by piece before anything is joined.
      for (const auto& piece : pieces) charge(table_string(piece.as_int()).str());
      std::string joined;
      for (const auto& piece : pieces) joined += table_string(piece.as_int()).str();
      text = Bytes::copy_of(joined);
    }
    std::string filename(table_string(items[1].as_int()).str());
    return std::make_shared<Source>(std::move(text), std::move(filename), items[2].as_int());
  }

  const Bytes& table_string(std::int64_t index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= table_->size()) {
      throw Error(ErrorKind::kModel, fmt::format("string table index {} out of range (table has "
                                                 "{} strings)",
                                                 index, table_->size()));
    }
    return (*table_)[static_cast<std::size_t>(index)].as_string_bytes();
  }

  // A source's text and its line index (Source keeps 4 bytes a line).
  void charge(std::string_view text) {
    budget_.charge(text.size() +
                   4 * (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1));
  }

  const pickle::ValueList* table_;
  SourceTextBudget& budget_;
  std::unordered_map<const void*, SourcePtr> cache_;
};

SourceRange decode_range(const pickle::Value& v, SourceDecoder& sources) {
  const auto& items = expect_tuple(v, 3, "source range");
  std::int64_t start = items[1].as_int();
  std::int64_t end = items[2].as_int();
  if (start < 0 || end < start) {
    throw Error(ErrorKind::kModel, fmt::format("invalid source range [{}, {})", start, end));
  }
  SourcePtr source = sources.decode(items[0]);
  if (source->text().empty() && source->filename() == kUnknownSourceFilename) {
    return SourceRange();
  }
  return SourceRange(std::move(source), static_cast<std::size_t>(start),
                     static_cast<std::size_t>(end));
}

}  // namespace

SourceTextBudget SourceTextBudget::for_records(std::size_t record_bytes) {
  constexpr std::size_t kBase = std::size_t{64} << 20;
  constexpr std::size_t kPerRecordByte = 16;
  return SourceTextBudget(kBase + kPerRecordByte * record_bytes);
}

void SourceTextBudget::charge(std::size_t bytes) {
  if (bytes > limit_ - used_) {
    throw Error(ErrorKind::kLimit,
                fmt::format("the sources of the debug records decode to more than {} bytes (the "
                            "limit for records of this size): the file names some source text "
                            "far more often than a model does",
                            limit_));
  }
  used_ += bytes;
}

SourceRangeFile read_source_range_file(const pickle::Value& root, SourceTextBudget& budget) {
  SourceRangeFile file;
  const auto& top = root.as_tuple();
  const pickle::ValueList* rows = &top;
  const pickle::ValueList* table = nullptr;
  if (top.size() == 3 && top[0].is(pickle::Value::Kind::kString) &&
      top[0].as_string() == kStringTableMarker) {
    file.string_table_format = true;
    table = &top[1].as_tuple();
    file.string_table_size = table->size();
    for (const auto& s : *table) s.as_string();  // reject non-strings up front
    rows = &top[2].as_tuple();
  }
  SourceDecoder sources(table, budget);
  file.records.reserve(rows->size());
  for (std::size_t i = 0; i < rows->size(); ++i) {
    with_context(fmt::format("row {}", i), [&] {
      const auto& row = (*rows)[i].as_tuple();
      SourceRangeRecord record;
      if (row.size() == 3) {
        record.byte_offset = row[0].as_int();
        record.range = decode_range(row[1], sources);
        record.tag = row[2].as_int();
      } else if (row.size() == 2) {
        record.byte_offset = row[0].as_int();
        record.range = decode_range(row[1], sources);
      } else {
        throw Error(ErrorKind::kModel,
                    fmt::format("expected a tuple of 3 elements (byte_offset, source_range, "
                                "tag), got {}",
                                row.size()));
      }
      file.records.push_back(std::move(record));
    });
  }
  return file;
}

void add_tags(const SourceRangeFile& file, SourceRangeTags& tags) {
  for (const auto& record : file.records) {
    if (record.tag != -1) tags.emplace(record.tag, record.range);
  }
}

}  // namespace symbolite::debuginfo
