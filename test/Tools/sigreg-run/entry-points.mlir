// REQUIRES: cuda-toolkit, ptxas
// The entry points of the DDP split (docs/TORCH.md): sigreg-run compiles
// (x, seed) -> (cos, sin) of the local ECF and (x, seed, dcos, dsin) -> dL/dx
// into artifacts whose buffers carry those names, for the PyTorch module's
// compiled backend; it does not run them (the module validates them).

// RUN: rm -rf %t && env CUDA_HOME=/usr/local/cuda sigreg-run %s --target=cuda --compile-only --emit-artifact=%t | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=FWD --input-file %t/fused/manifest.json
// RUN: rm -rf %t.b && env CUDA_HOME=/usr/local/cuda sigreg-run %S/Inputs/ecf-backward-entry.mlir --target=cuda --compile-only --emit-artifact=%t.b | FileCheck %s --check-prefix=BOUT
// RUN: FileCheck %s --check-prefix=BWD --input-file %t.b/fused/manifest.json
// RUN: rm -rf %t.s && env CUDA_HOME=/usr/local/cuda sigreg-run %S/Inputs/ecf-entry-per-slice.mlir --target=cuda --compile-only --emit-artifact=%t.s > /dev/null
// RUN: FileCheck %s --check-prefix=SLICE --input-file %t.s/fused/manifest.json
// RUN: not sigreg-run %s --target=cpu 2>&1 | FileCheck %s --check-prefix=CPUERR
// RUN: not sigreg-run %s --target=cuda --compile-only --shape=2x100x136 --emit-artifact=%t.x 2>&1 | FileCheck %s --check-prefix=SHAPE

// OUT: sigreg-run: target=cuda entry=@forward x=2x300x136xbf16 S=72 P=9 t_max=2.5 {{.*}} projection=seed entry_point=ecf output=cos,sin
// OUT: sigreg-run: fused pipeline: 1 steps

// The forward: one cooperative launch of the Hopper kernel, whose grid
// generates g (the rule: 4 rows a thread) and whose tail adds the 3 batch
// tiles and writes the means straight into the outputs (sigreg.reduced on
// the results: the caller's loss is reduced over the slices, so g may be
// rounded to 16 bits).
// FWD:       "name": "x",
// FWD-NEXT:  "role": "input",
// FWD:       "name": "cos",
// FWD-NEXT:  "role": "output",
// FWD:       "name": "sin",
// FWD-NEXT:  "role": "output",
// FWD:       "entry_point": "ecf",
// FWD-NOT:   "kernel": "sigreg_projection_rows",
// FWD:       "buffer": "cos"
// FWD-NEXT:  },
// FWD-NEXT:  {
// FWD-NEXT:    "buffer": "sin"
// FWD:       "cooperative": true,
// FWD:       "kernel": "sigreg_fused_ecf_wgmma",
// FWD-NOT:   "kernel": "sigreg_ecf_finalize_sm",
// FWD-NOT:   "op": "copy"

// BOUT: entry_point=ecf_backward output=dL/dx
// BOUT: sigreg-run: fused pipeline: 3 steps
// BWD:       "name": "dcos",
// BWD-NEXT:  "role": "input",
// BWD:       "name": "dsin",
// BWD-NEXT:  "role": "input",
// BWD:       "name": "out",
// BWD-NEXT:  "role": "output",
// BWD:       "entry_point": "ecf_backward",
// BWD:       "kernel": "sigreg_projection_rows",
// BWD:       "kernel": "sigreg_ecf_grad_wgmma",
// BWD:       "kernel": "sigreg_project_transpose_wgmma",

// Without sigreg.reduced the means may become per-slice statistics: g keeps
// its f32 accuracy as 16-bit hi + lo rows, two segments of the Hopper
// kernel's reduction.
// SLICE:     "entry_point": "ecf",
// SLICE:     "kernel": "sigreg_projection_split_rows",
// SLICE:     "kernel": "sigreg_fused_ecf_wgmma",

// CPUERR: the ecf entry point is compiled for the PyTorch module, which validates it (docs/TORCH.md): use --target=cuda --compile-only --emit-artifact=DIR
// SHAPE: error: --shape batch size 100 disagrees with the static batch dimension 300 of the ecf entry point
func.func @forward(%x: tensor<2x300x136xbf16>, %seed: i64) -> (tensor<2x72x9xf32> {sigreg.reduced}, tensor<2x72x9xf32> {sigreg.reduced}) {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %y = sigreg.project %x, %a : tensor<2x300x136xbf16>, tensor<136x72xf32> -> tensor<2x300x72xf32>
  %c, %s = sigreg.ecf %y t_max = 2.5 : tensor<2x300x72xf32> -> tensor<2x72x9xf32>
  return %c, %s : tensor<2x72x9xf32>, tensor<2x72x9xf32>
}
