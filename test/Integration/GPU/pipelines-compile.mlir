// REQUIRES: cuda-toolkit
// The compile half of pipelines.mlir, without a GPU: sigreg-run compiles each
// problem of that test to PTX (--compile-only) and the manifests show the
// kernels that pipelines.mlir runs on the device, so its naive / SIMT /
// tensor-core coverage holds even where no GPU checks it.

// RUN: rm -rf %t
// RUN: sigreg-run %S/pipelines.mlir --target=cuda --compile-only --single-launch=0 --pipeline=both --entry=views --emit-artifact=%t/views | FileCheck %s --check-prefix=BOTH
// RUN: FileCheck %s --check-prefix=SIMT --input-file=%t/views/fused/manifest.json
// RUN: FileCheck %s --check-prefix=NAIVE --input-file=%t/views/naive/manifest.json
// RUN: sigreg-run %S/pipelines.mlir --target=cuda --compile-only --single-launch=0 --entry=dynamic --shape=1000x129 --emit-artifact=%t/dyn
// RUN: FileCheck %s --check-prefix=SIMT --input-file=%t/dyn/fused/manifest.json
// RUN: sigreg-run %S/pipelines.mlir --target=cuda --compile-only --single-launch=0 --entry=mma --emit-artifact=%t/mma
// RUN: FileCheck %s --check-prefixes=MMA,MMA-SPLIT --input-file=%t/mma/fused/manifest.json
// RUN: sigreg-run %S/pipelines.mlir --target=cuda --compile-only --single-launch=0 --entry=mma --tensor-cores=false --emit-artifact=%t/mma-simt
// RUN: FileCheck %s --check-prefix=SIMT --input-file=%t/mma-simt/fused/manifest.json
// RUN: sigreg-run %S/pipelines.mlir --target=cuda --compile-only --single-launch=0 --entry=mma_explicit --emit-artifact=%t/mmae
// RUN: FileCheck %s --check-prefix=MMA --input-file=%t/mmae/fused/manifest.json

// BOTH:  sigreg-run: target=cuda entry=@views x=3x37x129xbf16 S=77 P=9
// BOTH:  sigreg-run: fused pipeline: {{[0-9]+}} steps
// BOTH:  sigreg-run: naive pipeline: {{[0-9]+}} steps

// SIMT-NOT:  sigreg_fused_ecf_mma
// SIMT:      "kernel": "sigreg_fused_ecf"
// SIMT-NOT:  sigreg_fused_ecf_mma

// NAIVE:     "pipeline": "naive"
// NAIVE-NOT: sigreg_fused_ecf

// Per-slice statistics: the projection is generated as packed hi+lo words
// for the tensor-core kernel.
// MMA-SPLIT: "kernel": "sigreg_projection_packed"
// MMA:       "kernel": "sigreg_fused_ecf_mma"
