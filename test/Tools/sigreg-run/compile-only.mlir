// REQUIRES: cuda-toolkit, ptxas
// `sigreg-run --target=cuda --compile-only` compiles both CUDA pipelines
// without a GPU and writes AOT artifacts (DIR/<pipeline>/manifest.json +
// sigreg.ptx, format sigreg-aot-v1, docs/AOT.md). CUDA_HOME is set so that
// libdevice is linked (see compile-only-libdevice.mlir for the bug without it).

// RUN: rm -rf %t && mkdir -p %t
// RUN: env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --single-launch=0 --pipeline=both --shape=150x129 --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// OUT:      sigreg-run: target=cuda entry=@loss x=150x129xf32 S=77 P=9 t_max=2.5 clip=clamp_min(0.5) reduction=sum projection=seed
// OUT-NEXT: sigreg-run: fused pipeline: 4 steps, {{[0-9]+}} bytes of PTX
// OUT-NEXT: sigreg-run: naive pipeline: {{[0-9][0-9]}} steps, {{[0-9]+}} bytes of PTX
// OUT-NEXT: sigreg-run: wrote {{.*}}/fused/manifest.json and {{.*}}/fused/sigreg.ptx
// OUT-NEXT: sigreg-run: wrote {{.*}}/naive/manifest.json and {{.*}}/naive/sigreg.ptx
// OUT-NOT:  PASS
// The artifacts are written under a temporary directory and renamed into
// place once every pipeline has compiled (issue 11): only fused/ and naive/
// remain.
// RUN: ls -A %t | FileCheck %s --check-prefix=LS --implicit-check-not=tmp
// LS: fused
// LS-NEXT: naive

