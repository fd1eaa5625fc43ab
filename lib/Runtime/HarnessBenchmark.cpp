//===- HarnessBenchmark.cpp - timed runs and region tables ----------------===//
//
// Part of the runtime harness (include/sigreg/Runtime/Harness.h), one file
// per job: inputs, validation, benchmarking, reports.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Runtime/Harness.h"

#include "sigreg/Reference/Inputs.h"
#include "sigreg/Reference/Limits.h"
#include "sigreg/Reference/Numeric.h"
#include "sigreg/Reference/Philox.h"
#include "sigreg/Reference/Reference.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace sigreg::runtime;

namespace {
const char *const kSeedRegions[] = {"projection_generation", "projection_gemm",
                                    "trig_reduction", "epilogue"};

double median(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Releases device memory on scope exit (bench input copies, flush buffer).
class ScopedAllocs {
public:
  explicit ScopedAllocs(CudaDriver &d) : drv(d) {}
  ~ScopedAllocs() {
    for (CUdeviceptr p : ptrs) {
      Status s = drv.memFree(p);
      if (!s.ok())
        std::fprintf(stderr, "warning: %s\n", s.message().c_str());
    }
  }
  Status alloc(CUdeviceptr &p, size_t bytes) {
    SIGREG_RETURN_IF_ERROR(drv.memAlloc(p, bytes));
    ptrs.push_back(p);
    return Status::success();
  }

private:
  CudaDriver &drv;
  std::vector<CUdeviceptr> ptrs;
};

class ScopedEvents {
public:
  explicit ScopedEvents(CudaDriver &d) : drv(d) {}
  ~ScopedEvents() {
    for (CUevent e : events) {
      Status s = drv.eventDestroy(e);
      if (!s.ok())
        std::fprintf(stderr, "warning: %s\n", s.message().c_str());
    }
  }
  Status create(size_t n) {
    while (events.size() < n) {
      CUevent e = nullptr;
      SIGREG_RETURN_IF_ERROR(drv.eventCreate(e));
      events.push_back(e);
    }
    return Status::success();
  }
  CUevent operator[](size_t i) const { return events[i]; }

private:
  CudaDriver &drv;
  std::vector<CUevent> events;
};
/// Region rows: the seed's four first, then the artifact's others, each the
/// median of its per-run times, with its share of their sum.
std::vector<BenchRow>
regionRows(const std::vector<std::string> &names,
           const std::vector<std::vector<double>> &perRegion) {
  std::vector<BenchRow> rows;
  auto regionMedian = [&](const std::string &name) {
    for (size_t r = 0; r < names.size(); ++r)
      if (names[r] == name)
        return median(perRegion[r]);
    return 0.0;
  };
  for (const char *name : kSeedRegions)
    rows.push_back({name, regionMedian(name), 0.0});
  for (const std::string &name : names) {
    bool seed = false;
    for (const char *s : kSeedRegions)
      seed |= name == s;
    if (!seed)
      rows.push_back({name, regionMedian(name), 0.0});
  }
  double total = 0;
  for (const BenchRow &row : rows)
    total += row.ms;
  for (BenchRow &row : rows)
    row.sharePct = total > 0 ? 100.0 * row.ms / total : 0.0;
  return rows;
}

/// Input rotation: when all inputs together fit in L2, keep enough copies
/// that one sweep over them spans twice the L2 (at most maxInputCopies and
/// 4 GiB); iteration i runs on copy i % copies. Fills `inputs` (buffer
/// indices), `ptrs[c][k]` (copy c of input k; copy 0 is the bound buffer),
/// res.inputBytes and res.inputCopies.
Status makeInputCopies(Executor &exec, const BenchOptions &opt, uint64_t l2,
                       ScopedAllocs &allocs, BenchResult &res,
                       std::vector<int> &inputs,
                       std::vector<std::vector<CUdeviceptr>> &ptrs) {
  CudaDriver &drv = exec.driver();
  const Manifest &m = exec.manifest();
  for (size_t i = 0; i < m.buffers.size(); ++i)
    if (m.buffers[i].role == BufferRole::Input) {
      inputs.push_back(static_cast<int>(i));
      res.inputBytes += m.buffers[i].bytes;
    }
  int copies = 1;
  if (res.inputBytes > 0 && res.inputBytes < l2) {
    uint64_t want = (2 * l2 + res.inputBytes - 1) / res.inputBytes;
    uint64_t memCap = std::max<uint64_t>(1, (4ull << 30) / res.inputBytes);
    copies = static_cast<int>(std::min<uint64_t>(
        {want, static_cast<uint64_t>(std::max(opt.maxInputCopies, 1)),
         memCap}));
  }
  res.inputCopies = copies;
  ptrs.assign(copies, {});
  for (int c = 0; c < copies; ++c)
    for (int k : inputs) {
      CUdeviceptr base = 0;
      SIGREG_RETURN_IF_ERROR(exec.bufferPointer(m.buffers[k].name, base));
      CUdeviceptr p = base;
      if (c > 0) {
        SIGREG_RETURN_IF_ERROR(allocs.alloc(p, m.buffers[k].bytes));
        SIGREG_RETURN_IF_ERROR(drv.memcpyDtoD(p, base, m.buffers[k].bytes));
      }
      ptrs[c].push_back(p);
    }
  return drv.ctxSynchronize();
}
} // namespace

//===----------------------------------------------------------------------===//
// Benchmark
//===----------------------------------------------------------------------===//

Status sigreg::runtime::runBenchmark(Executor &exec, const BenchOptions &opt,
                                     BenchResult &res) {
  if (opt.iters < 1 || opt.warmup < 0)
    return Status::error("benchmark needs iters >= 1 and warmup >= 0");
  CudaDriver &drv = exec.driver();
  const Manifest &m = exec.manifest();
  CUstream stream = exec.stream();
  SIGREG_RETURN_IF_ERROR(drv.makeCurrent(exec.device().ordinal));
  SIGREG_RETURN_IF_ERROR(exec.synchronize());
  if (opt.sharedCarveout >= 0)
    SIGREG_RETURN_IF_ERROR(exec.setSharedCarveout(opt.sharedCarveout));
  res = BenchResult();
  res.warmup = opt.warmup;
  res.iters = opt.iters;
  res.flushL2 = opt.flushL2;

  std::vector<int> inputs;
  uint64_t l2 = static_cast<uint64_t>(std::max(exec.device().l2CacheBytes, 0));
  ScopedAllocs allocs(drv);
  // ptrs[c][k]: copy c of input k (copy 0: the currently bound buffers).
  std::vector<std::vector<CUdeviceptr>> ptrs;
  SIGREG_RETURN_IF_ERROR(
      makeInputCopies(exec, opt, l2, allocs, res, inputs, ptrs));
  int copies = res.inputCopies;
  auto bindCopy = [&](int c) {
    for (size_t j = 0; j < inputs.size(); ++j)
      SIGREG_RETURN_IF_ERROR(
          exec.bindBuffer(m.buffers[inputs[j]].name, ptrs[c][j]));
    return Status::success();
  };
  std::vector<CUdeviceptr> original =
      ptrs.empty() ? std::vector<CUdeviceptr>() : ptrs[0];

  CUdeviceptr flush = 0;
  if (opt.flushL2) {
    res.flushBytes = std::max<uint64_t>(2 * l2, 64ull << 20) / 4 * 4;
    SIGREG_RETURN_IF_ERROR(allocs.alloc(flush, res.flushBytes));
  }
  uint32_t flushValue = 0;
  auto preRun = [&]() {
    if (!opt.flushL2)
      return Status::success();
    return drv.memsetD32Async(flush, ++flushValue, res.flushBytes / 4, stream);
  };

  Status status = Status::success();
  auto body = [&]() -> Status {
    ScopedEvents ev(drv);
    SIGREG_RETURN_IF_ERROR(
        ev.create(2 * static_cast<size_t>(std::max(opt.iters, opt.warmup))));

    // 1. Per-region times: an event pair around every step.
    std::vector<std::vector<double>> perRegion(exec.regions().size());
    std::vector<RegionTime> times;
    for (int i = 0; i < opt.warmup + opt.iters; ++i) {
      SIGREG_RETURN_IF_ERROR(bindCopy(i % copies));
      SIGREG_RETURN_IF_ERROR(preRun());
      SIGREG_RETURN_IF_ERROR(exec.runTimed(times));
      if (i < opt.warmup)
        continue;
      for (size_t r = 0; r < times.size(); ++r)
        perRegion[r].push_back(times[r].ms);
    }

    // Warm-up then timed runs of `launch(i)` between an event pair each,
    // after `prepare(i)` and the L2 flush (both outside the events).
    auto timeRuns = [&](const std::function<Status(int)> &prepare,
                        const std::function<Status(int)> &launch,
                        std::vector<double> &ms) -> Status {
      for (int pass = 0; pass < 2; ++pass) {
        int n = pass == 0 ? opt.warmup : opt.iters;
        for (int i = 0; i < n; ++i) {
          SIGREG_RETURN_IF_ERROR(prepare(i));
          SIGREG_RETURN_IF_ERROR(preRun());
          SIGREG_RETURN_IF_ERROR(drv.eventRecord(ev[2 * i], stream));
          SIGREG_RETURN_IF_ERROR(launch(i));
          SIGREG_RETURN_IF_ERROR(drv.eventRecord(ev[2 * i + 1], stream));
        }
        SIGREG_RETURN_IF_ERROR(exec.synchronize());
        if (pass == 1)
          for (int i = 0; i < n; ++i) {
            float t = 0;
            SIGREG_RETURN_IF_ERROR(
                drv.eventElapsedMs(ev[2 * i], ev[2 * i + 1], t));
            ms.push_back(t);
          }
      }
      return Status::success();
    };

    // 2. full_forward: one event pair around the whole step list.
    std::vector<double> full;
    SIGREG_RETURN_IF_ERROR(timeRuns([&](int i) { return bindCopy(i % copies); },
                                    [&](int) { return exec.run(); }, full));
    res.fullForwardMs = median(full);

    // 3. full_forward_graph: replays of one captured graph per input copy.
    res.fullForwardGraphMs = -1.0;
    if (opt.graph) {
      std::vector<CudaGraph> graphs(copies);
      for (int c = 0; c < copies; ++c) {
        SIGREG_RETURN_IF_ERROR(bindCopy(c));
        SIGREG_RETURN_IF_ERROR(exec.captureGraph(graphs[c]));
      }
      std::vector<double> replay;
      SIGREG_RETURN_IF_ERROR(timeRuns(
          [](int) { return Status::success(); },
          [&](int i) { return graphs[i % copies].launch(stream); }, replay));
      res.fullForwardGraphMs = median(replay);
    }

    res.regions = regionRows(exec.regions(), perRegion);
    return Status::success();
  };
  status = body();
  // Restore the executor's own buffers whatever happened.
  Status sync = exec.synchronize();
  for (size_t j = 0; j < inputs.size() && !original.empty(); ++j) {
    Status s = exec.bindBuffer(m.buffers[inputs[j]].name, original[j]);
    (void)s;
  }
  if (!status.ok())
    return status.withContext("benchmark");
  return sync;
}

void sigreg::runtime::printBenchTable(const BenchResult &r, FILE *out) {
  std::fprintf(out, "%-24s %12s %9s\n", "region", "time_ms", "share_%");
  for (const BenchRow &row : r.regions)
    std::fprintf(out, "%-24s %12.6f %9.1f\n", row.name.c_str(), row.ms,
                 row.sharePct);
  std::fprintf(out, "%-24s %12.6f %9s\n", "full_forward", r.fullForwardMs, "-");
  if (r.fullForwardGraphMs >= 0)
    std::fprintf(out, "%-24s %12.6f %9s\n", "full_forward_graph",
                 r.fullForwardGraphMs, "-");
  std::fprintf(out,
               "(median of %d runs after %d warm-up; region rows: event pair "
               "around every step; %d input cop%s of %" PRIu64 " bytes; L2 "
               "flush %s)\n",
               r.iters, r.warmup, r.inputCopies,
               r.inputCopies == 1 ? "y" : "ies", r.inputBytes,
               r.flushL2 ? "on" : "off");
}
