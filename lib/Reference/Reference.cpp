//===- Reference.cpp - Float64 reference of SIGReg ------------------------===//
//
// Fast but exact: every float64 value is computed by the same operations in
// the same order as the textbook loops, so the results are bitwise identical
// for any thread count and any instruction set.
//
// - Projections y = x A and dx = dy A^T: each output element accumulates its
//   products in ascending order of the inner index, starting from 0.0, with a
//   separate multiply and add (Reference.cpp is compiled with
//   -ffp-contract=off). A register-blocked kernel (MR rows x NR columns, NR
//   columns as one vector; AVX2 and AVX-512 copies picked at run time) over
//   packed column panels of the right operand vectorizes across output
//   columns only, never across the inner index.
// - ECF sums: for each (v, s, k) the cos and sin terms are added over n in
//   ascending order, starting from 0.0. Threads own disjoint blocks of
//   slices, so no partial sums are ever combined.
// - Projection normalization: sum of squares over d in ascending order.
//
// SIGREG_REFERENCE_ISA=generic|avx2 forces a narrower kernel (for testing).
//
// Threads: SIGREG_REFERENCE_THREADS (a positive integer) if set, else
// std::thread::hardware_concurrency() capped at 64. Work items are handed out
// dynamically; since every item writes disjoint outputs computed in a fixed
// order, the schedule does not affect the results.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Reference/Reference.h"
#include "sigreg/Reference/Limits.h"
#include "sigreg/Reference/Philox.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <thread>

using namespace sigreg;

namespace {

bool validArgs(const double *x, int64_t V, int64_t N, int64_t D,
               const double *A, const LossParams &p) {
  if (!(x && A && V > 0 && N > 0 && D > 0 && p.numSlices > 0 &&
        p.numPoints >= 2 && p.worldSize > 0 && checkedMul(N, p.worldSize)))
    return false;
  // Every array is sized from these products (Limits.h): none may wrap.
  ProblemSizes sizes;
  sizes.V = V;
  sizes.N = N;
  sizes.D = D;
  sizes.S = p.numSlices;
  sizes.P = p.numPoints;
  Footprint footprint;
  return computeFootprint(sizes, footprint).empty();
}

//===----------------------------------------------------------------------===//
// Threading
//===----------------------------------------------------------------------===//

int64_t threadCount() {
  if (const char *env = std::getenv("SIGREG_REFERENCE_THREADS")) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0)
      return std::min<long>(value, 1024);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return std::clamp<int64_t>(hw, 1, 64);
}

/// Runs fn(i) for every i in [0, numTasks) on up to threadCount() threads.
template <typename Fn> void parallelFor(int64_t numTasks, const Fn &fn) {
  const int64_t threads = std::min(threadCount(), numTasks);
  if (threads <= 1) {
    for (int64_t i = 0; i < numTasks; ++i)
      fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < numTasks;
         i = next.fetch_add(1, std::memory_order_relaxed))
      fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads - 1));
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &th : pool)
    th.join();
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// C[M, Nc] = X[M, K] B[K, Nc], each C element summed over k = 0..K-1 in order.
//===----------------------------------------------------------------------===//

constexpr int64_t kMaxMR = 8; // rows per micro tile, at most
constexpr int64_t kNR = 8;    // columns per micro tile (one vector)

/// rows[i] points at row i of X (length K); panel is [K, kNR] packed; writes
/// the first nc columns of rows i < mr to out + i * ldc. Only lane-wise
/// multiplies and adds, so every instantiation and instruction set gives
/// bitwise the same results.
template <int64_t MR>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void
microKernelImpl(const double *const *rows, const double *panel, int64_t K,
                int64_t mr, int64_t nc, double *out, int64_t ldc) {
  double acc[MR][kNR];
#if defined(__GNUC__)
  typedef double Vec __attribute__((vector_size(kNR * sizeof(double))));
  Vec a[MR];
  for (int64_t i = 0; i < MR; ++i)
    a[i] = Vec{};
  for (int64_t k = 0; k < K; ++k) {
    Vec b;
    __builtin_memcpy(&b, panel + k * kNR, sizeof(Vec));
    for (int64_t i = 0; i < MR; ++i)
      a[i] = a[i] + rows[i][k] * b;
  }
  for (int64_t i = 0; i < MR; ++i)
    __builtin_memcpy(acc[i], &a[i], sizeof(Vec));
#else
  for (int64_t i = 0; i < MR; ++i)
    for (int64_t j = 0; j < kNR; ++j)
      acc[i][j] = 0.0;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < MR; ++i)
      for (int64_t j = 0; j < kNR; ++j)
        acc[i][j] = acc[i][j] + rows[i][k] * panel[k * kNR + j];
