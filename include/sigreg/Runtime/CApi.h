/*===- CApi.h - C ABI of the sigreg AOT runtime ---------------------------===*
 *
 * Runs a sigreg-aot-v1 artifact (manifest.json + PTX, docs/AOT.md) from any
 * language with a C FFI, with no MLIR. Buffers are device addresses the
 * caller owns (CUdeviceptr as uint64_t); workspaces are allocated by the
 * runtime. Every function returns 0 on success, or non-zero and a message
 * readable with sigreg_aot_last_error() (per handle; thread-compatible, not
 * thread-safe).
 *
 *   sigreg_aot *f;
 *   if (sigreg_aot_load("art/fused", &f)) ... sigreg_aot_load_error() ...
 *   sigreg_aot_bind(f, "x", x_dev);          // input  [N,D] or [V,N,D]
 *   sigreg_aot_bind(f, "out", out_dev);      // output: 1 f32, or [S]/[V,S]
 *   sigreg_aot_set_seed(f, step);            // seeded projection
 *   sigreg_aot_run(f, stream);               // enqueue on the caller's stream
 *   sigreg_aot_call(f, stream, x_dev, 0, out_dev, step);  // the four above
 *   sigreg_aot_destroy(f);
 *
 * sigreg_aot_describe() reads what an artifact computes without a GPU.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SIGREG_RUNTIME_CAPI_H
#define SIGREG_RUNTIME_CAPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sigreg_aot sigreg_aot;

/* Parses and checks <artifact_dir>/manifest.json with the runtime's reader
 * (no driver, no device; the PTX is not read) and sets *json to a
 * description of it, one JSON object written from the parsed manifest with
 * every default filled in:
 *   format, function, pipeline, chip, ptx    strings
 *   problem    null, or {V, N, D, S, P, t_max, clip, clip_value, reduction,
 *              dtype, projection, views, gradient, step, entry_point (""
 *              for the loss, its gradient and the step)}
 *   conventions_error  null when buffers and scalars follow the harness
 *              conventions (Harness.h, checkProblemBuffers), else why not
 *   output     the loss output's name ("out", or the only output), or null
 *   buffers    [{name, role, bytes, dtype (null if absent), shape (null if
 *              absent), zero_init, shares ({buffer, offset}, or null)}]
 *   scalars    [{name, type}]
 *   steps      [{op, region, kernel (launch steps only)}]
 * The string (UTF-8, NUL-terminated) belongs to the library and stays valid
 * until the next sigreg_aot_describe call on the same thread. On failure
 * *json is NULL and sigreg_aot_load_error() holds the reader's message (the
 * key path, e.g. "steps[2].grid[1]: ..."). */
int sigreg_aot_describe(const char *artifact_dir, const char **json);
/* Loads an artifact directory on device 0 (its primary context). */
int sigreg_aot_load(const char *artifact_dir, sigreg_aot **out);
/* Loads an artifact directory on CUDA device `device` (an ordinal of the
 * driver's, which is PyTorch's cuda:N; its primary context, the one the CUDA
 * runtime uses). Artifacts of several devices may live in one process. The
 * handle's calls make that context current on the calling thread. An
 * ordinal out of range is an error ("CUDA device ordinal 3 out of range (2
 * device(s))"). */
int sigreg_aot_load_device(const char *artifact_dir, int device,
                           sigreg_aot **out);
/* Message of the last failed sigreg_aot_load or sigreg_aot_describe on this
 * thread (no handle exists then). */
const char *sigreg_aot_load_error(void);
/* Binds a manifest buffer ("x", "proj", "out", or a workspace) to caller
 * memory of at least its size; 0 restores the runtime's own allocation. */
int sigreg_aot_bind(sigreg_aot *f, const char *buffer, uint64_t device_ptr);
/* Size in bytes of a manifest buffer. */
int sigreg_aot_buffer_bytes(sigreg_aot *f, const char *buffer, uint64_t *bytes);
/* Device memory the runtime holds for this artifact, in bytes: the buffers
 * it allocated itself (those that had to run unbound; zero_init workspaces
 * from the load), rounded to its 256-byte allocation granule. */
int sigreg_aot_device_bytes(sigreg_aot *f, uint64_t *bytes);
/* Sets the projection seed (artifacts compiled with a seeded projection). */
int sigreg_aot_set_seed(sigreg_aot *f, int64_t seed);
/* Enqueues every step on `stream` (a CUstream; 0: the runtime's stream). */
int sigreg_aot_run(sigreg_aot *f, void *stream);
/* The usual call in one (a loss or its gradient, per training step):
 * binds "x" to x, the artifact's one other input ("proj", "step" or
 * "grad"; aux is ignored where there is none) to aux and its one output to
 * out, sets the seed where the artifact declares it (ignored otherwise),
 * and enqueues every step on `stream`: sigreg_aot_bind for each,
 * sigreg_aot_set_seed and sigreg_aot_run in one crossing of the FFI. An
 * artifact with other inputs, another number of outputs or other scalars
 * (the DDP entry points, a training step) is an error that says so: bind
 * and run those. */
int sigreg_aot_call(sigreg_aot *f, void *stream, uint64_t x, uint64_t aux,
                    uint64_t out, int64_t seed);
/* Enqueues one phase of an artifact whose last steps are marked
 * "phase": "backward" (docs/AOT.md): SIGREG_AOT_PHASE_FORWARD (the steps
 * before them, which do not read the input "grad"), SIGREG_AOT_PHASE_BACKWARD
 * (those steps), or SIGREG_AOT_PHASE_ALL (= sigreg_aot_run). Workspaces the
 * backward phase reads keep what the forward phase wrote until the next
 * forward phase with the same bindings. */
#define SIGREG_AOT_PHASE_ALL 0
#define SIGREG_AOT_PHASE_FORWARD 1
#define SIGREG_AOT_PHASE_BACKWARD 2
int sigreg_aot_run_phase(sigreg_aot *f, int phase, void *stream);
/* Waits for the stream last used by sigreg_aot_run. */
int sigreg_aot_synchronize(sigreg_aot *f);
const char *sigreg_aot_last_error(sigreg_aot *f);
void sigreg_aot_destroy(sigreg_aot *f);

#ifdef __cplusplus
}
#endif

#endif /* SIGREG_RUNTIME_CAPI_H */
