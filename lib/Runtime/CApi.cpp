//===- CApi.cpp - C ABI of the sigreg AOT runtime -------------------------===//

#include "sigreg/Runtime/CApi.h"
#include "sigreg/Runtime/Executor.h"
#include "sigreg/Runtime/Harness.h"
#include "sigreg/Runtime/Manifest.h"

#include <algorithm>
#include <memory>
#include <string>

using namespace sigreg::runtime;

struct sigreg_aot {
  std::unique_ptr<Executor> exec;
  std::string error;
  /// sigreg_aot_call's buffers, planned at load; callWhy is the reason the
  /// one-call form does not apply (empty where it does).
  CallPlan call;
  std::string callWhy;
};

namespace {
thread_local std::string loadError;
thread_local std::string description;

int report(sigreg_aot *f, const Status &status) {
  if (status.ok())
    return 0;
  f->error = status.message();
  return 1;
}
/// Appends `s` as a JSON string literal.
void putString(std::string &out, const std::string &s) { out += jsonString(s); }

void putKey(std::string &out, const char *key) {
  if (out.back() != '{' && out.back() != '[')
    out += ',';
  putString(out, key);
  out += ':';
}

/// Appends `v` with 17 significant digits (exact for a double).
void putDouble(std::string &out, double v) { out += jsonNumber(v, 17); }

const char *boolText(bool b) { return b ? "true" : "false"; }

/// The description sigreg_aot_describe returns (CApi.h): `m` as the reader
/// parsed it, defaults filled in, plus the harness conventions' verdict.
std::string describe(const Manifest &m) {
  std::string out = "{";
  putKey(out, "format");
  putString(out, m.format);
  putKey(out, "function");
  putString(out, m.function);
  putKey(out, "pipeline");
  putString(out, m.pipeline);
  putKey(out, "chip");
  putString(out, m.chip);
  putKey(out, "ptx");
  putString(out, m.ptx);
  putKey(out, "problem");
  if (m.hasProblem) {
    const ProblemDesc &p = m.problem;
    out += '{';
    const std::pair<const char *, int64_t> sizes[] = {
        {"V", p.V}, {"N", p.N}, {"D", p.D}, {"S", p.S}, {"P", p.P}};
    for (const auto &[key, value] : sizes) {
      putKey(out, key);
      out += std::to_string(value);
    }
    putKey(out, "t_max");
    putDouble(out, p.tMax);
    putKey(out, "clip");
    putString(out, p.clip);
    putKey(out, "clip_value");
    putDouble(out, p.clipValue);
    putKey(out, "reduction");
    putString(out, p.reduction);
    putKey(out, "dtype");
    putString(out, p.dtype);
    putKey(out, "projection");
    putString(out, p.projection);
    putKey(out, "views");
    out += boolText(p.views);
    putKey(out, "gradient");
    out += boolText(p.gradient);
    putKey(out, "step");
    out += boolText(p.step);
    putKey(out, "dx_dtype");
    putString(out, p.dxDtype);
    putKey(out, "entry_point");
    putString(out, p.entryPoint);
    out += '}';
  } else {
    out += "null";
  }
  Status conventions = checkProblemBuffers(m);
  putKey(out, "conventions_error");
  if (conventions.ok())
    out += "null";
  else
    putString(out, conventions.message());
  std::string output = outputBufferName(m);
  putKey(out, "output");
  if (output.empty())
    out += "null";
  else
    putString(out, output);
  putKey(out, "buffers");
  out += '[';
  for (const BufferDesc &b : m.buffers) {
    if (out.back() != '[')
      out += ',';
    out += '{';
    putKey(out, "name");
    putString(out, b.name);
    putKey(out, "role");
    putString(out, toString(b.role));
    putKey(out, "bytes");
    out += std::to_string(b.bytes);
    putKey(out, "dtype");
    if (b.dtype.empty())
      out += "null";
    else
      putString(out, b.dtype);
    putKey(out, "shape");
    if (b.hasShape) {
      out += '[';
      for (size_t i = 0; i < b.shape.size(); ++i)
        out += (i ? "," : "") + std::to_string(b.shape[i]);
      out += ']';
    } else {
      out += "null";
    }
    putKey(out, "zero_init");
    out += boolText(b.zeroInit);
    putKey(out, "align");
    out += std::to_string(b.align);
    putKey(out, "shares");
    if (b.sharesWith.empty()) {
      out += "null";
    } else {
      out += '{';
      putKey(out, "buffer");
      putString(out, b.sharesWith);
      putKey(out, "offset");
      out += std::to_string(b.sharesOffset);
      out += '}';
    }
    out += '}';
  }
  out += ']';
  putKey(out, "scalars");
  out += '[';
  for (const ScalarDesc &s : m.scalars) {
    if (out.back() != '[')
      out += ',';
    out += '{';
    putKey(out, "name");
    putString(out, s.name);
    putKey(out, "type");
    putString(out, toString(s.type));
    out += '}';
  }
  out += ']';
  putKey(out, "steps");
  out += '[';
  for (const Step &s : m.steps) {
    if (out.back() != '[')
      out += ',';
    out += '{';
    putKey(out, "op");
    putString(out, toString(s.op));
    putKey(out, "region");
    putString(out, s.region);
    putKey(out, "phase");
    putString(out, s.backward ? "backward" : "forward");
    if (s.op == StepOp::Launch) {
      putKey(out, "kernel");
      putString(out, s.kernel);
      // The buffers the launch passes (by address or tensor map), in
      // argument order, once each.
      putKey(out, "buffers");
      out += '[';
      std::vector<std::string> seen;
      for (const KernelArg &a : s.args) {
        if (a.kind != KernelArg::Kind::Buffer &&
            a.kind != KernelArg::Kind::TensorMap)
          continue;
        if (std::find(seen.begin(), seen.end(), a.name) != seen.end())
          continue;
        seen.push_back(a.name);
        if (out.back() != '[')
          out += ',';
        putString(out, a.name);
      }
      out += ']';
    }
    out += '}';
  }
  out += "]}";
  return out;
}
} // namespace