#endif
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nc; ++j)
      out[i * ldc + j] = acc[i][j];
}

using MicroKernel = void (*)(const double *const *, const double *, int64_t,
                             int64_t, int64_t, double *, int64_t);

void microKernel4(const double *const *rows, const double *panel, int64_t K,
                  int64_t mr, int64_t nc, double *out, int64_t ldc) {
  microKernelImpl<4>(rows, panel, K, mr, nc, out, ldc);
}

// x86-64 with GCC or Clang: AVX2 (4 x 2 ymm accumulators) and AVX-512 (8 zmm
// accumulators) copies, picked at run time.
#if defined(__GNUC__) && defined(__x86_64__)
#define SIGREG_X86_KERNELS 1
__attribute__((target("avx2"))) void
microKernelAvx2(const double *const *rows, const double *panel, int64_t K,
                int64_t mr, int64_t nc, double *out, int64_t ldc) {
  microKernelImpl<4>(rows, panel, K, mr, nc, out, ldc);
}
__attribute__((target("avx512f"))) void
microKernelAvx512(const double *const *rows, const double *panel, int64_t K,
                  int64_t mr, int64_t nc, double *out, int64_t ldc) {
  microKernelImpl<8>(rows, panel, K, mr, nc, out, ldc);
}
#endif

/// The widest kernel the CPU supports, or a narrower one named by
/// SIGREG_REFERENCE_ISA ("generic", "avx2"; for testing).
void selectMicroKernel(MicroKernel &kernel, int64_t &mr) {
  kernel = microKernel4;
  mr = 4;
#if defined(SIGREG_X86_KERNELS)
  const char *env = std::getenv("SIGREG_REFERENCE_ISA");
  std::string_view isa = env ? env : "";
  if (isa == "generic")
    return;
  if (isa != "avx2" && __builtin_cpu_supports("avx512f")) {
    kernel = microKernelAvx512;
    mr = 8;
  } else if (__builtin_cpu_supports("avx2")) {
    kernel = microKernelAvx2;
  }
#endif
}

/// B is [K, Nc] row-major, or, with transposed, B^T is given as [Nc, K]
/// row-major.
void matmul(const double *X, int64_t M, int64_t K, const double *B, int64_t Nc,
            bool transposed, double *C) {
  MicroKernel kernel;
  int64_t tileRows;
  selectMicroKernel(kernel, tileRows);
  // Pack B into column panels [numPanels, K, kNR], zero padded.
  const int64_t numPanels = ceilDiv(Nc, kNR);
  std::vector<double> packed(static_cast<size_t>(numPanels * K * kNR), 0.0);
  parallelFor(numPanels, [&](int64_t pi) {
    double *dst = packed.data() + pi * K * kNR;
    const int64_t j0 = pi * kNR, nc = std::min(kNR, Nc - j0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < nc; ++j)
        dst[k * kNR + j] =
            transposed ? B[(j0 + j) * K + k] : B[k * Nc + j0 + j];
  });
  // Tasks: blocks of kRowBlock rows x kPanelGroup panels. The panel (K x kNR)
  // stays in L2 across the row block.
  constexpr int64_t kRowBlock = 64, kPanelGroup = 8;
  const int64_t rowBlocks = ceilDiv(M, kRowBlock);
  const int64_t panelGroups = ceilDiv(numPanels, kPanelGroup);
  parallelFor(rowBlocks * panelGroups, [&](int64_t task) {
    const int64_t rb = task % rowBlocks, pg = task / rowBlocks;
    const int64_t m0 = rb * kRowBlock, m1 = std::min(M, m0 + kRowBlock);
    const int64_t p1 = std::min(numPanels, (pg + 1) * kPanelGroup);
    for (int64_t pi = pg * kPanelGroup; pi < p1; ++pi) {
      const double *panel = packed.data() + pi * K * kNR;
      const int64_t j0 = pi * kNR, nc = std::min(kNR, Nc - j0);
      for (int64_t m = m0; m < m1; m += tileRows) {
        const int64_t mr = std::min(tileRows, m1 - m);
        const double *rows[kMaxMR];
        for (int64_t i = 0; i < kMaxMR; ++i) // ragged tail: repeat the last row
          rows[i] = X + std::min(m + i, m1 - 1) * K;
        kernel(rows, panel, K, mr, nc, C + m * Nc + j0, Nc);
      }
    }
  });
}