// The fused manifest. N = 150: BM = 64, 3 batch tiles; BS = 16: ECF grid
// (5, 3, 1), per-tile partials [3, 1, 77, 9], finalize over 3 blocks.
// Neither y [1, 150, 77] (46200 bytes) nor [1, 150, 77, 9] (415800 bytes).
// RUN: FileCheck %s --check-prefix=FUSED --input-file %t/fused/manifest.json
// RUN: FileCheck %s --check-prefix=NOBIG --input-file %t/fused/manifest.json
// NOBIG-NOT: "bytes": 46200,
// NOBIG-NOT: "bytes": 415800,
// FUSED:      "buffers": [
// FUSED-NEXT:   {
// FUSED-NEXT:     "bytes": 77400,
// FUSED-NEXT:     "dtype": "f32",
// FUSED-NEXT:     "name": "x",
// FUSED-NEXT:     "role": "input",
// FUSED-NEXT:     "shape": [
// FUSED-NEXT:       150,
// FUSED-NEXT:       129
// FUSED-NEXT:     ]
// FUSED-NEXT:   },
// FUSED-NEXT:   {
// FUSED-NEXT:     "bytes": 4,
// FUSED-NEXT:     "dtype": "f32",
// FUSED-NEXT:     "name": "out",
// FUSED-NEXT:     "role": "output",
// FUSED-NEXT:     "shape": []
// FUSED:          "bytes": 39732,
// FUSED-NEXT:     "dtype": "f32",
// FUSED-NEXT:     "name": "ws0",
// FUSED-NEXT:     "role": "workspace",
// FUSED:          "bytes": 2772,
// FUSED:          "name": "ws1",
// FUSED:          "bytes": 2772,
// FUSED:          "name": "ws2",
// FUSED:          "bytes": 2772,
// FUSED:          "name": "ws3",
// FUSED:          "bytes": 8316,
// FUSED:          "name": "ws4",
// FUSED:          "shape": [
// FUSED-NEXT:       3,
// FUSED-NEXT:       1,
// FUSED-NEXT:       77,
// FUSED-NEXT:       9
// FUSED:          "bytes": 8316,
// FUSED:          "name": "ws5",
// FUSED-NOT:      "name": "ws6"
// FUSED:        "chip": "sm_90a",
// FUSED-NEXT:   "format": "sigreg-aot-v1",
// FUSED-NEXT:   "function": "loss",
// FUSED-NEXT:   "pipeline": "fused",
// FUSED-NEXT:   "problem": {
// FUSED-NEXT:     "D": 129,
// FUSED-NEXT:     "N": 150,
// FUSED-NEXT:     "P": 9,
// FUSED-NEXT:     "S": 77,
// FUSED-NEXT:     "V": 1,
// FUSED-NEXT:     "clip": "clamp_min",
// FUSED-NEXT:     "clip_value": 0.5,
// FUSED-NEXT:     "dtype": "f32",
// FUSED-NEXT:     "projection": "seed",
// FUSED-NEXT:     "reduction": "sum",
// FUSED-NEXT:     "t_max": 2.5,
// FUSED-NEXT:     "views": false
// FUSED-NEXT:   },
// FUSED-NEXT:   "ptx": "sigreg.ptx",
// FUSED-NEXT:   "scalars": [
// FUSED-NEXT:     {
// FUSED-NEXT:       "name": "seed",
// FUSED-NEXT:       "type": "i64"
// FUSED-NEXT:     }
// FUSED-NEXT:   ],
// FUSED-NEXT:   "steps": [
// Step 1: projection, grid (1, 9, 1): 16-row chunks (the generator fills the GPU), args (seed, ws0, ws1).
// FUSED:            "scalar": "seed"
// FUSED:            "buffer": "ws0"
// FUSED:            "buffer": "ws1"
// FUSED:          "block": [
// FUSED-NEXT:       256,
// FUSED-NEXT:       1,
// FUSED-NEXT:       1
// FUSED-NEXT:     ],
// FUSED-NEXT:     "grid": [
// FUSED-NEXT:       1,
// FUSED-NEXT:       9,
// FUSED-NEXT:       1
// FUSED-NEXT:     ],
// FUSED-NEXT:     "kernel": "sigreg_projection",
// FUSED-NEXT:     "op": "launch",
// FUSED-NEXT:     "region": "projection_generation",
// Step 2: fused ECF, (x, ws0, ws1) -> partials (ws4, ws5).
// FUSED:            "buffer": "x"
// FUSED:            "buffer": "ws0"
// FUSED:            "buffer": "ws1"
// FUSED:            "buffer": "ws4"
// FUSED:            "buffer": "ws5"
// FUSED:          "grid": [
// FUSED-NEXT:       5,
// FUSED-NEXT:       3,
// FUSED-NEXT:       1
// FUSED-NEXT:     ],
// FUSED-NEXT:     "kernel": "sigreg_fused_ecf",
// FUSED-NEXT:     "op": "launch",
// FUSED-NEXT:     "region": "trig_reduction",
// Step 3: finalize, partials -> (ws2, ws3), ceil(77*9/256) = 3 blocks.
// FUSED:            "buffer": "ws4"
// FUSED:            "buffer": "ws5"
// FUSED:            "buffer": "ws2"
// FUSED:            "buffer": "ws3"
// FUSED:          "grid": [
// FUSED-NEXT:       3,
// FUSED-NEXT:       1,
// FUSED-NEXT:       1
// FUSED-NEXT:     ],
// FUSED-NEXT:     "kernel": "sigreg_ecf_finalize",
// FUSED-NEXT:     "op": "launch",
// FUSED-NEXT:     "region": "trig_reduction",
// Step 4: epilogue, one block, writes out.
// FUSED:            "buffer": "ws2"
// FUSED:            "buffer": "ws3"
// FUSED:            "buffer": "out"
// FUSED:          "grid": [
// FUSED-NEXT:       1,
// FUSED-NEXT:       1,
// FUSED-NEXT:       1
// FUSED-NEXT:     ],
// FUSED-NEXT:     "kernel": "sigreg_epilogue",
// FUSED-NEXT:     "op": "launch",
// FUSED-NEXT:     "region": "epilogue",
// FUSED-NOT:      "kernel"

