//===- Manifest.cpp - AOT artifact manifest reader ------------------------===//
//
// Format "sigreg-aot-v1". An artifact directory holds `manifest.json` and the
// PTX file named by its "ptx" key. The manifest is one JSON object:
//
//   format    "sigreg-aot-v1" (required; any other value is rejected)
//   function, pipeline, chip   informational strings (optional)
//   ptx       PTX file name relative to the artifact directory (required)
//   problem   what is computed (optional for non-SIGReg test fixtures):
//             V, N, D, S, P (integers), t_max, clip ("none"|"zero_below"|
//             "clamp_min"), clip_value, reduction ("mean"|"sum"|"none"),
//             dtype ("bf16"|"f16"|"f32"), projection ("seed"|"explicit"|"step":
//             the seed read from an i64 input buffer 'step', which each
//             run advances by one),
//             views (bool), gradient (bool: dL/dx of the loss, input grad),
//             step (bool: the loss and dL/dx together, input grad, outputs
//             out and dx), entry_point ("ecf"|"ecf_backward": the DDP
//             split's entry points, docs/AOT.md). N, D, S and dtype are
//             required; the rest default to V=1, P=17, t_max=3, clip none/0,
//             mean, seed, views=false, the loss.
//   buffers   [{name, role: input|output|workspace, bytes, dtype?, shape?,
//             zero_init?}]; zero_init (bool, default false, workspaces
//             only): the runtime zeroes the buffer once when it allocates it,
//             not per run (self-resetting counters that kernels leave at
//             zero); shares ({buffer, offset}, workspaces only): the
//             workspace may live offset bytes into the output buffer, one
//             allocation of max(the output's bytes, offset + its bytes); the
//             steps are correct either way (docs/AOT.md); l2_persist
//             (bool, default false): the launches of the steps that take
//             the buffer keep it in L2's persisting portion (an access
//             policy window; a hint, the results do not depend on it);
//             align (a power of two <= 256, default 1): a bound address
//             must be a multiple of it (kernels that copy the buffer into
//             shared memory in 16-byte pieces declare 16)
//   scalars   [{name, type: i32|i64|f32|f64}] set by the caller at run time
//   steps     executed in order on one stream; each may carry "region"
//             (default "other"), the name its time is counted under:
//     and "phase" ("forward", the default, or "backward": the manifest's
//     last steps, which alone read the input "grad"; Executor::run can run
//     either phase alone):
//     {"op":"memset32","buffer","offset"(bytes),"count"(words),"value"}
//     {"op":"memset8", "buffer","offset","count"(bytes),"value"(0..255)}
//     {"op":"copy","src","src_offset","dst","dst_offset","bytes"}
//     {"op":"launch","kernel","grid":[x,y,z],"block":[x,y,z],
//      "shared_bytes","programmatic"?,"cooperative"?,"args":[...]}
//      ("programmatic": true launches it with programmatic stream
//      serialization, overlapping the previous launch's tail; never on the
//      first step; "cooperative": true launches it cooperatively, every CTA
//      resident at once, for a kernel with a grid barrier) with each arg one of
//      {"buffer":name,"offset":bytes?} (CUdeviceptr base+offset),
//      {"scalar":name} (the scalar's declared type), {"i32":v}, {"i64":v},
//      {"f32":v}, {"f64":v}, or a CUtensorMap passed by value (128 bytes,
//      the kernel's `.param .align 64 .b8 [128]`), encoded by the runtime
//      with cuTensorMapEncodeTiled from the bound address of the buffer plus
//      offset, re-encoded whenever that address changes:
//      {"tensor_map":{"buffer":name,"offset":bytes?,"dtype":"bf16"|"f16"|
//        "f32"|"i32","dims":[...],"strides":[...],"box":[...],
//        "swizzle":"none"|"32b"|"64b"|"128b"?,
//        "l2_promotion":"none"|"64b"|"128b"|"256b"?,
//        "oob_fill":"zero"|"nan"?,"interleave":"none"|"16b"|"32b"?}}
//      Innermost dimension first, as the driver takes them: dims (elements,
//      rank 1..5, each 1..2^32), strides (bytes of dims 1..rank-1, multiples
//      of 16 below 2^40, each covering the previous dimension), box
//      (elements, 1..256 each). Defaults: offset 0, swizzle none,
//      l2_promotion none, oob_fill zero, interleave none. Checked as the
//      driver requires: offset % 16 == 0 (the bound base is 256-aligned),
//      box[0] bytes a multiple of 16 (no interleave) and at most the swizzle
//      span (32/64/128 bytes), rank >= 3 when interleaved, 32b interleave
//      with 32b swizzle and 32-byte multiples, nan fill only for floats, and
//      the whole tensor inside the buffer.
//
// Unknown keys are rejected inside problem, buffers, scalars, steps and args
// (a typo there would silently change what runs) and ignored at the top level
// (room for metadata). Every error names the key path, e.g.
// "steps[2].args[1]: unknown buffer 'ws9'", or the line:column of a JSON
// syntax error.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/Manifest.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

using namespace sigreg::runtime;

//===----------------------------------------------------------------------===//
// Minimal JSON reader
//===----------------------------------------------------------------------===//

namespace {
struct JValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text; // String: the decoded string; Number: the literal text
  std::vector<JValue> items;
  std::vector<std::pair<std::string, JValue>> members;

  const JValue *get(std::string_view key) const {
    for (const auto &m : members)
      if (m.first == key)
        return &m.second;
    return nullptr;
  }
};

const char *kindName(JValue::Kind k) {
  switch (k) {
  case JValue::Kind::Null:
    return "null";
  case JValue::Kind::Bool:
    return "a boolean";
  case JValue::Kind::Number:
    return "a number";
  case JValue::Kind::String:
    return "a string";
  case JValue::Kind::Array:
    return "an array";
  case JValue::Kind::Object:
    return "an object";
  }
  return "?";
}

class JsonParser {
public:
  explicit JsonParser(std::string_view text) : src(text) {}

