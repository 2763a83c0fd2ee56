#include "text_format.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "proto_schema.h"
#include "proto_writer.h"

namespace fathom::device {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Status ParseMessage(const SchemaMessage& msg, ProtoWriter* out, char close) {
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size()) {
        if (close) return Error(close == '}' ? "missing '}'" : "missing '>'");
        return Status::Ok();
      }
      if (close && s_[pos_] == close) {
        pos_++;
        return Status::Ok();
      }
      std::string_view name = Identifier();
      if (name.empty()) return Error("expected a field name");
      const SchemaField* field = FindField(msg, name);
      if (!field) return Error("unknown field '" + std::string(name) + "' in " + msg.name);
      SkipSpace();
      bool colon = Consume(':');
      SkipSpace();
      if (Peek() == '[') {
        if (!field->repeated) return Error(std::string(name) + " is not a repeated field");
        pos_++;
        SkipSpace();
        if (!Consume(']')) {
          for (;;) {
            Status st = ParseValue(*field, out, colon);
            if (!st.ok()) return st;
            SkipSpace();
            if (Consume(']')) break;
            if (!Consume(',')) return Error("expected ',' or ']'");
            SkipSpace();
          }
        }
      } else {
        Status st = ParseValue(*field, out, colon);
        if (!st.ok()) return st;
      }
      SkipSpace();
      if (!Consume(',')) Consume(';');
    }
  }

 private:
  Status ParseValue(const SchemaField& f, ProtoWriter* out, bool colon) {
    SkipSpace();
    if (f.kind == FieldKind::kMessage) {
      char open = Peek();
      if (open != '{' && open != '<') return Error("expected '{' after " + std::string(f.name));
      pos_++;
      size_t token = out->BeginNested(f.number);
      Status st = ParseMessage(MessageAt(f.ref), out, open == '{' ? '}' : '>');
      out->EndNested(token);
      return st;
    }
    if (!colon) return Error("expected ':' after " + std::string(f.name));
    if (f.kind == FieldKind::kString || f.kind == FieldKind::kBytes) {
      std::string value;
      Status st = QuotedString(&value);
      if (!st.ok()) return st;
      // Adjacent literals concatenate, as in C.
      for (SkipSpace(); Peek() == '"' || Peek() == '\''; SkipSpace()) {
        std::string more;
        st = QuotedString(&more);
        if (!st.ok()) return st;
        value += more;
      }
      out->String(f.number, value);
      return Status::Ok();
    }
    std::string_view word = Word();
    if (word.empty()) return Error("expected a value for " + std::string(f.name));
    std::string w(word);
    if (f.kind == FieldKind::kBool) {
      if (w == "true" || w == "True" || w == "t" || w == "1") {
        out->Bool(f.number, true);
      } else if (w == "false" || w == "False" || w == "f" || w == "0") {
        out->Bool(f.number, false);
      } else {
        return Error("bad bool '" + w + "' for " + f.name);
      }
      return Status::Ok();
    }
    if (f.kind == FieldKind::kEnum) {
      int32_t v;
      if (FindEnumValue(EnumAt(f.ref), w, &v)) {
        out->Int(f.number, v);
        return Status::Ok();
      }
      char* end;
      errno = 0;
      long long n = strtoll(w.c_str(), &end, 0);
      if (*end || errno) return Error("unknown value '" + w + "' for " + f.name);
      out->Int(f.number, n);
      return Status::Ok();
    }
    char* end;
    errno = 0;
    if (f.kind == FieldKind::kFixed64 || f.kind == FieldKind::kFixed32) {
      // double/float or fixed ints: the schema does not say which; a '.'/'e' means float.
      bool is_float = w.find_first_of(".eEn") != std::string::npos;  // n: nan/inf
      if (is_float && f.kind == FieldKind::kFixed64) {
        double d = strtod(w.c_str(), &end);
        if (*end) return Error("bad number '" + w + "' for " + f.name);
        out->Double(f.number, d);
        return Status::Ok();
      }
      if (is_float) {
        float fl = strtof(w.c_str(), &end);
        if (*end) return Error("bad number '" + w + "' for " + f.name);
        uint32_t bits;
        memcpy(&bits, &fl, 4);
        out->Fixed32(f.number, bits);
        return Status::Ok();
      }
    }
    uint64_t value;
    if (w[0] == '-') {
      long long n = strtoll(w.c_str(), &end, 0);
      if (*end || errno) return Error("bad number '" + w + "' for " + f.name);
      if (!f.is_signed) return Error("negative value '" + w + "' for unsigned " + f.name);
      value = static_cast<uint64_t>(n);
    } else {
      value = strtoull(w.c_str(), &end, 0);
      if (*end || errno) return Error("bad number '" + w + "' for " + f.name);
    }
    switch (f.kind) {
      case FieldKind::kZigZag:
        out->ZigZag(f.number, static_cast<int64_t>(value));
        break;
      case FieldKind::kFixed32:
        out->Fixed32(f.number, static_cast<uint32_t>(value));
        break;
      case FieldKind::kFixed64:
        out->Fixed64(f.number, value);
        break;
      default:
        out->Varint(f.number, value);
    }
    return Status::Ok();
  }

  Status QuotedString(std::string* out) {
    char q = Peek();
    if (q != '"' && q != '\'') return Error("expected a quoted string");
    pos_++;
    while (pos_ < s_.size() && s_[pos_] != q) {
      char c = s_[pos_++];
      if (c == '\n') return Error("newline in string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7': {
          int v = e - '0';
          for (int i = 0; i < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; i++)
            v = v * 8 + (s_[pos_++] - '0');
          out->push_back(static_cast<char>(v));
          break;
        }
        case 'x': {
          int v = 0;
          for (int i = 0; i < 2 && pos_ < s_.size() && isxdigit(static_cast<uint8_t>(s_[pos_]));
               i++) {
            char h = s_[pos_++];
            v = v * 16 + (isdigit(static_cast<uint8_t>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          out->push_back(static_cast<char>(v));
          break;
        }
        default:
          out->push_back(e);  // \\ \" \' and anything else literally
      }
    }
    if (pos_ >= s_.size()) return Error("unterminated string");
    pos_++;
    return Status::Ok();
  }

  void SkipSpace() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') pos_++;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        pos_++;
      } else {
        break;
      }
    }
  }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    pos_++;
    return true;
  }
  std::string_view Identifier() {
    size_t start = pos_;
    while (pos_ < s_.size() && (isalnum(static_cast<uint8_t>(s_[pos_])) || s_[pos_] == '_')) pos_++;
    return s_.substr(start, pos_ - start);
  }
  // A number or enum/bool identifier.
  std::string_view Word() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (isalnum(static_cast<uint8_t>(s_[pos_])) || strchr("_-+.", s_[pos_])))
      pos_++;
    return s_.substr(start, pos_ - start);
  }
  Status Error(const std::string& what) const {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); i++) line += s_[i] == '\n';
    return ErrorStatus("config line " + std::to_string(line) + ": " + what);
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::string> TextFormatToBinary(std::string_view text, std::string_view message_name) {
  const SchemaMessage* msg = FindMessage(message_name);
  if (!msg) return ErrorStatus("unknown message " + std::string(message_name));
  ProtoWriter out;
  Parser parser(text);
  Status st = parser.ParseMessage(*msg, &out, '\0');
  if (!st.ok()) return st;
  return std::move(out.mutable_data());
}

}  // namespace fathom::device
