//===- ProjectionBuilder.cpp - IR for the projection generator ------------===//

#include "sigreg/Dialect/Sigreg/Utils/ProjectionBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sigreg;

namespace {
constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
constexpr double kPi = 3.141592653589793;

/// Small helper that keeps the builder calls of the mapping readable.
struct Emitter {
  ImplicitLocOpBuilder &b;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();

  Value u32(uint32_t v) {
    return arith::ConstantOp::create(b, b.getIntegerAttr(i32, v));
  }
  Value f(float v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, x, y); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value andi(Value x, uint32_t m) {
    return arith::AndIOp::create(b, x, u32(m));
  }
  Value ori(Value x, uint32_t m) { return arith::OrIOp::create(b, x, u32(m)); }
  Value shr(Value x, uint32_t n) {
    return arith::ShRUIOp::create(b, x, u32(n));
  }
  Value toF(Value x) { return arith::UIToFPOp::create(b, f32, x); }
  Value sToF(Value x) { return arith::SIToFPOp::create(b, f32, x); }
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value subf(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value negf(Value x) { return arith::NegFOp::create(b, x); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, x, y, z);
  }
  Value bitsToF(Value x) { return arith::BitcastOp::create(b, f32, x); }
  Value fToBits(Value x) { return arith::BitcastOp::create(b, i32, x); }
  /// Horner evaluation with explicit fma: coeffs[n-1] * z^(n-1) + ... + c[0].
  Value horner(ArrayRef<float> coeffs, Value z) {
    Value p = f(coeffs.back());
    for (int k = static_cast<int>(coeffs.size()) - 2; k >= 0; --k)
      p = fma(p, z, f(coeffs[k]));
    return p;
  }
};
} // namespace

std::array<Value, 4> mlir::sigreg::buildPhilox4x32_10(ImplicitLocOpBuilder &b,
                                                      std::array<Value, 4> c,
                                                      std::array<Value, 2> k) {
  Emitter e{b};
  Value m0 = e.u32(kM0), m1 = e.u32(kM1), w0 = e.u32(kW0), w1 = e.u32(kW1);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] = e.addi(k[0], w0);
      k[1] = e.addi(k[1], w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, m1, c[2]);
    c = {e.xori(e.xori(p1.getHigh(), c[1]), k[0]), p1.getLow(),
         e.xori(e.xori(p0.getHigh(), c[3]), k[1]), p0.getLow()};
  }
  return c;
}