  bool parse(JValue &out, std::string &err) {
    skipSpace();
    if (!parseValue(out, 0))
      return fail(err);
    skipSpace();
    if (pos != src.size()) {
      error = "unexpected trailing characters after the JSON value";
      return fail(err);
    }
    return true;
  }

private:
  static constexpr int kMaxDepth = 64;

  bool fail(std::string &err) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < src.size(); ++i) {
      if (src[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    err = "JSON syntax error at line " + std::to_string(line) + ", column " +
          std::to_string(col) + ": " + error;
    return false;
  }

  void skipSpace() {
    while (pos < src.size() && (src[pos] == ' ' || src[pos] == '\t' ||
                                src[pos] == '\n' || src[pos] == '\r'))
      ++pos;
  }

  bool expectLiteral(std::string_view lit) {
    if (src.substr(pos, lit.size()) != lit) {
      error = "invalid literal (expected '" + std::string(lit) + "')";
      return false;
    }
    pos += lit.size();
    return true;
  }

  bool parseValue(JValue &out, int depth) {
    if (depth > kMaxDepth) {
      error = "nesting deeper than 64 levels";
      return false;
    }
    if (pos >= src.size()) {
      error = "unexpected end of input, expected a value";
      return false;
    }
    char c = src[pos];
    switch (c) {
    case '{':
      return parseObject(out, depth);
    case '[':
      return parseArray(out, depth);
    case '"':
      out.kind = JValue::Kind::String;
      return parseString(out.text);
    case 't':
      out.kind = JValue::Kind::Bool;
      out.boolean = true;
      return expectLiteral("true");
    case 'f':
      out.kind = JValue::Kind::Bool;
      out.boolean = false;
      return expectLiteral("false");
    case 'n':
      out.kind = JValue::Kind::Null;
      return expectLiteral("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(out);
      error = std::string("unexpected character '") + c + "'";
      return false;
    }
  }

  bool parseNumber(JValue &out) {
    size_t start = pos;
    auto digits = [&] {
      size_t s = pos;
      while (pos < src.size() && src[pos] >= '0' && src[pos] <= '9')
        ++pos;
      return pos > s;
    };
    if (src[pos] == '-')
      ++pos;
    if (!digits()) {
      error = "invalid number";
      return false;
    }
    if (pos < src.size() && src[pos] == '.') {
      ++pos;
      if (!digits()) {
        error = "invalid number: digits expected after '.'";
        return false;
      }
    }
    if (pos < src.size() && (src[pos] == 'e' || src[pos] == 'E')) {
      ++pos;
      if (pos < src.size() && (src[pos] == '+' || src[pos] == '-'))
        ++pos;
      if (!digits()) {
        error = "invalid number: digits expected in exponent";
        return false;
      }
    }
    out.kind = JValue::Kind::Number;
    out.text = std::string(src.substr(start, pos - start));
    return true;
  }

  static void appendUtf8(std::string &s, unsigned cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool parseHex4(unsigned &cp) {
    if (pos + 4 > src.size()) {
      error = "truncated \\u escape";
      return false;
    }
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      char h = src[pos++];
      cp <<= 4;
      if (h >= '0' && h <= '9')
        cp |= h - '0';
      else if (h >= 'a' && h <= 'f')
        cp |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        cp |= h - 'A' + 10;
      else {
        error = "invalid hex digit in \\u escape";
        return false;
      }
    }
    return true;
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    out.clear();
    while (true) {
      if (pos >= src.size()) {
        error = "unterminated string";
        return false;
      }
      char c = src[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos;
        error = "control character in string";
        return false;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= src.size()) {
        error = "unterminated escape";
        return false;
      }
      char e = src[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
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
      case 'u': {
        unsigned cp;
        if (!parseHex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00 && src.substr(pos, 2) == "\\u") {
          pos += 2;
          unsigned lo;
          if (!parseHex4(lo))
            return false;
          if (lo >= 0xDC00 && lo < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos;
        error = std::string("invalid escape '\\") + e + "'";
        return false;
      }
    }
  }

  bool parseArray(JValue &out, int depth) {
    out.kind = JValue::Kind::Array;
    ++pos; // '['
    skipSpace();
    if (pos < src.size() && src[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      out.items.emplace_back();
      if (!parseValue(out.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos >= src.size()) {
        error = "unterminated array (expected ',' or ']')";
        return false;
      }
      if (src[pos] == ',') {
        ++pos;
        continue;
      }
      if (src[pos] == ']') {
        ++pos;
        return true;
      }
      error = "expected ',' or ']' in array";
      return false;
    }
  }

  bool parseObject(JValue &out, int depth) {
    out.kind = JValue::Kind::Object;
    ++pos; // '{'
    skipSpace();
    if (pos < src.size() && src[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= src.size() || src[pos] != '"') {
        error = "expected a string key in object";
        return false;
      }
      size_t keyPos = pos;
      std::string key;
      if (!parseString(key))
        return false;
      if (out.get(key)) {
        pos = keyPos;
        error = "duplicate key '" + key + "'";
        return false;
      }
      skipSpace();
      if (pos >= src.size() || src[pos] != ':') {
        error = "expected ':' after key '" + key + "'";
        return false;
      }
      ++pos;
      skipSpace();
      out.members.emplace_back(std::move(key), JValue());
      if (!parseValue(out.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos >= src.size()) {
        error = "unterminated object (expected ',' or '}')";
        return false;
      }
      if (src[pos] == ',') {
        ++pos;
        continue;
      }
      if (src[pos] == '}') {
        ++pos;
        return true;
      }
      error = "expected ',' or '}' in object";
      return false;
    }
  }

  std::string_view src;
  size_t pos = 0;
  std::string error;
};

//===----------------------------------------------------------------------===//
// Typed extraction with key-path error messages
//===----------------------------------------------------------------------===//

class Extractor {
public:
  explicit Extractor(std::string &err) : err(err) {}

  bool fail(const std::string &path, const std::string &msg) {
    err = path.empty() ? msg : path + ": " + msg;
    return false;
  }

  static std::string join(const std::string &path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  static std::string index(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

  bool expectKind(const JValue &v, JValue::Kind kind, const std::string &path) {
    if (v.kind == kind)
      return true;
    return fail(path, std::string("expected ") + kindName(kind) + ", got " +
                          kindName(v.kind));
  }

  bool checkKeys(const JValue &obj, const std::string &path,
                 std::initializer_list<const char *> allowed) {
    for (const auto &m : obj.members) {
      bool ok = false;
      for (const char *a : allowed)
        ok |= m.first == a;
      if (!ok)
        return fail(join(path, m.first), "unknown key");
    }
    return true;
  }

  const JValue *member(const JValue &obj, const char *key,
                       const std::string &path, bool required) {
    const JValue *v = obj.get(key);
    if (!v && required)
      fail(join(path, key), "missing required key");
    return v;
  }

  bool getString(const JValue &obj, const char *key, const std::string &path,
                 std::string &out, bool required) {
    const JValue *v = member(obj, key, path, required);
    if (!v)
      return !required;
    if (!expectKind(*v, JValue::Kind::String, join(path, key)))
      return false;
    out = v->text;
    return true;
  }

  bool getBool(const JValue &obj, const char *key, const std::string &path,
               bool &out, bool required) {
    const JValue *v = member(obj, key, path, required);
    if (!v)
      return !required;
    if (!expectKind(*v, JValue::Kind::Bool, join(path, key)))
      return false;
    out = v->boolean;
    return true;
  }

  bool toDouble(const JValue &v, const std::string &path, double &out) {
    if (!expectKind(v, JValue::Kind::Number, path))
      return false;
    errno = 0;
    out = std::strtod(v.text.c_str(), nullptr);
    if (errno == ERANGE || !std::isfinite(out))
      return fail(path, "number " + v.text + " out of range");
    return true;
  }

  /// Integer in [lo, hi]; the literal must be integral (no fraction).
  bool toInt(const JValue &v, const std::string &path, int64_t &out, int64_t lo,
             int64_t hi) {
    if (!expectKind(v, JValue::Kind::Number, path))
      return false;
    bool plain = v.text.find_first_of(".eE") == std::string::npos;
    if (plain) {
      errno = 0;
      long long x = std::strtoll(v.text.c_str(), nullptr, 10);
      if (errno == ERANGE)
        return fail(path, "integer " + v.text + " out of range");
      out = x;
    } else {
      double d = std::strtod(v.text.c_str(), nullptr);
      if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15)
        return fail(path, "expected an integer, got " + v.text);
      out = static_cast<int64_t>(d);
    }
    if (out < lo || out > hi)
      return fail(path, "value " + v.text + " out of range [" +
                            std::to_string(lo) + ", " + std::to_string(hi) +
                            "]");
    return true;
  }

  bool getInt(const JValue &obj, const char *key, const std::string &path,
              int64_t &out, bool required, int64_t lo, int64_t hi) {
    const JValue *v = member(obj, key, path, required);
    if (!v)
      return !required;
    return toInt(*v, join(path, key), out, lo, hi);
  }

  bool getU64(const JValue &obj, const char *key, const std::string &path,
              uint64_t &out, bool required, uint64_t lo = 0) {
    int64_t x = 0;
    if (!getInt(obj, key, path, x, required, static_cast<int64_t>(lo),
                std::numeric_limits<int64_t>::max()))
      return false;
    if (obj.get(key))
      out = static_cast<uint64_t>(x);
    return true;
  }

  bool getDouble(const JValue &obj, const char *key, const std::string &path,
                 double &out, bool required) {
    const JValue *v = member(obj, key, path, required);
    if (!v)
      return !required;
    return toDouble(*v, join(path, key), out);
  }

  bool oneOf(const std::string &value, const std::string &path,
             std::initializer_list<const char *> choices) {
    std::string list;
    for (const char *c : choices) {
      if (value == c)
        return true;
      list += list.empty() ? "" : ", ";
      list += std::string("\"") + c + "\"";
    }
    return fail(path, "invalid value \"" + value + "\" (expected one of " +
                          list + ")");
  }

  std::string &err;
};

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

bool parseProblem(Extractor &ex, const JValue &v, ProblemDesc &p) {
  const std::string path = "problem";
  if (!ex.expectKind(v, JValue::Kind::Object, path) ||
      !ex.checkKeys(v, path,
                    {"V", "N", "D", "S", "P", "t_max", "clip", "clip_value",
                     "reduction", "dtype", "projection", "views", "gradient",
                     "step", "dx_dtype", "entry_point"}))
    return false;
  if (!ex.getInt(v, "V", path, p.V, false, 1, kI64Max) ||
      !ex.getInt(v, "N", path, p.N, true, 1, kI64Max) ||
      !ex.getInt(v, "D", path, p.D, true, 1, kI64Max) ||
      !ex.getInt(v, "S", path, p.S, true, 1, kI64Max) ||
      !ex.getInt(v, "P", path, p.P, false, 2, 1 << 20) ||
      !ex.getDouble(v, "t_max", path, p.tMax, false) ||
      !ex.getString(v, "clip", path, p.clip, false) ||
      !ex.getDouble(v, "clip_value", path, p.clipValue, false) ||
      !ex.getString(v, "reduction", path, p.reduction, false) ||
      !ex.getString(v, "dtype", path, p.dtype, true) ||
      !ex.getString(v, "projection", path, p.projection, false) ||
      !ex.getBool(v, "views", path, p.views, false) ||
      !ex.getBool(v, "gradient", path, p.gradient, false) ||
      !ex.getBool(v, "step", path, p.step, false) ||
      !ex.getString(v, "dx_dtype", path, p.dxDtype, false) ||
      !ex.getString(v, "entry_point", path, p.entryPoint, false))
    return false;
  if (p.step && (p.gradient || !p.entryPoint.empty()))
    return ex.fail(path + ".step",
                   "a step computes the loss and its gradient; it takes "
                   "neither \"gradient\" nor \"entry_point\"");
  if (!p.entryPoint.empty() &&
      !ex.oneOf(p.entryPoint, path + ".entry_point", {"ecf", "ecf_backward"}))
    return false;
  if (p.dxDtype != "f32" && (!p.step || p.dxDtype != p.dtype))
    return ex.fail(path + ".dx_dtype",
                   "must be \"f32\" or, for a step, the problem's dtype (\"" +
                       p.dtype + "\"), got \"" + p.dxDtype + "\"");
  if (!(p.tMax > 0.0))
    return ex.fail(path + ".t_max", "must be positive");
  if (!ex.oneOf(p.clip, path + ".clip", {"none", "zero_below", "clamp_min"}) ||
      !ex.oneOf(p.reduction, path + ".reduction", {"mean", "sum", "none"}) ||
      !ex.oneOf(p.dtype, path + ".dtype", {"bf16", "f16", "f32"}) ||
      !ex.oneOf(p.projection, path + ".projection",
                {"seed", "explicit", "step"}))
    return false;
  if (!p.views && p.V != 1)
    return ex.fail(path + ".V",
                   "V=" + std::to_string(p.V) + " requires \"views\": true");
  return true;
}

bool parseShape(Extractor &ex, const JValue &v, const std::string &path,
                std::vector<int64_t> &shape) {
  if (!ex.expectKind(v, JValue::Kind::Array, path))
    return false;
  shape.clear();
  for (size_t i = 0; i < v.items.size(); ++i) {
    int64_t d = 0;
    if (!ex.toInt(v.items[i], Extractor::index(path, i), d, 0, kI64Max))
      return false;
    shape.push_back(d);
  }
  return true;
}

bool parseBuffer(Extractor &ex, const JValue &v, const std::string &path,
                 BufferDesc &b) {
  if (!ex.expectKind(v, JValue::Kind::Object, path) ||
      !ex.checkKeys(v, path,
                    {"name", "role", "bytes", "dtype", "shape", "zero_init",
                     "shares", "l2_persist", "align"}))
    return false;
  std::string role;
  if (!ex.getString(v, "name", path, b.name, true) ||
      !ex.getString(v, "role", path, role, true) ||
      !ex.getU64(v, "bytes", path, b.bytes, true, 1) ||
      !ex.getString(v, "dtype", path, b.dtype, false) ||
      !ex.getBool(v, "zero_init", path, b.zeroInit, false) ||
      !ex.getBool(v, "l2_persist", path, b.l2Persist, false) ||
      !ex.getU64(v, "align", path, b.align, false, 1))
    return false;
  if (b.align > 256 || (b.align & (b.align - 1)) != 0)
    return ex.fail(path + ".align", "must be a power of two up to 256, got " +
                                        std::to_string(b.align));
  if (b.name.empty())
    return ex.fail(path + ".name", "empty buffer name");
  if (!ex.oneOf(role, path + ".role", {"input", "output", "workspace"}))
    return false;
  b.role = role == "input"    ? BufferRole::Input
           : role == "output" ? BufferRole::Output
                              : BufferRole::Workspace;
  if (b.zeroInit && b.role != BufferRole::Workspace)
    return ex.fail(path + ".zero_init", "only a workspace may be zero_init");
  if (const JValue *sh = v.get("shares")) {
    std::string sp = path + ".shares";
    if (!ex.expectKind(*sh, JValue::Kind::Object, sp) ||
        !ex.checkKeys(*sh, sp, {"buffer", "offset"}) ||
        !ex.getString(*sh, "buffer", sp, b.sharesWith, true) ||
        !ex.getU64(*sh, "offset", sp, b.sharesOffset, true))
      return false;
    if (b.role != BufferRole::Workspace || b.zeroInit)
      return ex.fail(sp, "only a workspace that is not zero_init may share "
                         "an output's allocation");
  }
  if (const JValue *s = v.get("shape")) {
    if (!parseShape(ex, *s, path + ".shape", b.shape))
      return false;
    b.hasShape = true;
  }
  if (!b.dtype.empty() && !ex.oneOf(b.dtype, path + ".dtype",
                                    {"bf16", "f16", "f32", "f64", "i8", "u8",
                                     "i32", "u32", "i64", "u64"}))
    return false;
  if (b.hasShape && !b.dtype.empty()) {
    int elem = dtypeBytes(b.dtype);
    uint64_t n = 1;
    for (int64_t d : b.shape)
      n *= static_cast<uint64_t>(d);
    if (elem > 0 && n * elem != b.bytes)
      return ex.fail(path + ".bytes", std::to_string(b.bytes) +
                                          " bytes does not match shape "
                                          "and dtype " +
                                          b.dtype + " (" +
                                          std::to_string(n * elem) + " bytes)");
  }
  return true;
}

bool parseScalar(Extractor &ex, const JValue &v, const std::string &path,
                 ScalarDesc &s) {
  if (!ex.expectKind(v, JValue::Kind::Object, path) ||
      !ex.checkKeys(v, path, {"name", "type"}))
    return false;
  std::string type;
  if (!ex.getString(v, "name", path, s.name, true) ||
      !ex.getString(v, "type", path, type, true))
    return false;
  if (s.name.empty())
    return ex.fail(path + ".name", "empty scalar name");
  if (!ex.oneOf(type, path + ".type", {"i32", "i64", "f32", "f64"}))
    return false;
  s.type = type == "i32"   ? ScalarType::I32
           : type == "i64" ? ScalarType::I64
           : type == "f32" ? ScalarType::F32
                           : ScalarType::F64;
  return true;
}

bool parseDim3(Extractor &ex, const JValue &obj, const char *key,
               const std::string &path, std::array<unsigned, 3> &out) {
  const JValue *v = ex.member(obj, key, path, true);
  if (!v)
    return false;
  std::string p = Extractor::join(path, key);
  if (!ex.expectKind(*v, JValue::Kind::Array, p))
    return false;
  if (v->items.size() != 3)
    return ex.fail(p, "expected 3 integers, got " +
                          std::to_string(v->items.size()));
  for (size_t i = 0; i < 3; ++i) {
    int64_t x = 0;
    if (!ex.toInt(v->items[i], Extractor::index(p, i), x, 1, 0x7FFFFFFF))
      return false;
    out[i] = static_cast<unsigned>(x);
  }
  return true;
}

bool parseU64Array(Extractor &ex, const JValue &obj, const char *key,
                   const std::string &path, std::vector<uint64_t> &out,
                   int64_t lo, int64_t hi) {
  const JValue *v = ex.member(obj, key, path, true);
  if (!v)
    return false;
  std::string p = Extractor::join(path, key);
  if (!ex.expectKind(*v, JValue::Kind::Array, p))
    return false;
  out.clear();
  for (size_t i = 0; i < v->items.size(); ++i) {
    int64_t x = 0;
    if (!ex.toInt(v->items[i], Extractor::index(p, i), x, lo, hi))
      return false;
    out.push_back(static_cast<uint64_t>(x));
  }
  return true;
}

/// Reads an optional enum-valued string key into its position in `choices`.
template <typename Enum>
bool getEnum(Extractor &ex, const JValue &obj, const char *key,
             const std::string &path, Enum &out,
             std::initializer_list<const char *> choices) {
  std::string value;
  if (!obj.get(key))
    return true;
  if (!ex.getString(obj, key, path, value, true) ||
      !ex.oneOf(value, Extractor::join(path, key), choices))
    return false;
  int i = 0;
  for (const char *c : choices) {
    if (value == c)
      out = static_cast<Enum>(i);
    ++i;
  }
  return true;
}

/// {"tensor_map": {...}}: the fields, their ranges and the driver's rules
/// that need no buffer (validate() checks the buffer, offset and extent).
bool parseTensorMap(Extractor &ex, const JValue &v, const std::string &path,
                    KernelArg &a) {
  if (!ex.expectKind(v, JValue::Kind::Object, path) ||
      !ex.checkKeys(v, path,
                    {"buffer", "offset", "dtype", "dims", "strides", "box",
                     "swizzle", "l2_promotion", "oob_fill", "interleave"}))
    return false;
  TensorMapDesc &t = a.tensorMap;
  std::vector<uint64_t> box;
  if (!ex.getString(v, "buffer", path, a.name, true) ||
      !ex.getU64(v, "offset", path, a.offset, false) ||
      !ex.getString(v, "dtype", path, t.dtype, true) ||
      !ex.oneOf(t.dtype, path + ".dtype", {"bf16", "f16", "f32", "i32"}) ||
      !parseU64Array(ex, v, "dims", path, t.dims, 1, int64_t(1) << 32) ||
      !parseU64Array(ex, v, "strides", path, t.strides, 1,
                     (int64_t(1) << 40) - 1) ||
      !parseU64Array(ex, v, "box", path, box, 1, 256) ||
      !getEnum(ex, v, "swizzle", path, t.swizzle,
               {"none", "32b", "64b", "128b"}) ||
      !getEnum(ex, v, "l2_promotion", path, t.l2Promotion,
               {"none", "64b", "128b", "256b"}) ||
      !getEnum(ex, v, "oob_fill", path, t.oobFill, {"zero", "nan"}) ||
      !getEnum(ex, v, "interleave", path, t.interleave, {"none", "16b", "32b"}))
    return false;
  a.kind = KernelArg::Kind::TensorMap;
  t.box.assign(box.begin(), box.end());
  size_t rank = t.dims.size();
  if (rank < 1 || rank > kTensorMapMaxRank)
    return ex.fail(path + ".dims", "rank " + std::to_string(rank) +
                                       " out of range [1, " +
                                       std::to_string(kTensorMapMaxRank) + "]");
  if (t.strides.size() != rank - 1)
    return ex.fail(path + ".strides", "expected " + std::to_string(rank - 1) +
                                          " strides (dims 1.." +
                                          std::to_string(rank - 1) + "), got " +
                                          std::to_string(t.strides.size()));
  if (t.box.size() != rank)
    return ex.fail(path + ".box", "expected " + std::to_string(rank) +
                                      " box sizes (one per dim), got " +
                                      std::to_string(t.box.size()));
  uint64_t elem = static_cast<uint64_t>(dtypeBytes(t.dtype));
  bool interleaved = t.interleave != TensorMapInterleave::None;
  uint64_t align = t.interleave == TensorMapInterleave::B32 ? 32 : 16;
  // Each stride must cover the previous dimension (no overlapping rows).
  uint64_t covered = t.dims[0] * elem;
  for (size_t i = 0; i < t.strides.size(); ++i) {
    std::string p = Extractor::index(path + ".strides", i);
    if (t.strides[i] % align)
      return ex.fail(p, "stride " + std::to_string(t.strides[i]) +
                            " is not a multiple of " + std::to_string(align) +
                            " bytes");
    if (t.strides[i] < covered)
      return ex.fail(p, "stride " + std::to_string(t.strides[i]) +
                            " is smaller than the " + std::to_string(covered) +
                            " bytes of the dimensions inside it");
    covered = t.strides[i] * t.dims[i + 1];
  }
  uint64_t innerBytes = t.box[0] * elem;
  if (!interleaved && innerBytes % 16)
    return ex.fail(path + ".box[0]", "inner box of " +
                                         std::to_string(innerBytes) +
                                         " bytes is not a multiple of 16");
  if (!interleaved && t.swizzle != TensorMapSwizzle::None) {
    uint64_t span = uint64_t(16) << static_cast<int>(t.swizzle);
    if (innerBytes > span)
      return ex.fail(path + ".box[0]",
                     "inner box of " + std::to_string(innerBytes) +
                         " bytes exceeds the " + std::to_string(span) +
                         "-byte swizzle span");
  }
  if (interleaved && rank < 3)
    return ex.fail(path + ".interleave", "interleaved layouts need rank >= 3");
  if (t.interleave == TensorMapInterleave::B32 &&
      t.swizzle != TensorMapSwizzle::B32)
    return ex.fail(path + ".swizzle", "32b interleave requires 32b swizzle");
  if (t.oobFill == TensorMapOobFill::Nan && t.dtype == "i32")
    return ex.fail(path + ".oob_fill", "nan fill needs a floating-point dtype");
  return true;
}

bool parseArg(Extractor &ex, const JValue &v, const std::string &path,
              KernelArg &a) {
  if (!ex.expectKind(v, JValue::Kind::Object, path))
    return false;
  if (const JValue *b = v.get("buffer")) {
    if (!ex.checkKeys(v, path, {"buffer", "offset"}) ||
        !ex.expectKind(*b, JValue::Kind::String, path + ".buffer") ||
        !ex.getU64(v, "offset", path, a.offset, false))
      return false;
    a.kind = KernelArg::Kind::Buffer;
    a.name = b->text;
    return true;
  }
  if (v.members.size() != 1)
    return ex.fail(path, "expected exactly one of \"buffer\", \"scalar\", "
                         "\"i32\", \"i64\", \"f32\", \"f64\", "
                         "\"tensor_map\"");
  const std::string &key = v.members[0].first;
  const JValue &val = v.members[0].second;
  std::string p = path + "." + key;
  if (key == "scalar") {
    if (!ex.expectKind(val, JValue::Kind::String, p))
      return false;
    a.kind = KernelArg::Kind::Scalar;
    a.name = val.text;
    return true;
  }
  if (key == "tensor_map")
    return parseTensorMap(ex, val, p, a);
  if (key == "i32") {
    a.kind = KernelArg::Kind::I32;
    return ex.toInt(val, p, a.intValue, std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<uint32_t>::max());
  }
  if (key == "i64") {
    a.kind = KernelArg::Kind::I64;
    return ex.toInt(val, p, a.intValue, kI64Min, kI64Max);
  }
  if (key == "f32" || key == "f64") {
    a.kind = key == "f32" ? KernelArg::Kind::F32 : KernelArg::Kind::F64;
    return ex.toDouble(val, p, a.floatValue);
  }
  return ex.fail(p, "unknown argument kind (expected \"buffer\", \"scalar\", "
                    "\"i32\", \"i64\", \"f32\", \"f64\" or "
                    "\"tensor_map\")");
}

bool parseStep(Extractor &ex, const JValue &v, const std::string &path,
               Step &s) {
  if (!ex.expectKind(v, JValue::Kind::Object, path))
    return false;
  std::string op;
  if (!ex.getString(v, "op", path, op, true) ||
      !ex.oneOf(op, path + ".op", {"memset32", "memset8", "copy", "launch"}) ||
      !ex.getString(v, "region", path, s.region, false))
    return false;
  if (s.region.empty())
    s.region = "other";
  std::string phase = "forward";
  if (!ex.getString(v, "phase", path, phase, false) ||
      !ex.oneOf(phase, path + ".phase", {"forward", "backward"}))
    return false;
  s.backward = phase == "backward";
  if (op == "memset32" || op == "memset8") {
    s.op = op == "memset32" ? StepOp::Memset32 : StepOp::Memset8;
    int64_t value = 0;
    int64_t lo = op == "memset32" ? std::numeric_limits<int32_t>::min() : 0;
    int64_t hi = op == "memset32" ? 0xFFFFFFFFLL : 0xFF;
    if (!ex.checkKeys(
            v, path,
            {"op", "region", "phase", "buffer", "offset", "count", "value"}) ||
        !ex.getString(v, "buffer", path, s.buffer, true) ||
        !ex.getU64(v, "offset", path, s.offset, false) ||
        !ex.getU64(v, "count", path, s.count, true, 1) ||
        !ex.getInt(v, "value", path, value, true, lo, hi))
      return false;
    s.value = static_cast<uint32_t>(value);
    return true;
  }
  if (op == "copy") {
    s.op = StepOp::Copy;
    return ex.checkKeys(v, path,
                        {"op", "region", "phase", "src", "src_offset", "dst",
                         "dst_offset", "bytes"}) &&
           ex.getString(v, "src", path, s.src, true) &&
           ex.getU64(v, "src_offset", path, s.srcOffset, false) &&
           ex.getString(v, "dst", path, s.dst, true) &&
           ex.getU64(v, "dst_offset", path, s.dstOffset, false) &&
           ex.getU64(v, "bytes", path, s.bytes, true, 1);
  }
  s.op = StepOp::Launch;
  int64_t shared = 0;
  if (!ex.checkKeys(v, path,
                    {"op", "region", "kernel", "grid", "block", "shared_bytes",
                     "programmatic", "cooperative", "phase", "args"}) ||
      !ex.getString(v, "kernel", path, s.kernel, true) ||
      !parseDim3(ex, v, "grid", path, s.grid) ||
      !parseDim3(ex, v, "block", path, s.block) ||
      !ex.getInt(v, "shared_bytes", path, shared, false, 0, 0x7FFFFFFF) ||
      !ex.getBool(v, "programmatic", path, s.programmatic, false) ||
      !ex.getBool(v, "cooperative", path, s.cooperative, false))
    return false;

  if (s.kernel.empty())
    return ex.fail(path + ".kernel", "empty kernel name");
  uint64_t threads = uint64_t(s.block[0]) * s.block[1] * s.block[2];
  if (threads > 1024)
    return ex.fail(path + ".block",
                   std::to_string(threads) + " threads per block exceeds 1024");
  s.sharedBytes = static_cast<unsigned>(shared);
  const JValue *args = ex.member(v, "args", path, true);
  if (!args || !ex.expectKind(*args, JValue::Kind::Array, path + ".args"))
    return false;
  for (size_t i = 0; i < args->items.size(); ++i) {
    s.args.emplace_back();
    if (!parseArg(ex, args->items[i], Extractor::index(path + ".args", i),
                  s.args.back()))
      return false;
  }
  return true;
}

/// The phases: the backward steps are the last ones, at least one step
/// comes before them, and only they read the input "grad" (so that the
/// forward phase runs before the cotangent exists); the first backward
/// launch starts a run of its own, so it cannot be programmatic.
bool validatePhases(Extractor &ex, const Manifest &m) {
  size_t first = m.steps.size();
  for (size_t i = 0; i < m.steps.size(); ++i)
    if (m.steps[i].backward) {
      first = i;
      break;
    }
  if (first == m.steps.size())
    return true;
  std::string at = Extractor::index("steps", first) + ".phase";
  if (first == 0)
    return ex.fail(at, "the backward phase needs a forward step before it");
  if (m.steps[first].programmatic)
    return ex.fail(at, "the first backward step cannot be programmatic (it "
                       "starts a run of its own)");
  for (size_t i = first; i < m.steps.size(); ++i)
    if (!m.steps[i].backward)
      return ex.fail(Extractor::index("steps", i) + ".phase",
                     "a forward step after the backward phase began");
  for (size_t i = 0; i < first; ++i)
    for (const KernelArg &a : m.steps[i].args)
      if ((a.kind == KernelArg::Kind::Buffer ||
           a.kind == KernelArg::Kind::TensorMap) &&
          a.name == "grad")
        return ex.fail(Extractor::index("steps", i),
                       "a forward-phase step reads the input 'grad'");
  return true;
}

/// Cross-reference checks: names exist, ranges lie inside buffers.
bool validate(Extractor &ex, const Manifest &m) {
  if (!validatePhases(ex, m))
    return false;
  for (size_t i = 0; i < m.steps.size(); ++i)
    if (m.steps[i].programmatic &&
        (i == 0 || m.steps[i - 1].op != StepOp::Launch))
      return ex.fail(Extractor::index("steps", i) + ".programmatic",
                     "a programmatic launch must follow a kernel launch");
  std::set<std::string> names;
  for (size_t i = 0; i < m.buffers.size(); ++i)
    if (!names.insert(m.buffers[i].name).second)
      return ex.fail(Extractor::index("buffers", i) + ".name",
                     "duplicate buffer name '" + m.buffers[i].name + "'");
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    const BufferDesc &b = m.buffers[i];
    if (b.sharesWith.empty())
      continue;
    int o = m.findBuffer(b.sharesWith);
    std::string path = Extractor::index("buffers", i) + ".shares.buffer";
    if (o < 0 || m.buffers[o].role != BufferRole::Output)
      return ex.fail(path, "'" + b.sharesWith + "' is not an output buffer");
    for (size_t j = 0; j < i; ++j)
      if (m.buffers[j].sharesWith == b.sharesWith)
        return ex.fail(path,
                       "a second workspace shares '" + b.sharesWith + "'");
  }
  names.clear();
  for (size_t i = 0; i < m.scalars.size(); ++i)
    if (!names.insert(m.scalars[i].name).second)
      return ex.fail(Extractor::index("scalars", i) + ".name",
                     "duplicate scalar name '" + m.scalars[i].name + "'");

  auto range = [&](const std::string &path, const std::string &buf,
                   uint64_t offset, uint64_t bytes) {
    int b = m.findBuffer(buf);
    if (b < 0)
      return ex.fail(path, "unknown buffer '" + buf + "'");
    uint64_t size = m.buffers[b].bytes;
    if (offset > size || bytes > size - offset)
      return ex.fail(path, "range [" + std::to_string(offset) + ", " +
                               std::to_string(offset + bytes) +
                               ") exceeds buffer '" + buf + "' of " +
                               std::to_string(size) + " bytes");
    return true;
  };

  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step &s = m.steps[i];
    std::string path = Extractor::index("steps", i);
    switch (s.op) {
    case StepOp::Memset32:
      if (s.offset % 4 != 0)
        return ex.fail(path + ".offset", "memset32 offset " +
                                             std::to_string(s.offset) +
                                             " is not a multiple of 4");
      if (!range(path + ".buffer", s.buffer, s.offset, s.count * 4))
        return false;
      break;
    case StepOp::Memset8:
      if (!range(path + ".buffer", s.buffer, s.offset, s.count))
        return false;
      break;
    case StepOp::Copy:
      if (!range(path + ".src", s.src, s.srcOffset, s.bytes) ||
          !range(path + ".dst", s.dst, s.dstOffset, s.bytes))
        return false;
      break;
    case StepOp::Launch:
      for (size_t j = 0; j < s.args.size(); ++j) {
        const KernelArg &a = s.args[j];
        std::string ap = Extractor::index(path + ".args", j);
        if (a.kind == KernelArg::Kind::Buffer) {
          int b = m.findBuffer(a.name);
          if (b < 0)
            return ex.fail(ap, "unknown buffer '" + a.name + "'");
          if (a.offset >= m.buffers[b].bytes)
            return ex.fail(ap + ".offset",
                           "offset " + std::to_string(a.offset) +
                               " is outside buffer '" + a.name + "' of " +
                               std::to_string(m.buffers[b].bytes) + " bytes");
        } else if (a.kind == KernelArg::Kind::TensorMap) {
          std::string tp = ap + ".tensor_map";
          int b = m.findBuffer(a.name);
          if (b < 0)
            return ex.fail(tp + ".buffer", "unknown buffer '" + a.name + "'");
          const TensorMapDesc &t = a.tensorMap;
          uint64_t align = t.interleave == TensorMapInterleave::B32 ? 32 : 16;
          if (a.offset % align)
            return ex.fail(tp + ".offset",
                           "offset " + std::to_string(a.offset) +
                               " is not a multiple of " +
                               std::to_string(align) +
                               " (the tensor's base address must be)");
          // Last byte addressed + 1: the innermost row plus every stride
          // times (dim - 1). In 128 bits: dims < 2^33, strides < 2^40.
          unsigned __int128 end = static_cast<unsigned __int128>(t.dims[0]) *
                                  static_cast<uint64_t>(dtypeBytes(t.dtype));
          for (size_t d = 0; d < t.strides.size(); ++d)
            end += static_cast<unsigned __int128>(t.strides[d]) *
                   (t.dims[d + 1] - 1);
          uint64_t size = m.buffers[b].bytes;
          if (a.offset > size || end > size - a.offset)
            return ex.fail(tp + ".dims",
                           "the tensor (" +
                               (end >> 64 ? std::string("> 2^64")
                                          : std::to_string(uint64_t(end))) +
                               " bytes from offset " +
                               std::to_string(a.offset) + ") exceeds buffer '" +
                               a.name + "' of " + std::to_string(size) +
                               " bytes");
        } else if (a.kind == KernelArg::Kind::Scalar &&
                   m.findScalar(a.name) < 0) {
          return ex.fail(ap, "unknown scalar '" + a.name + "'");
        }
      }
      break;
    }
  }
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

int Manifest::findBuffer(std::string_view name) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int Manifest::findScalar(std::string_view name) const {
  for (size_t i = 0; i < scalars.size(); ++i)
    if (scalars[i].name == name)
      return static_cast<int>(i);
  return -1;
}

bool sigreg::runtime::parseManifest(std::string_view json, Manifest &out,
                                    std::string &err) {
  out = Manifest();
  JValue root;
  if (!JsonParser(json).parse(root, err))
    return false;
  Extractor ex(err);
  if (!ex.expectKind(root, JValue::Kind::Object, "manifest"))
    return false;
  if (!ex.getString(root, "format", "", out.format, true))
    return false;
  if (out.format != kManifestFormat)
    return ex.fail("format", "unsupported format \"" + out.format +
                                 "\" (this runtime reads \"" + kManifestFormat +
                                 "\")");
  if (!ex.getString(root, "function", "", out.function, false) ||
      !ex.getString(root, "pipeline", "", out.pipeline, false) ||
      !ex.getString(root, "chip", "", out.chip, false) ||
      !ex.getString(root, "ptx", "", out.ptx, true))
    return false;
  if (out.ptx.empty())
    return ex.fail("ptx", "empty PTX file name");
  if (const JValue *p = root.get("problem")) {
    if (!parseProblem(ex, *p, out.problem))
      return false;
    out.hasProblem = true;
  }
  const JValue *buffers = ex.member(root, "buffers", "", true);
  if (!buffers || !ex.expectKind(*buffers, JValue::Kind::Array, "buffers"))
    return false;
  for (size_t i = 0; i < buffers->items.size(); ++i) {
    out.buffers.emplace_back();
    if (!parseBuffer(ex, buffers->items[i], Extractor::index("buffers", i),
                     out.buffers.back()))
      return false;
  }
  if (const JValue *scalars = root.get("scalars")) {
    if (!ex.expectKind(*scalars, JValue::Kind::Array, "scalars"))
      return false;
    for (size_t i = 0; i < scalars->items.size(); ++i) {
      out.scalars.emplace_back();
      if (!parseScalar(ex, scalars->items[i], Extractor::index("scalars", i),
                       out.scalars.back()))
        return false;
    }
  }
  const JValue *steps = ex.member(root, "steps", "", true);
  if (!steps || !ex.expectKind(*steps, JValue::Kind::Array, "steps"))
    return false;
  if (steps->items.empty())
    return ex.fail("steps", "no steps");
  for (size_t i = 0; i < steps->items.size(); ++i) {
    out.steps.emplace_back();
    if (!parseStep(ex, steps->items[i], Extractor::index("steps", i),
                   out.steps.back()))
      return false;
  }
  return validate(ex, out);
}

bool sigreg::runtime::readFile(const std::string &path, std::string &out,
                               std::string &err) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    err = "cannot open '" + path + "'";
    return false;
  }
  out.clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    out.append(buf, n);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) {
    err = "error reading '" + path + "'";
    return false;
  }
  return true;
}

bool sigreg::runtime::loadArtifact(const std::string &dir, Manifest &manifest,
                                   std::string &ptx, std::string &err) {
  std::string base = dir;
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  std::string manifestPath = base + "/manifest.json";
  std::string json;
  if (!readFile(manifestPath, json, err))
    return false;
  if (!parseManifest(json, manifest, err)) {
    err = manifestPath + ": " + err;
    return false;
  }
  std::string ptxPath =
      manifest.ptx[0] == '/' ? manifest.ptx : base + "/" + manifest.ptx;
  if (!readFile(ptxPath, ptx, err)) {
    err = manifestPath + ": ptx: " + err;
    return false;
  }
  return true;
}

int sigreg::runtime::dtypeBytes(std::string_view dtype) {
  if (dtype == "bf16" || dtype == "f16")
    return 2;
  if (dtype == "f32" || dtype == "i32" || dtype == "u32")
    return 4;
  if (dtype == "f64" || dtype == "i64" || dtype == "u64")
    return 8;
  if (dtype == "i8" || dtype == "u8")
    return 1;
  return 0;
}

const char *sigreg::runtime::toString(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::Workspace:
    return "workspace";
  }
  return "?";
}

const char *sigreg::runtime::toString(ScalarType type) {
  switch (type) {
  case ScalarType::I32:
    return "i32";
  case ScalarType::I64:
    return "i64";
  case ScalarType::F32:
    return "f32";
  case ScalarType::F64:
    return "f64";
  }
  return "?";
}

const char *sigreg::runtime::toString(StepOp op) {
  switch (op) {
  case StepOp::Memset32:
    return "memset32";
  case StepOp::Memset8:
    return "memset8";
  case StepOp::Copy:
    return "copy";
  case StepOp::Launch:
    return "launch";
  }
  return "?";
}

std::string sigreg::runtime::jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string sigreg::runtime::jsonNumber(double v, int significantDigits) {
  if (!std::isfinite(v))
    return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", significantDigits, v);
  return buf;
}