//===----------------------------------------------------------------------===//
// Forward pass
//===----------------------------------------------------------------------===//

/// Everything the loss and the gradient share.
struct Forward {
  IntegrationGrid grid;
  std::vector<double> y;    // [V, N, S]
  std::vector<double> c, s; // [V, S, P], ECF averaged over N (and ranks)
  std::vector<double> T;    // [V, S], after clipping
  std::vector<double> rawT; // [V, S], before clipping
  std::vector<double> gate; // [V, S], 0 where clipping replaced T
};

/// Slices per ECF work item.
constexpr int64_t kSliceBlock = 8;

Forward forward(const double *x, int64_t V, int64_t N, int64_t D,
                const double *A, const LossParams &p) {
  const int64_t S = p.numSlices, P = p.numPoints;
  Forward f;
  f.grid = integrationGrid(P, p.tMax);
  // y[vn, s] = sum_{d ascending} x[vn, d] A[d, s].
  f.y.assign(static_cast<size_t>(V * N * S), 0.0);
  matmul(x, V * N, D, A, S, /*transposed=*/false, f.y.data());
  // c[v, s, k] = (sum_{n ascending} cos(t_k y[v, n, s])) / N, same for s.
  // Each work item owns kSliceBlock slices of one view.
  f.c.assign(static_cast<size_t>(V * S * P), 0.0);
  f.s.assign(static_cast<size_t>(V * S * P), 0.0);
  const int64_t sliceBlocks = ceilDiv(S, kSliceBlock);
  parallelFor(V * sliceBlocks, [&](int64_t task) {
    const int64_t v = task / sliceBlocks;
    const int64_t s0 = (task % sliceBlocks) * kSliceBlock;
    const int64_t sb = std::min(kSliceBlock, S - s0);
    const double *t = f.grid.t.data();
    std::vector<double> sc(static_cast<size_t>(sb * P), 0.0);
    std::vector<double> ss(static_cast<size_t>(sb * P), 0.0);
    for (int64_t n = 0; n < N; ++n) {
      const double *yRow = f.y.data() + (v * N + n) * S + s0;
      for (int64_t j = 0; j < sb; ++j)
        for (int64_t k = 0; k < P; ++k) {
          double arg = t[k] * yRow[j];
          sc[j * P + k] += std::cos(arg);
          ss[j * P + k] += std::sin(arg);
        }
    }
    // Every rank holds the same batch: the rank mean is the local mean.
    for (int64_t j = 0; j < sb; ++j)
      for (int64_t k = 0; k < P; ++k) {
        f.c[(v * S + s0 + j) * P + k] = sc[j * P + k] / static_cast<double>(N);
        f.s[(v * S + s0 + j) * P + k] = ss[j * P + k] / static_cast<double>(N);
      }
  });
  const double nGlobal = static_cast<double>(N * p.worldSize);
  f.T.assign(static_cast<size_t>(V * S), 0.0);
  f.rawT.assign(static_cast<size_t>(V * S), 0.0);
  f.gate.assign(static_cast<size_t>(V * S), 1.0);
  for (int64_t vs = 0; vs < V * S; ++vs) {
    double acc = 0.0;
    for (int64_t k = 0; k < P; ++k) {
      double dc = f.c[vs * P + k] - f.grid.phi[k];
      double sv = f.s[vs * P + k];
      acc += f.grid.w[k] * (dc * dc + sv * sv);
    }
    double T = nGlobal * acc;
    f.rawT[vs] = T;
    if (p.clip != ClipMode::None && T < p.clipValue) {
      T = p.clip == ClipMode::ZeroBelow ? 0.0 : p.clipValue;
      f.gate[vs] = 0.0;
    }
    f.T[vs] = T;
  }
  return f;
}

} // namespace

