#include "symbolite/ops/schema/schema_parser.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::ops {
namespace {

enum class Tok { kIdent, kNumber, kString, kArrow, kDots, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;  // the token as written (a string literal with its quotes)
  std::size_t offset = 0;
};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of input";
    case Tok::kNumber:
      return fmt::format("number '{}'", t.text);
    case Tok::kString:
      return "string literal";
    case Tok::kIdent:
      return fmt::format("'{}'", t.text);
    default:
      return fmt::format("'{}'", t.text);
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {
    cur_ = scan();
    next_ = scan();
  }

  const Token& cur() const { return cur_; }
  const Token& peek() const { return next_; }
  Token take() {
    Token t = cur_;
    cur_ = next_;
    next_ = scan();
    return t;
  }
  bool is(char punct) const { return cur_.kind == Tok::kPunct && cur_.text[0] == punct; }
  bool is(Tok kind) const { return cur_.kind == kind; }
  bool is_ident(std::string_view word) const {
    return cur_.kind == Tok::kIdent && cur_.text == word;
  }
  bool next_if(char punct) {
    if (!is(punct)) return false;
    take();
    return true;
  }
  bool next_if(Tok kind) {
    if (!is(kind)) return false;
    take();
    return true;
  }
  void expect(char punct) {
    if (!next_if(punct)) fail(fmt::format("'{}'", punct));
  }
  Token expect(Tok kind, std::string_view what) {
    if (!is(kind)) fail(what);
    return take();
  }
  [[noreturn]] void fail(std::string_view expected) const { fail_at(cur_, expected); }
  [[noreturn]] void fail_at(const Token& t, std::string_view expected) const {
    throw Error(ErrorKind::kFormat,
                fmt::format("byte {}: expected {} but found {}", t.offset, expected, describe(t)));
  }
  [[noreturn]] void error_at(std::size_t offset, std::string_view message) const {
    throw Error(ErrorKind::kFormat, fmt::format("byte {}: {}", offset, message));
  }

 private:
  Token make(Tok kind, std::size_t start) {
    return Token{kind, text_.substr(start, pos_ - start), start};
  }

  Token scan() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
    std::size_t start = pos_;
    if (pos_ >= text_.size()) return Token{Tok::kEnd, {}, start};
    char c = text_[pos_];
    if (is_ident_start(c)) {
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      return make(Tok::kIdent, start);
    }
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
      return scan_number(start);
    }
    if (c == '"' || c == '\'') return scan_string(start, c);
    if (text_.substr(pos_, 2) == "->") {
      pos_ += 2;
      return make(Tok::kArrow, start);
    }
    if (text_.substr(pos_, 3) == "...") {
      pos_ += 3;
      return make(Tok::kDots, start);
    }
    static constexpr std::string_view kPunct = "()[],*?!|=:.-";
    if (kPunct.find(c) != std::string_view::npos) {
      ++pos_;
      return make(Tok::kPunct, start);
    }
    error_at(start, fmt::format("unexpected character 0x{:02x}", static_cast<unsigned char>(c)));
  }

  // digits [. digits] [e [+-] digits], or . digits [...]
  Token scan_number(std::size_t start) {
    auto digits = [&] {
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    };
    digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && text_[pos_] == 'e') {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      std::size_t exponent = pos_;
      digits();
      if (pos_ == exponent) error_at(exponent, "expected the digits of an exponent");
    }
    return make(Tok::kNumber, start);
  }

  Token scan_string(std::size_t start, char quote) {
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    if (pos_ >= text_.size()) error_at(start, "unterminated string literal");
    ++pos_;
    return make(Tok::kString, start);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Token cur_;
  Token next_;
};

// The text of a string literal token (quotes included), escapes resolved as PyTorch's
// parseStringLiteral does: \\ \' \" \a \b \f \n \r \t \v and three-digit octal.
std::string unquote(const Lexer& lexer, const Token& t) {
  std::string out;
  std::string_view body = t.text.substr(1, t.text.size() - 2);
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    std::size_t at = t.offset + 1 + i;
    char e = body[++i];  // the lexer guarantees a character after a backslash
    switch (e) {
      case '\\':
      case '\'':
      case '"':
        out += e;
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      default: {
        if (i + 2 < body.size() && e >= '0' && e <= '3' && body[i + 1] >= '0' &&
            body[i + 1] <= '7' && body[i + 2] >= '0' && body[i + 2] <= '7') {
          out += static_cast<char>((e - '0') * 64 + (body[i + 1] - '0') * 8 + (body[i + 2] - '0'));
          i += 2;
        } else {
          lexer.error_at(at,
                         "unsupported escape in string literal (expected \\\\, \\', \\\", "
                         "\\a, \\b, \\f, \\n, \\r, \\t, \\v or three octal digits)");
        }
      }
    }
  }
  return out;
}

