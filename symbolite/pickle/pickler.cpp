#include "symbolite/pickle/pickler.h"

#include <bit>
#include <cstring>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::pickle {
namespace {

constexpr std::size_t kMaxDepth = 10000;

class Pickler {
 public:
  explicit Pickler(const TypeTags& tags) : tags_(tags) {}

  std::vector<std::uint8_t> run(const Value& root) {
    count(root, 0);
    out_ = {0x80, 2};  // PROTO 2
    write(root, 0);
    out_.push_back('.');  // STOP
    return std::move(out_);
  }

 private:
  // Pass 1: which nodes are reached more than once (they get a memo slot).
  void count(const Value& v, std::size_t depth) {
    if (depth > kMaxDepth) throw Error(ErrorKind::kLimit, "value nested too deeply to pickle");
    const void* id = v.identity();
    if (id != nullptr && ++seen_[id] > 1) return;
    any_child(v, [&](const Value& child) {
      count(child, depth + 1);
      return false;
    });
  }

  void byte(std::uint8_t b) { out_.push_back(b); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) byte(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void bytes(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }

  void put(std::uint32_t slot) {
    if (slot < 256) {
      byte('q');  // BINPUT
      byte(static_cast<std::uint8_t>(slot));
    } else {
      byte('r');  // LONG_BINPUT
      u32(slot);
    }
  }
  void get(std::uint32_t slot) {
    if (slot < 256) {
      byte('h');  // BINGET
      byte(static_cast<std::uint8_t>(slot));
    } else {
      byte('j');  // LONG_BINGET
      u32(slot);
    }
  }
  std::uint32_t next_slot() { return next_slot_++; }

  void integer(std::int64_t i) {
    if (i >= 0 && i < 256) {
      byte('K');
      byte(static_cast<std::uint8_t>(i));
    } else if (i >= 0 && i < 65536) {
      byte('M');
      byte(static_cast<std::uint8_t>(i));
      byte(static_cast<std::uint8_t>(i >> 8));
    } else if (i >= INT32_MIN && i <= INT32_MAX) {
      byte('J');
      u32(static_cast<std::uint32_t>(static_cast<std::int32_t>(i)));
    } else {
      byte(0x8a);  // LONG1: little-endian two's complement
      byte(8);
      for (int b = 0; b < 8; ++b)
        byte(static_cast<std::uint8_t>(static_cast<std::uint64_t>(i) >> (8 * b)));
    }
  }

  void real(double d) {
    byte('G');  // BINFLOAT, big-endian
    std::uint64_t bits = std::bit_cast<std::uint64_t>(d);
    for (int b = 7; b >= 0; --b) byte(static_cast<std::uint8_t>(bits >> (8 * b)));
  }

  void string(std::string_view s) {
    if (auto it = strings_.find(std::string(s)); it != strings_.end()) {
      get(it->second);
      return;
    }
    if (s.size() > UINT32_MAX) throw Error(ErrorKind::kLimit, "string over 4 GiB");
    byte('X');  // BINUNICODE
    u32(static_cast<std::uint32_t>(s.size()));
    bytes(s);
    std::uint32_t slot = next_slot();
    put(slot);
    strings_.emplace(std::string(s), slot);
  }

  void global(std::string_view qualified) {
    std::string key(qualified);
    if (auto it = globals_.find(key); it != globals_.end()) {
      get(it->second);
      return;
    }
    auto dot = qualified.rfind('.');
    if (dot == std::string_view::npos) {
      throw Error(ErrorKind::kUsage, fmt::format("global '{}' has no module", qualified));
    }
    byte('c');  // GLOBAL 'module\nname\n'
    bytes(qualified.substr(0, dot));
    byte('\n');
    bytes(qualified.substr(dot + 1));
    byte('\n');
    std::uint32_t slot = next_slot();
    put(slot);
    globals_.emplace(std::move(key), slot);
  }

  void items(const ValueList& list, std::size_t depth) {
    for (const auto& item : list) write(item, depth + 1);
  }

  void write(const Value& v, std::size_t depth) {
    const void* id = v.identity();
    if (id != nullptr) {
      if (auto it = memo_.find(id); it != memo_.end()) {
        get(it->second);
        return;
      }
    }
    switch (v.kind()) {
      case Value::Kind::kNone:
        byte('N');
        return;
      case Value::Kind::kBool:
        byte(v.as_bool() ? 0x88 : 0x89);
        return;
      case Value::Kind::kInt:
        integer(v.as_int());
        return;
      case Value::Kind::kDouble:
        real(v.as_double());
        return;
      case Value::Kind::kString:
        string(v.as_string());
        return;
      case Value::Kind::kTuple: {
        const auto& t = v.as_tuple();
        if (t.empty()) {
          byte(')');
        } else if (t.size() <= 3) {
          items(t, depth);
          byte(static_cast<std::uint8_t>(0x84 + t.size()));  // TUPLE1..3
        } else {
          byte('(');
          items(t, depth);
          byte('t');
        }
        break;
      }
      case Value::Kind::kList:
        list(v, depth);
        break;
      case Value::Kind::kDict: {
        auto tag = tags_.find(id);
        if (tag != tags_.end()) global("torch.jit._pickle.restore_type_tag");
        byte('}');
        if (!v.as_dict().empty()) {
          byte('(');
          for (const auto& [k, item] : v.as_dict()) {
            write(k, depth + 1);
            write(item, depth + 1);
          }
          byte('u');  // SETITEMS
        }
        if (tag != tags_.end()) {
          string(tag->second);
          byte(0x86);  // TUPLE2
          byte('R');   // REDUCE: restore_type_tag(dict, type)
        }
        break;
      }
      case Value::Kind::kObject: {
        const auto& o = v.as_object();
        global(o.type_name);
        byte(')');
        byte(0x81);  // NEWOBJ
        remember(id);
        write(o.state, depth + 1);
        byte('b');  // BUILD
        return;
      }
      case Value::Kind::kTensor:
        tensor(v.as_tensor());
        break;
      case Value::Kind::kStorage:
        storage(v.as_storage());
        return;
      case Value::Kind::kGlobal:
        global(v.as_global());
        return;
      case Value::Kind::kDevice:  // torch.device("cpu"), as PyTorch's pickler writes it
        global("torch.device");
        string(v.as_device());
        byte(0x85);  // TUPLE1
        byte('R');   // REDUCE
        break;
    }
    remember(id);
  }

  // As PyTorch's Pickler::pushLiteralTensor: torch._utils._rebuild_tensor_v2(storage,
  // storage_offset, sizes, strides, requires_grad, collections.OrderedDict()).
  void tensor(const TensorRef& t) {
    global("torch._utils._rebuild_tensor_v2");
    byte('(');
    storage(t.storage);
    integer(t.storage_offset);
    int_tuple(t.sizes);
    int_tuple(t.strides);
    byte(t.requires_grad ? 0x88 : 0x89);
    global("collections.OrderedDict");
    byte(')');
    byte('R');  // REDUCE: the empty OrderedDict of backward hooks
    byte('t');
    byte('R');  // REDUCE: _rebuild_tensor_v2
  }

  void int_tuple(const std::vector<std::int64_t>& values) {
    byte('(');
    for (std::int64_t v : values) integer(v);
    byte('t');
  }

  // The persistent id ('storage', torch.<dtype>Storage, key, device, numel), written once
  // per key and memoized, as PyTorch memoizes a storage shared by several tensors.
  void storage(const StorageRef& s) {
    if (auto it = storages_.find(s.key); it != storages_.end()) {
      get(it->second);
      return;
    }
    byte('(');
    string("storage");
    global("torch." + s.dtype + "Storage");
    string(s.key);
    string(s.device);
    integer(s.numel);
    byte('t');
    byte('Q');  // BINPERSID
    std::uint32_t slot = next_slot();
    put(slot);
    storages_.emplace(s.key, slot);
  }

  void list(const Value& v, std::size_t depth) {
    const char* builder = nullptr;
    switch (v.list_tag()) {
      case ListTag::kInt:
        builder = "torch.jit._pickle.build_intlist";
        break;
      case ListTag::kDouble:
        builder = "torch.jit._pickle.build_doublelist";
        break;
      case ListTag::kBool:
        builder = "torch.jit._pickle.build_boollist";
        break;
      case ListTag::kTensor:
        builder = "torch.jit._pickle.build_tensorlist";
        break;
      case ListTag::kGeneric:
        break;
    }
    if (builder != nullptr) {
      global(builder);
      byte('(');
    }
    byte(']');
    if (!v.as_list().empty()) {
      byte('(');
      items(v.as_list(), depth);
      byte('e');  // APPENDS
    }
    if (builder != nullptr) {
      byte('t');
      byte('R');  // REDUCE
    }
  }

  // Memoizes a node that is reached again later.
  void remember(const void* id) {
    if (id == nullptr || seen_[id] < 2) return;
    std::uint32_t slot = next_slot();
    put(slot);
    memo_.emplace(id, slot);
  }

  std::vector<std::uint8_t> out_;
  std::unordered_map<const void*, std::size_t> seen_;
  std::unordered_map<const void*, std::uint32_t> memo_;
  std::unordered_map<std::string, std::uint32_t> strings_;
  std::unordered_map<std::string, std::uint32_t> globals_;
  std::unordered_map<std::string, std::uint32_t> storages_;
  std::uint32_t next_slot_ = 0;
  const TypeTags& tags_;
};

}  // namespace

std::vector<std::uint8_t> pickle(const Value& value, const TypeTags& tags) {
  return Pickler(tags).run(value);
}

}  // namespace symbolite::pickle