extern "C" int sigreg_aot_describe(const char *dir, const char **json) {
  if (!json) {
    loadError = "sigreg_aot_describe: json is NULL";
    return 1;
  }
  *json = nullptr;
  std::string base = dir ? dir : "";
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  std::string path = base + "/manifest.json", text, err;
  if (!readFile(path, text, err)) {
    loadError = err;
    return 1;
  }
  Manifest manifest;
  if (!parseManifest(text, manifest, err)) {
    loadError = path + ": " + err;
    return 1;
  }
  description = describe(manifest);
  *json = description.c_str();
  return 0;
}

extern "C" int sigreg_aot_load(const char *dir, sigreg_aot **out) {
  return sigreg_aot_load_device(dir, 0, out);
}

extern "C" int sigreg_aot_load_device(const char *dir, int device,
                                      sigreg_aot **out) {
  if (!out) {
    loadError = "sigreg_aot_load: out is NULL";
    return 1;
  }
  *out = nullptr;
  Manifest manifest;
  std::string ptx, err;
  if (!loadArtifact(dir ? dir : "", manifest, ptx, err)) {
    loadError = err;
    return 1;
  }
  auto f = std::make_unique<sigreg_aot>();
  if (Status st = Executor::create(manifest, ptx, f->exec, device); !st.ok()) {
    loadError = st.message();
    return 1;
  }
  if (Status st = planCall(f->exec->manifest(), f->call); !st.ok())
    f->callWhy = st.message();
  *out = f.release();
  return 0;
}

extern "C" const char *sigreg_aot_load_error(void) { return loadError.c_str(); }

extern "C" int sigreg_aot_bind(sigreg_aot *f, const char *buffer,
                               uint64_t device_ptr) {
  if (!buffer)
    return report(f, Status::error("sigreg_aot_bind: buffer name is NULL"));
  return report(f, f->exec->bindBuffer(buffer, device_ptr));
}

extern "C" int sigreg_aot_buffer_bytes(sigreg_aot *f, const char *buffer,
                                       uint64_t *bytes) {
  if (!buffer || !bytes)
    return report(f, Status::error("sigreg_aot_buffer_bytes: NULL argument"));
  int i = f->exec->manifest().findBuffer(buffer);
  if (i < 0)
    return report(
        f, Status::error("unknown buffer '" + std::string(buffer) + "'"));
  *bytes = f->exec->manifest().buffers[i].bytes;
  return 0;
}

extern "C" int sigreg_aot_device_bytes(sigreg_aot *f, uint64_t *bytes) {
  if (!bytes)
    return report(f, Status::error("sigreg_aot_device_bytes: NULL argument"));
  *bytes = f->exec->ownedBytes();
  return 0;
}

extern "C" int sigreg_aot_set_seed(sigreg_aot *f, int64_t seed) {
  return report(f, f->exec->setScalarInt("seed", seed));
}

extern "C" int sigreg_aot_run(sigreg_aot *f, void *stream) {
  f->exec->useStream(static_cast<CUstream>(stream));
  return report(f, f->exec->run());
}

extern "C" int sigreg_aot_call(sigreg_aot *f, void *stream, uint64_t x,
                               uint64_t aux, uint64_t out, int64_t seed) {
  if (!f->callWhy.empty())
    return report(f, Status::error("sigreg_aot_call: " + f->callWhy +
                                   " (bind its buffers and run)"));
  Executor &e = *f->exec;
  Status s = e.bindBufferAt(f->call.x, x);
  if (s.ok() && f->call.aux >= 0)
    s = e.bindBufferAt(f->call.aux, aux);
  if (s.ok())
    s = e.bindBufferAt(f->call.out, out);
  if (s.ok() && f->call.seeded)
    s = e.setScalarInt("seed", seed);
  if (!s.ok())
    return report(f, s);
  e.useStream(static_cast<CUstream>(stream));
  return report(f, e.run());
}

extern "C" int sigreg_aot_run_phase(sigreg_aot *f, int phase, void *stream) {
  using Phase = sigreg::runtime::Executor::Phase;
  if (phase < SIGREG_AOT_PHASE_ALL || phase > SIGREG_AOT_PHASE_BACKWARD)
    return report(f,
                  sigreg::runtime::Status::error(
                      "sigreg_aot_run_phase: phase " + std::to_string(phase) +
                      " is none of SIGREG_AOT_PHASE_ALL (0), _FORWARD (1), "
                      "_BACKWARD (2)"));
  f->exec->useStream(static_cast<CUstream>(stream));
  Phase p = phase == SIGREG_AOT_PHASE_FORWARD    ? Phase::Forward
            : phase == SIGREG_AOT_PHASE_BACKWARD ? Phase::Backward
                                                 : Phase::All;
  return report(f, f->exec->run(p));
}

extern "C" int sigreg_aot_synchronize(sigreg_aot *f) {
  return report(f, f->exec->synchronize());
}

extern "C" const char *sigreg_aot_last_error(sigreg_aot *f) {
  return f->error.c_str();
}

extern "C" void sigreg_aot_destroy(sigreg_aot *f) { delete f; }