namespace {
/// The Philox words of row group `group` (rows 4 group .. + 3) of column `s`:
/// counter (group, s, 0, 0), key (seed lo, seed hi).
std::array<Value, 4> philoxWords(ImplicitLocOpBuilder &b, Value seed,
                                 Value group, Value s) {
  Emitter e{b};
  Type i64 = b.getI64Type();
  Value keyLo = arith::TruncIOp::create(b, e.i32, seed);
  Value hi = arith::ShRUIOp::create(
      b, seed, arith::ConstantOp::create(b, b.getIntegerAttr(i64, 32)));
  Value keyHi = arith::TruncIOp::create(b, e.i32, hi);
  Value zero = e.u32(0);
  return buildPhilox4x32_10(b, {group, s, zero, zero}, {keyLo, keyHi});
}

/// One Box-Muller pair from two words (sections 3-5): the radius r, the
/// first-quadrant polynomials cos(theta), sin(theta) and the quadrant q.
struct BoxMullerPair {
  Value r, cosv, sinv, q;
};

BoxMullerPair buildBoxMullerPair(ImplicitLocOpBuilder &b, Value x0, Value x1) {
  Emitter e{b};
  // log(u1), u1 = n * 2^-24, n in [1, 2^24].
  Value n = e.addi(e.shr(x0, 8), e.u32(1));
  Value nf = e.toF(n);
  Value bits = e.fToBits(nf);
  Value expo = arith::SubIOp::create(b, e.shr(bits, 23), e.u32(127 + 24));
  Value m = e.bitsToF(e.ori(e.andi(bits, 0x7FFFFFu), 0x3F800000u));
  Value one = e.f(1.0f);
  Value sv = e.divf(e.subf(m, one), e.addf(m, one));
  Value z = e.mulf(sv, sv);
  SmallVector<float> logCoeffs;
  for (int k = 0; k <= 8; ++k)
    logCoeffs.push_back(static_cast<float>(1.0 / (2 * k + 1)));
  Value lnm = e.mulf(e.addf(sv, sv), e.horner(logCoeffs, z));
  Value lnu =
      e.fma(e.sToF(expo), e.f(static_cast<float>(0.6931471805599453)), lnm);
  BoxMullerPair pair;
  pair.r = math::SqrtOp::create(b, e.mulf(e.f(-2.0f), lnu));

  // 2 pi u2 = q pi/2 + theta.
  Value j = e.shr(x1, 8);
  pair.q = e.shr(j, 22);
  Value frac = e.mulf(e.toF(e.andi(j, 0x3FFFFFu)), e.f(0x1p-22f));
  Value theta = e.mulf(frac, e.f(static_cast<float>(1.5707963267948966)));
  Value t2 = e.mulf(theta, theta);
  SmallVector<float> cosCoeffs, sinCoeffs;
  double fact = 1.0;
  for (int k = 0; k <= 15; ++k) {
    if (k > 0)
      fact *= k;
    double term = ((k / 2) % 2 ? -1.0 : 1.0) / fact;
    (k % 2 ? sinCoeffs : cosCoeffs).push_back(static_cast<float>(term));
  }
  pair.cosv = e.horner(cosCoeffs, t2);
  pair.sinv = e.mulf(theta, e.horner(sinCoeffs, t2));
  return pair;
}

/// The fast mapping's pair (section 7): -r and the angle y = 2 pi u2 - pi in
/// [-pi, pi), so that the pair's normals are (-r) cos(y) = r cos(2 pi u2) and
/// (-r) sin(y) = r sin(2 pi u2), with no quadrant select.
struct FastBoxMullerPair {
  Value negR, angle;
};

/// The NVVM intrinsic `name` (an f32 -> f32 approximation) applied to `x`.
Value approxIntrinsic(ImplicitLocOpBuilder &b, StringRef name, Value x) {
  return LLVM::CallIntrinsicOp::create(b, b.getF32Type(), b.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}

FastBoxMullerPair buildFastBoxMullerPair(ImplicitLocOpBuilder &b, Value x0,
                                         Value x1) {
  Emitter e{b};
  // u1 = n 2^-24 exactly; -2 ln u1 = -2 ln 2 log2(u1), clamped at 0 where
  // the approximate log2 of u1 near 1 comes out positive. The log2 and the
  // square root are lg2/sqrt.approx.ftz.f32: their inputs are never
  // subnormal (u1 >= 2^-24; the radius^2 is 0 or far above 2^-126), so
  // flushing subnormals changes no result, and it spares the subnormal
  // test, scale and rescale that ptxas wraps around the non-ftz forms (six
  // instructions per pair, on the Box-Muller chain).
  Value n = e.addi(e.shr(x0, 8), e.u32(1));
  Value u1 = e.mulf(e.toF(n), e.f(0x1p-24f));
  Value log2u = approxIntrinsic(b, "llvm.nvvm.lg2.approx.ftz.f", u1);
  Value twoLn2 = e.f(static_cast<float>(-2.0 * 0.6931471805599453));
  Value radius2 =
      arith::MaximumFOp::create(b, e.mulf(log2u, twoLn2), e.f(0.0f));
  FastBoxMullerPair pair;
  pair.negR =
      e.negf(approxIntrinsic(b, "llvm.nvvm.sqrt.approx.ftz.f", radius2));
  // j 2 pi 2^-24 - pi for j = x1 >> 8: the angle 2 pi u2 shifted into the
  // range where sin/cos.approx are accurate.
  Value j = e.toF(e.shr(x1, 8));
  pair.angle = e.fma(j, e.f(static_cast<float>(2.0 * kPi / 16777216.0)),
                     e.f(static_cast<float>(-kPi)));
  return pair;
}

/// The fast pair's cosine normal, or with `sine` its sine normal.
Value buildFastPairNormal(ImplicitLocOpBuilder &b,
                          const FastBoxMullerPair &pair, bool sine) {
  Emitter e{b};
  auto afn = arith::FastMathFlags::afn;
  Value trig = sine ? math::SinOp::create(b, pair.angle, afn).getResult()
                    : math::CosOp::create(b, pair.angle, afn).getResult();
  return e.mulf(pair.negR, trig);
}

/// r * cos(2 pi u2 - quarter * pi/2): the quadrant select [cos, -sin, -cos,
/// sin][(q - quarter) mod 4] (quarter 0: the cosine, 1: the sine).
Value buildPairNormal(ImplicitLocOpBuilder &b, const BoxMullerPair &pair,
                      Value quarter) {
  Emitter e{b};
  Value zero = e.u32(0);
  Value q = e.andi(arith::SubIOp::create(b, pair.q, quarter), 3);
  Value qIsOdd =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ne, e.andi(q, 1), zero);
  Value negate = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                       e.andi(e.xori(q, e.shr(q, 1)), 1),
                                       zero); // q == 1 or q == 2
  Value mag = arith::SelectOp::create(b, qIsOdd, pair.sinv, pair.cosv);
  Value c = arith::SelectOp::create(b, negate, e.negf(mag), mag);
  return e.mulf(pair.r, c);
}
} // namespace