IntegrationGrid sigreg::integrationGrid(int64_t P, double tMax) {
  IntegrationGrid g;
  if (P < 2)
    return g;
  const double dt = tMax / static_cast<double>(P - 1);
  for (int64_t k = 0; k < P; ++k) {
    double t = static_cast<double>(k) * tMax / static_cast<double>(P - 1);
    double phi = std::exp(-0.5 * t * t);
    g.t.push_back(t);
    g.phi.push_back(phi);
    g.w.push_back((k == 0 || k == P - 1 ? 1.0 : 2.0) * dt * phi);
  }
  return g;
}

std::vector<double> sigreg::referenceStatistics(const double *x, int64_t V,
                                                int64_t N, int64_t D,
                                                const double *A,
                                                const LossParams &p) {
  if (!validArgs(x, V, N, D, A, p))
    return {};
  return forward(x, V, N, D, A, p).T;
}

std::vector<double> sigreg::referenceLoss(const double *x, int64_t V, int64_t N,
                                          int64_t D, const double *A,
                                          const LossParams &p) {
  std::vector<double> T = referenceStatistics(x, V, N, D, A, p);
  if (T.empty() || p.reduction == Reduction::None)
    return T;
  double sum = 0.0;
  for (double t : T)
    sum += t;
  if (p.reduction == Reduction::Mean)
    sum /= static_cast<double>(T.size());
  return {sum};
}

namespace {
/// dL/dy of one element y of slice vs with the clip gate open:
/// 2 r sum_{k ascending} w_k t_k (-(c_k - phi_k) sin(t_k y) + s_k cos(t_k y)),
/// r = 1 / (V S) for the mean, else 1.
double openGateSliceGradient(const Forward &f, const LossParams &p, int64_t V,
                             int64_t vs, double y) {
  const int64_t P = p.numPoints;
  const double r = p.reduction == Reduction::Mean
                       ? 1.0 / static_cast<double>(V * p.numSlices)
                       : 1.0;
  double acc = 0.0;
  for (int64_t k = 0; k < P; ++k) {
    double t = f.grid.t[k];
    double arg = t * y;
    double dc = f.c[vs * P + k] - f.grid.phi[k];
    acc += f.grid.w[k] * t *
           (-dc * std::sin(arg) + f.s[vs * P + k] * std::cos(arg));
  }
  return 2.0 * r * acc;
}
} // namespace

namespace {
/// referenceGradient's flip norms from its forward (before f.y is reused).
std::vector<double> flipNorms(const Forward &f, int64_t V, int64_t N, int64_t D,
                              const double *A, const LossParams &p,
                              double relTolerance) {
  if (p.clip == ClipMode::None)
    return {};
  const int64_t S = p.numSlices;
  std::vector<double> norms(static_cast<size_t>(V * S), 0.0);
  for (int64_t vs = 0; vs < V * S; ++vs) {
    double t = f.rawT[vs];
    if (!(std::fabs(t - p.clipValue) <= relTolerance * std::fabs(t)))
      continue;
    const int64_t v = vs / S, s = vs % S;
    double dy2 = 0.0, a2 = 0.0;
    for (int64_t n = 0; n < N; ++n) {
      double g = openGateSliceGradient(f, p, V, vs, f.y[(v * N + n) * S + s]);
      dy2 += g * g;
    }
    for (int64_t d = 0; d < D; ++d)
      a2 += A[d * S + s] * A[d * S + s];
    norms[vs] = std::sqrt(dy2 * a2);
  }
  return norms;
}
} // namespace

