//===- Limits.cpp - problem size limits, overflow-checked sizes -----------===//

#include "sigreg/Reference/Limits.h"

#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <utility>

using namespace sigreg;

std::optional<int64_t> sigreg::checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> sigreg::checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

bool sigreg::sliceArgumentRepresentable(double tMax, double maxAbsY) {
  double arg = tMax * maxAbsY;
  return std::isfinite(arg) && arg <= static_cast<double>(FLT_MAX);
}

namespace {
/// Forms named products; remembers the first overflow.
class Products {
public:
  /// The product of `factors` (named by `name`, e.g. "V*N*D"), or 0 after
  /// an overflow (the error names it).
  int64_t
  operator()(const char *name,
             std::initializer_list<std::pair<const char *, int64_t>> factors) {
    if (!error.empty())
      return 0;
    int64_t r = 1;
    for (auto [_, f] : factors) {
      std::optional<int64_t> next = checkedMul(r, f);
      if (!next) {
        error = std::string(name) + " = ";
        bool first = true;
        for (auto [n, g] : factors) {
          error += (first ? "" : "*") + std::to_string(g);
          first = false;
        }
        error += " overflows 64 bits";
        return 0;
      }
      r = *next;
    }
    return r;
  }
  int64_t sum(std::initializer_list<int64_t> terms, const char *name) {
    if (!error.empty())
      return 0;
    int64_t r = 0;
    for (int64_t t : terms) {
      std::optional<int64_t> next = checkedAdd(r, t);
      if (!next) {
        error = std::string(name) + " overflows 64 bits";
        return 0;
      }
      r = *next;
    }
    return r;
  }
  std::string error;
};
} // namespace

std::string sigreg::computeFootprint(const ProblemSizes &p, Footprint &out) {
  out = Footprint();
  if (p.V < 1 || p.N < 1 || p.D < 1 || p.S < 1 || p.P < 1 || p.inputBytes < 1)
    return "sizes must be positive";
  Products mul;
  int64_t V = p.V, N = p.N, D = p.D, S = p.S, P = p.P, q = p.inputBytes;
  int64_t T = N / 16 + (N % 16 != 0);
  // Element counts first, so that the message names the product of sizes.
  int64_t vnd = mul("V*N*D", {{"V", V}, {"N", N}, {"D", D}});
  int64_t ds = mul("D*S", {{"D", D}, {"S", S}});
  int64_t vsp = mul("V*S*P", {{"V", V}, {"S", S}, {"P", P}});
  int64_t vns = mul("V*N*S", {{"V", V}, {"N", N}, {"S", S}});
  int64_t vnsp = mul("V*N*S*P", {{"V", V}, {"N", N}, {"S", S}, {"P", P}});
  // Bytes.
  out.input = mul("x bytes V*N*D*q", {{"V*N*D", vnd}, {"q", q}});
  out.projection = mul("projection bytes D*S*4", {{"D*S", ds}, {"4", 4}});
  out.ecf = mul("ECF bytes 2*V*S*P*4", {{"V*S*P", vsp}, {"8", 8}});
  out.fusedWorkspace = mul("ECF partial bytes 2*ceil(N/16)*V*S*P*4",
                           {{"ceil(N/16)", T}, {"V*S*P", vsp}, {"8", 8}});
  out.naiveWorkspace =
      mul("naive workspace bytes V*N*S*P*4", {{"V*N*S*P", vnsp}, {"4", 4}});
  int64_t x64 = mul("x f64 bytes V*N*D*8", {{"V*N*D", vnd}, {"8", 8}});
  int64_t a64 = mul("projection f64 bytes D*S*8", {{"D*S", ds}, {"8", 8}});
  int64_t aIn = mul("projection bytes D*S*q", {{"D*S", ds}, {"q", q}});
  int64_t y64 = mul("reference y bytes V*N*S*8", {{"V*N*S", vns}, {"8", 8}});
  int64_t c64 =
      mul("reference ECF bytes 2*V*S*P*8", {{"V*S*P", vsp}, {"16", 16}});
  out.host = mul.sum({out.input, x64, a64, aIn, y64, c64}, "host bytes");
  out.device =
      mul.sum({out.input, aIn, out.projection, out.ecf, out.fusedWorkspace},
              "device bytes");
  if (!mul.error.empty())
    out = Footprint();
  return mul.error;
}

std::string sigreg::formatBytes(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%" PRIu64 " bytes (%.1f GiB)", bytes,
                static_cast<double>(bytes) / double(1ull << 30));
  return buf;
}

std::string sigreg::checkMemoryBudget(const Footprint &f, const RunKind &run,
                                      uint64_t budget) {
  auto check = [&](bool needed, int64_t bytes,
                   const char *what) -> std::string {
    if (!needed || static_cast<uint64_t>(bytes) <= budget)
      return "";
    return std::string(what) + " need " +
           formatBytes(static_cast<uint64_t>(bytes)) +
           ", more than the memory budget of " + formatBytes(budget) +
           " (raise it with --max-memory)";
  };
  for (std::string e :
       {check(run.hostInputs, f.host,
              "the host inputs and the float64 reference"),
        check(run.naiveCpu, f.naiveWorkspace,
              "the naive CPU path's [V, N, S, P] workspace"),
        check(run.device, f.device, "the fused path's device buffers"),
        check(run.naiveDevice, f.naiveWorkspace,
              "the naive GPU path's [V, N, S, P] workspace")})
    if (!e.empty())
      return e;
  return "";
}

bool sigreg::parseByteSize(std::string_view text, uint64_t &out) {
  if (text.empty())
    return false;
  uint64_t scale = 1;
  switch (text.back()) {
  case 'K':
  case 'k':
    scale = 1ull << 10;
    break;
  case 'M':
  case 'm':
    scale = 1ull << 20;
    break;
  case 'G':
  case 'g':
    scale = 1ull << 30;
    break;
  case 'T':
  case 't':
    scale = 1ull << 40;
    break;
  default:
    break;
  }
  if (scale != 1)
    text.remove_suffix(1);
  if (text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || __builtin_mul_overflow(v, 10, &v) ||
        __builtin_add_overflow(v, uint64_t(c - '0'), &v))
      return false;
  }
  if (v == 0 || __builtin_mul_overflow(v, scale, &v))
    return false;
  out = v;
  return true;
}
