//===- Reference.cpp - Float64 reference of SIGReg ------------------------===//

#include "sigreg/Reference/Reference.h"
#include "sigreg/Reference/Philox.h"

#include <cmath>

using namespace sigreg;

namespace {

bool validArgs(const double *x, int64_t V, int64_t N, int64_t D,
               const double *A, const LossParams &p) {
  return x && A && V > 0 && N > 0 && D > 0 && p.numSlices > 0 &&
         p.numPoints >= 2 && p.worldSize > 0;
}

/// Everything the loss and the gradient share.
struct Forward {
  IntegrationGrid grid;
  std::vector<double> y;    // [V, N, S]
  std::vector<double> c, s; // [V, S, P], ECF averaged over N (and ranks)
  std::vector<double> T;    // [V, S], after clipping
  std::vector<double> gate; // [V, S], 0 where clipping replaced T
};

Forward forward(const double *x, int64_t V, int64_t N, int64_t D,
                const double *A, const LossParams &p) {
  const int64_t S = p.numSlices, P = p.numPoints;
  Forward f;
  f.grid = integrationGrid(P, p.tMax);
  f.y.assign(static_cast<size_t>(V * N * S), 0.0);
  for (int64_t vn = 0; vn < V * N; ++vn)
    for (int64_t d = 0; d < D; ++d) {
      double xv = x[vn * D + d];
      for (int64_t s = 0; s < S; ++s)
        f.y[vn * S + s] += xv * A[d * S + s];
    }
  f.c.assign(static_cast<size_t>(V * S * P), 0.0);
  f.s.assign(static_cast<size_t>(V * S * P), 0.0);
  for (int64_t v = 0; v < V; ++v)
    for (int64_t s = 0; s < S; ++s)
      for (int64_t k = 0; k < P; ++k) {
        double sc = 0.0, ss = 0.0;
        for (int64_t n = 0; n < N; ++n) {
          double arg = f.grid.t[k] * f.y[(v * N + n) * S + s];
          sc += std::cos(arg);
          ss += std::sin(arg);
        }
        // Every rank holds the same batch: the rank mean is the local mean.
        f.c[(v * S + s) * P + k] = sc / static_cast<double>(N);
        f.s[(v * S + s) * P + k] = ss / static_cast<double>(N);
      }
  const double nGlobal = static_cast<double>(N * p.worldSize);
  f.T.assign(static_cast<size_t>(V * S), 0.0);
  f.gate.assign(static_cast<size_t>(V * S), 1.0);
  for (int64_t vs = 0; vs < V * S; ++vs) {
    double acc = 0.0;
    for (int64_t k = 0; k < P; ++k) {
      double dc = f.c[vs * P + k] - f.grid.phi[k];
      double sv = f.s[vs * P + k];
      acc += f.grid.w[k] * (dc * dc + sv * sv);
    }
    double T = nGlobal * acc;
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

std::vector<double> sigreg::referenceGradient(const double *x, int64_t V,
                                              int64_t N, int64_t D,
                                              const double *A,
                                              const LossParams &p) {
  if (!validArgs(x, V, N, D, A, p))
    return {};
  const int64_t S = p.numSlices, P = p.numPoints;
  Forward f = forward(x, V, N, D, A, p);
  const double r =
      p.reduction == Reduction::Mean ? 1.0 / static_cast<double>(V * S) : 1.0;
  std::vector<double> dx(static_cast<size_t>(V * N * D), 0.0);
  std::vector<double> dy(static_cast<size_t>(S));
  for (int64_t v = 0; v < V; ++v)
    for (int64_t n = 0; n < N; ++n) {
      const int64_t vn = v * N + n;
      for (int64_t s = 0; s < S; ++s) {
        const int64_t vs = v * S + s;
        double acc = 0.0;
        for (int64_t k = 0; k < P; ++k) {
          double t = f.grid.t[k];
          double arg = t * f.y[vn * S + s];
          double dc = f.c[vs * P + k] - f.grid.phi[k];
          acc += f.grid.w[k] * t *
                 (-dc * std::sin(arg) + f.s[vs * P + k] * std::cos(arg));
        }
        dy[s] = 2.0 * r * f.gate[vs] * acc;
      }
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0.0;
        for (int64_t s = 0; s < S; ++s)
          acc += dy[s] * A[d * S + s];
        dx[vn * D + d] = acc;
      }
    }
  return dx;
}

std::vector<double> sigreg::referenceProjection(uint64_t seed, int64_t D,
                                                int64_t S) {
  if (D <= 0 || S <= 0)
    return {};
  std::vector<double> A(static_cast<size_t>(D * S));
  std::vector<double> sumSq(static_cast<size_t>(S), 0.0);
  for (int64_t d = 0; d < D; ++d)
    for (int64_t s = 0; s < S; ++s) {
      double g = projectionGaussian(seed, static_cast<uint32_t>(d),
                                    static_cast<uint32_t>(s));
      A[d * S + s] = g;
      sumSq[s] += g * g;
    }
  for (int64_t s = 0; s < S; ++s)
    sumSq[s] = std::sqrt(sumSq[s]);
  for (int64_t d = 0; d < D; ++d)
    for (int64_t s = 0; s < S; ++s)
      A[d * S + s] /= sumSq[s];
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
