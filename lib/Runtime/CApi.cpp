//===- CApi.cpp - C ABI of the sigreg AOT runtime -------------------------===//

#include "sigreg/Runtime/CApi.h"
#include "sigreg/Runtime/Executor.h"
#include "sigreg/Runtime/Manifest.h"

#include <memory>
#include <string>

using namespace sigreg::runtime;

struct sigreg_aot {
  std::unique_ptr<Executor> exec;
  std::string error;
};

namespace {
thread_local std::string loadError;

int report(sigreg_aot *f, const Status &status) {
  if (status.ok())
    return 0;
  f->error = status.message();
  return 1;
}
} // namespace

extern "C" int sigreg_aot_load(const char *dir, sigreg_aot **out) {
  *out = nullptr;
  Manifest manifest;
  std::string ptx, err;
  if (!loadArtifact(dir ? dir : "", manifest, ptx, err)) {
    loadError = err;
    return 1;
  }
  auto f = std::make_unique<sigreg_aot>();
  if (Status st = Executor::create(manifest, ptx, f->exec); !st.ok()) {
    loadError = st.message();
    return 1;
  }
  *out = f.release();
  return 0;
}

extern "C" const char *sigreg_aot_load_error(void) { return loadError.c_str(); }

extern "C" int sigreg_aot_bind(sigreg_aot *f, const char *buffer,
                               uint64_t device_ptr) {
  return report(f, f->exec->bindBuffer(buffer, device_ptr));
}

extern "C" int sigreg_aot_buffer_bytes(sigreg_aot *f, const char *buffer,
                                       uint64_t *bytes) {
  int i = f->exec->manifest().findBuffer(buffer);
  if (i < 0)
    return report(
        f, Status::error("unknown buffer '" + std::string(buffer) + "'"));
  *bytes = f->exec->manifest().buffers[i].bytes;
  return 0;
}

extern "C" int sigreg_aot_set_seed(sigreg_aot *f, int64_t seed) {
  return report(f, f->exec->setScalarInt("seed", seed));
}

extern "C" int sigreg_aot_run(sigreg_aot *f, void *stream) {
  f->exec->useStream(static_cast<CUstream>(stream));
  return report(f, f->exec->run());
}

extern "C" int sigreg_aot_synchronize(sigreg_aot *f) {
  return report(f, f->exec->synchronize());
}

extern "C" const char *sigreg_aot_last_error(sigreg_aot *f) {
  return f->error.c_str();
}

extern "C" void sigreg_aot_destroy(sigreg_aot *f) { delete f; }