Value mlir::sigreg::buildProjectionGaussian(ImplicitLocOpBuilder &b, Value seed,
                                            Value d, Value s) {
  Emitter e{b};
  std::array<Value, 4> x = philoxWords(b, seed, e.shr(d, 2), s);
  // Rows 4k + 2, 4k + 3 take words (x2, x3); odd rows the sine.
  Value second = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                       e.andi(d, 2), e.u32(0));
  Value w0 = arith::SelectOp::create(b, second, x[2], x[0]);
  Value w1 = arith::SelectOp::create(b, second, x[3], x[1]);
  return buildPairNormal(b, buildBoxMullerPair(b, w0, w1), e.andi(d, 1));
}

std::array<Value, 4>
mlir::sigreg::buildProjectionGaussianGroup(ImplicitLocOpBuilder &b, Value seed,
                                           Value group, Value s,
                                           NormalMapping mapping) {
  Emitter e{b};
  std::array<Value, 4> x = philoxWords(b, seed, group, s);
  if (mapping == NormalMapping::Fast) {
    FastBoxMullerPair first = buildFastBoxMullerPair(b, x[0], x[1]);
    FastBoxMullerPair second = buildFastBoxMullerPair(b, x[2], x[3]);
    return {buildFastPairNormal(b, first, false),
            buildFastPairNormal(b, first, true),
            buildFastPairNormal(b, second, false),
            buildFastPairNormal(b, second, true)};
  }
  BoxMullerPair first = buildBoxMullerPair(b, x[0], x[1]);
  BoxMullerPair second = buildBoxMullerPair(b, x[2], x[3]);
  Value cosine = e.u32(0), sine = e.u32(1);
  return {buildPairNormal(b, first, cosine), buildPairNormal(b, first, sine),
          buildPairNormal(b, second, cosine), buildPairNormal(b, second, sine)};
}

IntegrationGrid mlir::sigreg::computeIntegrationGrid(int64_t numPoints,
                                                     double tMax) {
  IntegrationGrid g;
  double dt = tMax / static_cast<double>(numPoints - 1);
  for (int64_t p = 0; p < numPoints; ++p) {
    double t = static_cast<double>(p) * dt;
    double phi = std::exp(-0.5 * t * t);
    bool end = p == 0 || p == numPoints - 1;
    g.t.push_back(t);
    g.phi.push_back(phi);
    g.w.push_back((end ? 1.0 : 2.0) * dt * phi);
  }
  return g;
}