struct ParsedType {
  std::string text;
  std::optional<AliasAnnotation> alias;
  std::optional<AliasAnnotation> element_alias;
};

// Which default values a type takes (PyTorch's parseDefaultValue switch).
enum class DefaultKind { kSingle, kFloat, kNoneOnly, kDevice, kList, kNotAllowed };

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  FunctionSchema parse() {
    FunctionSchema schema;
    parse_name(schema);
    lexer_.expect('(');
    bool kwarg_only = false;
    if (!lexer_.is(')')) {
      do {
        if (schema.is_vararg) lexer_.fail("')' after '...' (it must be the last argument)");
        if (lexer_.next_if('*')) {
          kwarg_only = true;
        } else if (lexer_.next_if(Tok::kDots)) {
          schema.is_vararg = true;
        } else {
          schema.arguments.push_back(parse_argument(false, kwarg_only));
        }
      } while (lexer_.next_if(','));
    }
    lexer_.expect(')');
    lexer_.expect(Tok::kArrow, "'->'");
    if (lexer_.next_if(Tok::kDots)) {
      schema.is_varret = true;
    } else if (lexer_.next_if('(')) {
      if (!lexer_.is(')')) {
        do {
          if (schema.is_varret) lexer_.fail("')' after '...' (it must be the last return)");
          if (lexer_.next_if(Tok::kDots)) {
            schema.is_varret = true;
          } else {
            schema.returns.push_back(parse_argument(true, false));
          }
        } while (lexer_.next_if(','));
      }
      lexer_.expect(')');
    } else {
      schema.returns.push_back(parse_argument(true, false));
    }
    lexer_.expect(Tok::kEnd, "end of input");
    return schema;
  }

 private:
  void parse_name(FunctionSchema& schema) {
    schema.name = std::string(lexer_.expect(Tok::kIdent, "an operator name").text);
    if (lexer_.next_if(':')) {
      lexer_.expect(':');
      schema.name += "::";
      schema.name += lexer_.expect(Tok::kIdent, "a name after '::'").text;
    }
    if (lexer_.next_if('.')) {
      schema.overload = std::string(lexer_.expect(Tok::kIdent, "an overload name").text);
    }
  }

  SchemaArgument parse_argument(bool is_return, bool kwarg_only) {
    SchemaArgument arg;
    ParsedType type = parse_type(0);
    if (lexer_.next_if('[')) {
      // A fixed-size list, `int[2]`: only at the argument level.
      Token n = lexer_.expect(Tok::kNumber, "a list size");
      std::int64_t size = 0;
      auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), size);
      if (ec != std::errc() || end != n.text.data() + n.text.size()) {
        lexer_.fail_at(n, "an integer list size");
      }
      lexer_.expect(']');
      type.text += "[]";
      arg.list_size = size;
      std::optional<AliasAnnotation> container = parse_alias();
      if (container && type.alias)
        type.element_alias = std::move(type.alias);
      else
        type.element_alias.reset();
      type.alias = std::move(container);
      if (lexer_.next_if('?')) type.text += '?';
    }
    arg.type = std::move(type.text);
    arg.alias = std::move(type.alias);
    arg.element_alias = std::move(type.element_alias);
    arg.is_write = arg.alias && arg.alias->is_write;
    if (is_return) {
      if (lexer_.is(Tok::kIdent)) arg.name = std::string(lexer_.take().text);
    } else {
      arg.name = std::string(lexer_.expect(Tok::kIdent, "an argument name").text);
      if (lexer_.next_if('=')) arg.default_value = parse_default(arg);
      arg.kwarg_only = kwarg_only;
      arg.is_out = kwarg_only && arg.is_write;
    }
    return arg;
  }

  // `(a)`, `(a!)`, `(a|b -> *)`, `(*)`; nullopt when no '(' follows.
  std::optional<AliasAnnotation> parse_alias() {
    if (!lexer_.next_if('(')) return std::nullopt;
    AliasAnnotation alias;
    auto sets = [&](std::vector<std::string>& out) {
      do {
        if (lexer_.next_if('*')) {
          out.emplace_back("*");
        } else {
          out.emplace_back(lexer_.expect(Tok::kIdent, "an alias set name or '*'").text);
        }
      } while (lexer_.next_if('|'));
    };
    sets(alias.before_sets);
    alias.is_write = lexer_.next_if('!');
    if (lexer_.next_if(Tok::kArrow)) {
      sets(alias.after_sets);
    } else {
      alias.after_sets = alias.before_sets;
    }
    lexer_.expect(')');
    return alias;
  }

  // Types in a list `(A, B)`, normalized and joined with ", ". Inner alias annotations are
  // parsed and dropped, as PyTorch does.
  std::string parse_type_list(int depth, std::size_t exact_count) {
    std::string out;
    std::size_t count = 0;
    lexer_.expect('(');
    if (!lexer_.is(')') || exact_count > 0) {
      do {
        if (count > 0) out += ", ";
        out += parse_type(depth + 1).text;
        ++count;
      } while (lexer_.next_if(','));
    }
    if (exact_count > 0 && count != exact_count) {
      lexer_.fail(exact_count == 1 ? "')' after the one type" : "')' after the two types");
    }
    lexer_.expect(')');
    return out;
  }

  ParsedType parse_type(int depth) {
    if (depth >= kMaxSchemaTypeDepth) {
      throw Error(ErrorKind::kLimit, fmt::format("byte {}: types nest deeper than {}",
                                                 lexer_.cur().offset, kMaxSchemaTypeDepth));
    }
    ParsedType type;
    bool paren_next = lexer_.peek().kind == Tok::kPunct && lexer_.peek().text == "(";
    if (lexer_.is('(') || (lexer_.is_ident("Tuple") && paren_next)) {
      if (lexer_.is(Tok::kIdent)) lexer_.take();
      type.text = "(" + parse_type_list(depth, 0) + ")";
    } else if ((lexer_.is_ident("Future") || lexer_.is_ident("RRef") || lexer_.is_ident("Await")) &&
               paren_next) {
      type.text = std::string(lexer_.take().text);
      type.text += "(" + parse_type_list(depth, 1) + ")";
    } else if (lexer_.is_ident("Union") && paren_next) {
      lexer_.take();
      type.text = "Union(" + parse_type_list(depth, 0) + ")";
    } else if (lexer_.is_ident("Dict") && paren_next) {
      lexer_.take();
      type.text = "Dict(" + parse_type_list(depth, 2) + ")";
      type.alias = parse_alias();
    } else {
      Token name = lexer_.expect(Tok::kIdent, "a type");
      type.text = std::string(name.text);
      // Qualified class names: __torch__.torch.classes.quantized.LinearPackedParamsBase
      while (lexer_.is('.') && lexer_.peek().kind == Tok::kIdent) {
        lexer_.take();
        type.text += '.';
        type.text += lexer_.take().text;
      }
      // Names PyTorch's type parser maps to other types.
      if (type.text == "ConstQuantizerPtr" || type.text == "DeviceIndex")
        type.text = "int";
      else if (type.text == "Dimname")
        type.text = "str";
      else if (type.text == "None")
        type.text = "NoneType";
      type.alias = parse_alias();
    }
    while (true) {
      if (lexer_.is('[') && lexer_.peek().kind == Tok::kPunct && lexer_.peek().text == "]") {
        lexer_.take();
        lexer_.take();
        type.text += "[]";
        std::optional<AliasAnnotation> container = parse_alias();
        if (type.alias) {
          if (!container) {
            container = AliasAnnotation{};
            container->is_write = type.alias->is_write;
          }
          type.element_alias = std::move(type.alias);
        }
        type.alias = std::move(container);
      } else if (lexer_.next_if('?')) {
        type.text += '?';
      } else {
        return type;
      }
    }
  }

  static DefaultKind default_kind(const SchemaArgument& arg) {
    const std::string& t = arg.type;
    if (arg.is_optional()) return DefaultKind::kSingle;
    if (t.size() >= 2 && t.compare(t.size() - 2, 2, "[]") == 0) return DefaultKind::kList;
    if (t == "Tensor" || t == "Generator") return DefaultKind::kNoneOnly;
    if (t == "Device") return DefaultKind::kDevice;
    if (t == "float") return DefaultKind::kFloat;
    static constexpr std::string_view kSingle[] = {
        "int",        "SymInt", "bool",         "str",     "Scalar",
        "ScalarType", "Layout", "MemoryFormat", "QScheme", "complex"};
    for (auto s : kSingle) {
      if (t == s) return DefaultKind::kSingle;
    }
    return DefaultKind::kNotAllowed;
  }

  pickle::Value parse_default(const SchemaArgument& arg) {
    const Token at = lexer_.cur();
    switch (default_kind(arg)) {
      case DefaultKind::kSingle:
        return parse_constant(false);
      case DefaultKind::kFloat:
        return parse_constant(true);
      case DefaultKind::kNoneOnly:
        if (!lexer_.is_ident("None")) lexer_.fail("None (the only default of a " + arg.type + ")");
        lexer_.take();
        return pickle::Value::none();
      case DefaultKind::kDevice:
        return pickle::Value::string(
            unquote(lexer_, lexer_.expect(Tok::kString, "a device string")));
      case DefaultKind::kList:
        return parse_list_default(arg);
      case DefaultKind::kNotAllowed:
        break;
    }
    lexer_.error_at(at.offset, fmt::format("a {} argument cannot have a default value", arg.type));
  }

  pickle::Value parse_list_default(const SchemaArgument& arg) {
    std::string element = arg.type.substr(0, arg.type.size() - 2);
    auto convert = [&](pickle::Value v, const Token& at) {
      using Kind = pickle::Value::Kind;
      bool ok = (element == "float" && v.is(Kind::kDouble)) ||
                ((element == "int" || element == "SymInt") && v.is(Kind::kInt)) ||
                (element == "bool" && v.is(Kind::kBool));
      if (!ok) {
        lexer_.fail_at(
            at, element == "float" || element == "int" || element == "SymInt" || element == "bool"
                    ? "a " + element + " list element"
                    : std::string("no default (lists defaults are only for int, "
                                  "SymInt, float or bool lists)"));
      }
      return v;
    };
    bool is_float = element == "float";
    pickle::ValueList items;
    if (lexer_.is('[')) {
      lexer_.take();
      if (!lexer_.is(']')) {
        do {
          Token at = lexer_.cur();
          items.push_back(convert(parse_constant(is_float), at));
        } while (lexer_.next_if(','));
      }
      lexer_.expect(']');
    } else if (arg.list_size) {
      // `int[2] stride=1` is [1, 1].
      Token at = lexer_.cur();
      pickle::Value v = convert(parse_constant(is_float), at);
      if (*arg.list_size < 0 || *arg.list_size > 1024) {
        lexer_.error_at(at.offset, fmt::format("list size {} out of range", *arg.list_size));
      }
      items.assign(static_cast<std::size_t>(*arg.list_size), v);
    } else {
      lexer_.fail("'['");
    }
    return pickle::Value::list(std::move(items));
  }

  // PyTorch's parseSingleConstant: True, False, None, a string, one of the names it maps to
  // an integer, or a number (a double if the type is float or the text has '.' or 'e').
  pickle::Value parse_constant(bool is_float) {
    const Token& t = lexer_.cur();
    if (t.kind == Tok::kString) return pickle::Value::string(unquote(lexer_, lexer_.take()));
    if (t.kind == Tok::kIdent) {
      static constexpr std::pair<std::string_view, std::int64_t> kNames[] = {
          {"float", 6},              // at::kFloat (ScalarType)
          {"long", 4},               // at::kLong (ScalarType)
          {"strided", 0},            // at::kStrided (Layout)
          {"Mean", 1},               // at::Reduction::Mean
          {"contiguous_format", 0},  // c10::MemoryFormat::Contiguous
      };
      Token word = lexer_.take();
      if (word.text == "True") return pickle::Value::boolean(true);
      if (word.text == "False") return pickle::Value::boolean(false);
      if (word.text == "None") return pickle::Value::none();
      for (auto [name, value] : kNames) {
        if (word.text == name) return pickle::Value::integer(value);
      }
      lexer_.fail_at(word,
                     "a default value (number, string, True, False, None, float, long, "
                     "strided, Mean or contiguous_format)");
    }
    bool negative = lexer_.next_if('-');
    Token n = lexer_.expect(Tok::kNumber, "a number");
    std::string text = negative ? "-" + std::string(n.text) : std::string(n.text);
    if (is_float || text.find_first_of(".e") != std::string::npos) {
      char* end = nullptr;
      errno = 0;
      double d = std::strtod(text.c_str(), &end);
      if (errno == ERANGE || end != text.c_str() + text.size()) {
        lexer_.fail_at(n, "a number within double range");
      }
      return pickle::Value::real(d);
    }
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      lexer_.fail_at(n, "an integer within 64 bits");
    }
    return pickle::Value::integer(v);
  }

  Lexer lexer_;
};

}  // namespace

FunctionSchema parse_schema(std::string_view text) { return Parser(text).parse(); }

}  // namespace symbolite::ops
