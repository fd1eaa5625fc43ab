//===- HarnessReport.cpp - JSON reports and file writing ------------------===//
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
/// Significant digits of the report's numbers (round trip of an f32).
constexpr int kReportDigits = 9;
} // namespace

std::string sigreg::runtime::reportJson(const Executor &exec,
                                        const std::string &artifact,
                                        const ProblemInputs &in,
                                        const ValidationResult *v,
                                        const BenchResult *b) {
  const Manifest &m = exec.manifest();
  const ProblemDesc &p = in.problem;
  const DeviceInfo &d = exec.device();
  std::string j = "{\n";
  j += "  \"artifact\": " + jsonString(artifact) + ",\n";
  j += "  \"function\": " + jsonString(m.function) + ",\n";
  j += "  \"pipeline\": " + jsonString(m.pipeline) + ",\n";
  j += "  \"chip\": " + jsonString(m.chip) + ",\n";
  j += "  \"device\": {\"name\": " + jsonString(d.name) +
       ", \"compute_capability\": \"" + std::to_string(d.ccMajor) + "." +
       std::to_string(d.ccMinor) +
       "\", \"driver_version\": " + std::to_string(d.driverVersion) + "},\n";
  j += "  \"problem\": {\"V\": " + std::to_string(p.V) +
       ", \"N\": " + std::to_string(p.N) + ", \"D\": " + std::to_string(p.D) +
       ", \"S\": " + std::to_string(p.S) + ", \"P\": " + std::to_string(p.P) +
       ", \"t_max\": " + jsonNumber(p.tMax, kReportDigits) +
       ", \"clip\": " + jsonString(p.clip) +
       ", \"clip_value\": " + jsonNumber(p.clipValue, kReportDigits) +
       ", \"reduction\": " + jsonString(p.reduction) +
       ", \"dtype\": " + jsonString(p.dtype) +
       ", \"projection\": " + jsonString(p.projection) +
       ", \"views\": " + (p.views ? "true" : "false") + "},\n";
  j += "  \"seed\": " + std::to_string(in.projectionSeed) +
       ",\n  \"input_seed\": " + std::to_string(in.inputSeed) + ",\n";
  j += "  \"kernels\": [";
  for (size_t k = 0; k < exec.kernels().size(); ++k) {
    const KernelReport &kr = exec.kernels()[k];
    j += std::string(k ? ", " : "") + "{\"name\": " + jsonString(kr.name) +
         ", \"registers\": " + std::to_string(kr.info.numRegisters) +
         ", \"static_shared_bytes\": " +
         std::to_string(kr.info.staticSharedBytes) +
         ", \"local_bytes\": " + std::to_string(kr.info.localBytes) + "}";
  }
  j += "],\n";
  if (v) {
    j += "  \"validation\": {\"passed\": " +
         std::string(v->passed ? "true" : "false") +
         ", \"loss\": " + jsonNumber(v->loss, kReportDigits) +
         ", \"reference\": " + jsonNumber(v->reference, kReportDigits) +
         ", \"rel_error\": " + jsonNumber(v->relError, kReportDigits) +
         ", \"l2_rel_error\": " + jsonNumber(v->l2RelError, kReportDigits) +
         ", \"tolerance\": " + jsonNumber(v->tolerance, kReportDigits) +
         ", \"elements\": " + std::to_string(v->count) +
         ", \"unwritten\": " + std::to_string(v->unwritten) +
         ", \"non_finite\": " + std::to_string(v->nonFinite) +
         ", \"message\": " + jsonString(v->message) + "},\n";
  } else {
    j += "  \"validation\": null,\n";
  }
  if (b) {
    j += "  \"bench\": {\"warmup\": " + std::to_string(b->warmup) +
         ", \"iters\": " + std::to_string(b->iters) +
         ", \"input_copies\": " + std::to_string(b->inputCopies) +
         ", \"input_bytes\": " + std::to_string(b->inputBytes) +
         ", \"l2_flush\": " + (b->flushL2 ? "true" : "false") +
         ", \"flush_bytes\": " + std::to_string(b->flushBytes) +
         ",\n    \"regions\": [";
    for (size_t r = 0; r < b->regions.size(); ++r)
      j += std::string(r ? ", " : "") +
           "{\"name\": " + jsonString(b->regions[r].name) +
           ", \"time_ms\": " + jsonNumber(b->regions[r].ms, kReportDigits) +
           ", \"share_pct\": " +
           jsonNumber(b->regions[r].sharePct, kReportDigits) + "}";
    j += "],\n    \"full_forward_ms\": " +
         jsonNumber(b->fullForwardMs, kReportDigits) +
         ",\n    \"full_forward_graph_ms\": " +
         (b->fullForwardGraphMs >= 0
              ? jsonNumber(b->fullForwardGraphMs, kReportDigits)
              : std::string("null")) +
         "}\n";
  } else {
    j += "  \"bench\": null\n";
  }
  return j + "}\n";
}

Status sigreg::runtime::writeTextFile(const std::string &path,
                                      const std::string &text) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Status::error("cannot open '" + path + "' for writing");
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int rc = std::fclose(f);
  if (n != text.size() || rc != 0)
    return Status::error("error writing '" + path + "'");
  return Status::success();
}