// The naive manifest: the [V, N, S, P] workspaces exist, many launches in
// region order, the PTX holds the naive kernels.
// RUN: FileCheck %s --check-prefix=NAIVE --input-file %t/naive/manifest.json
// NAIVE:      "name": "x",
// NAIVE:      "name": "out",
// NAIVE:      "bytes": 46200,
// NAIVE:      "bytes": 415800,
// NAIVE:      "format": "sigreg-aot-v1",
// NAIVE:      "pipeline": "naive",
// NAIVE:      "scalars": [
// NAIVE-NEXT:   {
// NAIVE-NEXT:     "name": "seed",
// NAIVE:      "steps": [
// NAIVE:        "kernel": "naive_projection_generation_0",
// NAIVE:        "region": "projection_generation",
// NAIVE:        "kernel": "naive_projection_gemm_{{[0-9]+}}",
// NAIVE-NEXT:   "op": "launch",
// NAIVE-NEXT:   "region": "projection_gemm",
// NAIVE:        "kernel": "naive_trig_reduction_{{[0-9]+}}",
// NAIVE-NEXT:   "op": "launch",
// NAIVE-NEXT:   "region": "trig_reduction",
// NAIVE:        "kernel": "naive_epilogue_{{[0-9]+}}",
// NAIVE-NEXT:   "op": "launch",
// NAIVE-NEXT:   "region": "epilogue",
// NAIVE-NOT:    sigreg_fused_ecf
// RUN: FileCheck %s --check-prefix=NAIVEPTX --input-file %t/naive/sigreg.ptx
// NAIVEPTX:     .target sm_90a
// NAIVEPTX:     .visible .entry naive_projection_generation_0(
// NAIVEPTX:     .visible .entry naive_trig_reduction_{{[0-9]+}}(
// NAIVEPTX-NOT: .extern .func

// The fused PTX as written to disk: sm_90a, the four kernels, no extern calls.
// RUN: FileCheck %s --check-prefix=PTX --input-file %t/fused/sigreg.ptx
// PTX:      .version 8.0
// PTX-NEXT: .target sm_90a
// PTX-NOT:  .extern .func
// PTX:      .visible .entry sigreg_projection(
// PTX:      .visible .entry sigreg_fused_ecf(
// PTX:      .shared .align 4 .b8 __wg_sigreg_fused_ecf_0[{{[0-9]+}}];
// PTX:      bar.sync
// PTX:      fma.rn.f32
// PTX:      .visible .entry sigreg_ecf_finalize(
// PTX:      .visible .entry sigreg_epilogue(

// ptxas assembles both PTX files for sm_90a; no kernel spills.
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// PTXAS-DAG: Compiling entry function 'sigreg_projection' for 'sm_90a'
// PTXAS-DAG: Compiling entry function 'sigreg_fused_ecf' for 'sm_90a'
// PTXAS-DAG: Compiling entry function 'sigreg_ecf_finalize' for 'sm_90a'
// PTXAS-DAG: Compiling entry function 'sigreg_epilogue' for 'sm_90a'
// RUN: %ptxas -arch=sm_90a -v %t/fused/sigreg.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=SPILL --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// SPILL-COUNT-4: 0 bytes spill stores, 0 bytes spill loads
// RUN: %ptxas -arch=sm_90a -v %t/naive/sigreg.ptx -o %t/n.cubin 2>&1 | FileCheck %s --check-prefix=NSPILL --implicit-check-not="{{[1-9][0-9]*}} bytes spill"
// NSPILL: Compiling entry function 'naive_trig_reduction_{{[0-9]+}}' for 'sm_90a'
// NSPILL: 0 bytes spill stores, 0 bytes spill loads

// --compile-only, --emit-artifact and --pipeline are CUDA-only: exit 2.
// RUN: not sigreg-run %s --target=cpu --compile-only --shape=150x129 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: sigreg-run: error: --compile-only applies to --target=cuda only, not to the CPU target
// RUN: (sigreg-run %s --target=cpu --compile-only --shape=150x129 > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: (sigreg-run %s --target=cpu --emit-artifact=%t/cpu --shape=150x129 > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: (sigreg-run %s --target=cuda --compile-only --single-launch=0 --pipeline=fast --shape=150x129 > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: not sigreg-run %s --target=cuda --compile-only --single-launch=0 --pipeline=fast --shape=150x129 2>&1 | FileCheck %s --check-prefix=BADPIPE
// BADPIPE: sigreg-run: error: --pipeline must be fused, naive or both, got 'fast'
// EXIT2: exit=2
// RUN: not ls %t/cpu

func.func @loss(%x: tensor<?x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<?x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