std::vector<double> sigreg::referenceGradient(const double *x, int64_t V,
                                              int64_t N, int64_t D,
                                              const double *A,
                                              const LossParams &p,
                                              std::vector<double> *flipNormsOut,
                                              double relTolerance) {
  if (!validArgs(x, V, N, D, A, p))
    return {};
  const int64_t S = p.numSlices;
  Forward f = forward(x, V, N, D, A, p);
  if (flipNormsOut)
    *flipNormsOut = flipNorms(f, V, N, D, A, p, relTolerance);
  // dy[vn, s] = gate dL/dy; reuses f.y's storage.
  std::vector<double> dy = std::move(f.y);
  constexpr int64_t kRowBlock = 16;
  parallelFor(ceilDiv(V * N, kRowBlock), [&](int64_t task) {
    const int64_t vn1 = std::min(V * N, (task + 1) * kRowBlock);
    for (int64_t vn = task * kRowBlock; vn < vn1; ++vn) {
      const int64_t v = vn / N;
      for (int64_t s = 0; s < S; ++s)
        dy[vn * S + s] =
            f.gate[v * S + s] *
            openGateSliceGradient(f, p, V, v * S + s, dy[vn * S + s]);
    }
  });
  // dx[vn, d] = sum_{s ascending} dy[vn, s] A[d, s].
  std::vector<double> dx(static_cast<size_t>(V * N * D), 0.0);
  matmul(dy.data(), V * N, S, A, D, /*transposed=*/true, dx.data());
  return dx;
}

std::vector<double> sigreg::referenceProjection(uint64_t seed, int64_t D,
                                                int64_t S) {
  if (D <= 0 || S <= 0 || !checkedMul(D, S) || !checkedMul(D * S, 8))
    return {};
  std::vector<double> A(static_cast<size_t>(D * S));
  parallelFor(D, [&](int64_t d) {
    for (int64_t s = 0; s < S; ++s)
      A[d * S + s] = projectionGaussian(seed, static_cast<uint32_t>(d),
                                        static_cast<uint32_t>(s));
  });
  // Column norms, each summed over d in ascending order.
  constexpr int64_t kColBlock = 64;
  std::vector<double> norm(static_cast<size_t>(S), 0.0);
  parallelFor(ceilDiv(S, kColBlock), [&](int64_t task) {
    const int64_t s0 = task * kColBlock, s1 = std::min(S, s0 + kColBlock);
    for (int64_t d = 0; d < D; ++d)
      for (int64_t s = s0; s < s1; ++s)
        norm[s] += A[d * S + s] * A[d * S + s];
    for (int64_t s = s0; s < s1; ++s)
      norm[s] = std::sqrt(norm[s]);
  });
  parallelFor(D, [&](int64_t d) {
    for (int64_t s = 0; s < S; ++s)
      A[d * S + s] /= norm[s];
  });
  return A;
}

const char *sigreg::toString(ClipMode mode) {
  switch (mode) {
  case ClipMode::None:
    return "none";
  case ClipMode::ZeroBelow:
    return "zero_below";
  case ClipMode::ClampMin:
    return "clamp_min";
  }
  return "unknown";
}

const char *sigreg::toString(Reduction reduction) {
  switch (reduction) {
  case Reduction::Mean:
    return "mean";
  case Reduction::Sum:
    return "sum";
  case Reduction::None:
    return "none";
  }
  return "unknown";
}

bool sigreg::parseClipMode(std::string_view text, ClipMode &out) {
  if (text == "none")
    out = ClipMode::None;
  else if (text == "zero_below")
    out = ClipMode::ZeroBelow;
  else if (text == "clamp_min")
    out = ClipMode::ClampMin;
  else
    return false;
  return true;
}

bool sigreg::parseReduction(std::string_view text, Reduction &out) {
  if (text == "mean")
    out = Reduction::Mean;
  else if (text == "sum")
    out = Reduction::Sum;
  else if (text == "none")
    out = Reduction::None;
  else
    return false;
  return true;
}
