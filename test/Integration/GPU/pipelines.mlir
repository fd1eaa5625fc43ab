// REQUIRES: cuda-gpu
// Each GPU pipeline compiled in process by sigreg-run, run on the device and
// validated against the float64 reference (sigreg-run exits 1 on a mismatch,
// which fails the RUN line). The shapes are not multiples of the tiles: N=37
// and 700 rows against 64-row batch tiles, S=77 and 333 slices against 128,
// D=129 against 16- and 32-deep k-tiles, P=9. The manifest of each compiled
// pipeline shows which kernels ran.

// Naive pipeline: one kernel per linalg.generic, [V,N,S,P] materialized.
// RUN: sigreg-run %s --target=cuda --entry=views --pipeline=naive --emit-artifact=%t/views | FileCheck %s --check-prefix=NAIVE
// RUN: FileCheck %s --check-prefix=NAIVE-KERNELS --input-file=%t/views/naive/manifest.json
// NAIVE:      sigreg-run: target=cuda entry=@views x=3x37x129xbf16 S=77 P=9 t_max=3 clip=clamp_min(1) reduction=none projection=seed
// NAIVE-NOT:  == fused pipeline ==
// NAIVE:      == naive pipeline ==
// NAIVE:      unwritten {{ *}}0 of 231
// NAIVE-NEXT: PASS: max relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// NAIVE-KERNELS:     "pipeline": "naive"
// NAIVE-KERNELS-NOT: sigreg_fused_ecf

// Fused pipeline, SIMT ECF kernel (small problem: without the single launch,
// the cost rule keeps SIMT).
// RUN: sigreg-run %s --target=cuda --entry=views --pipeline=fused --single-launch=0 --emit-artifact=%t/views | FileCheck %s --check-prefix=FUSED
// RUN: FileCheck %s --check-prefix=SIMT --input-file=%t/views/fused/manifest.json
// FUSED:      sigreg-run: target=cuda entry=@views x=3x37x129xbf16
// FUSED:      == fused pipeline ==
// FUSED:      unwritten {{ *}}0 of 231
// FUSED-NEXT: PASS: max relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// FUSED-NOT:  == naive pipeline ==
// SIMT-NOT:   sigreg_fused_ecf_mma
// SIMT:       "kernel": "sigreg_fused_ecf"
// SIMT-NOT:   sigreg_fused_ecf_mma

// The same in f32 and f16, and a dynamic batch filled by --shape.
// RUN: sigreg-run %s --target=cuda --entry=views --pipeline=both --dtype=f32 | FileCheck %s --check-prefix=BOTH-F32
// BOTH-F32:   x=3x37x129xf32
// BOTH-F32:   == fused pipeline ==
// BOTH-F32:   PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)
// BOTH-F32:   == naive pipeline ==
// BOTH-F32:   PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)
// RUN: sigreg-run %s --target=cuda --entry=dynamic --shape=1000x129 --pipeline=both | FileCheck %s --check-prefix=DYN
// DYN:        x=1000x129xf16 S=77 P=17 t_max=3 clip=zero_below(0.5) reduction=sum projection=seed
// DYN:        == fused pipeline ==
// DYN:        PASS: relative error {{.*}} <= 2.0e-03 (f16 inputs)
// DYN:        == naive pipeline ==
// DYN:        PASS: relative error {{.*}} <= 2.0e-03 (f16 inputs)

// Fused pipeline, tensor-core ECF kernel (mma.sync): enough row blocks for
// the cost rule; per-slice statistics, so the projection is split hi+lo.
// RUN: sigreg-run %s --target=cuda --entry=mma --pipeline=fused --emit-artifact=%t/mma | FileCheck %s --check-prefix=MMA
// RUN: FileCheck %s --check-prefix=MMA-KERNELS --input-file=%t/mma/fused/manifest.json
// MMA:        sigreg-run: target=cuda entry=@mma x=4x700x129xbf16 S=333 P=9 t_max=3 clip=clamp_min(1) reduction=none projection=seed
// MMA:        == fused pipeline ==
// MMA:        unwritten {{ *}}0 of 1332
// MMA-NEXT:   PASS: max relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// MMA-KERNELS: "kernel": "sigreg_fused_ecf_mma"
// The same problem on the SIMT kernel and on the naive pipeline.
// RUN: sigreg-run %s --target=cuda --entry=mma --pipeline=both --tensor-cores=false --emit-artifact=%t/mma-simt | FileCheck %s --check-prefix=MMA-OFF
// RUN: FileCheck %s --check-prefix=SIMT --input-file=%t/mma-simt/fused/manifest.json
// MMA-OFF:    == fused pipeline ==
// MMA-OFF:    PASS: max relative error
// MMA-OFF:    == naive pipeline ==
// MMA-OFF:    PASS: max relative error

// Tensor cores with an explicit f16 projection and a mean (unsplit projection).
// RUN: sigreg-run %s --target=cuda --entry=mma_explicit --pipeline=both --emit-artifact=%t/mmae | FileCheck %s --check-prefix=MMAE
// RUN: FileCheck %s --check-prefix=MMA-KERNELS --input-file=%t/mmae/fused/manifest.json
// MMAE:       x=2500x200xf16 S=333 P=17 t_max=3 clip=none reduction=mean projection=explicit
// MMAE:       == fused pipeline ==
// MMAE:       PASS: relative error {{.*}} <= 2.0e-03 (f16 inputs)
// MMAE:       == naive pipeline ==
// MMAE:       PASS: relative error {{.*}} <= 2.0e-03 (f16 inputs)

// The same problem as one launch (sigreg_single_launch: the cost rule's
// choice for N <= 256), and again in f32.
// RUN: sigreg-run %s --target=cuda --entry=views --pipeline=fused --emit-artifact=%t/single | FileCheck %s --check-prefix=FUSED
// RUN: FileCheck %s --check-prefix=SINGLE --input-file=%t/single/fused/manifest.json
// RUN: sigreg-run %s --target=cuda --entry=views --pipeline=fused --dtype=f32 | FileCheck %s --check-prefix=SINGLE-F32
// SINGLE:      "kernel": "sigreg_single_launch"
// SINGLE-NOT:  "kernel":
// SINGLE-F32:  == fused pipeline ==
// SINGLE-F32:  PASS: max relative error {{.*}} <= 1.0e-04 (f32 inputs)

// The Hopper kernel (TMA + wgmma, sm_90a): 3 views of 1000 rows, D = 200,
// S = 1928 (ragged against 128 x 256 tiles and 64-deep k-tiles), seeded; and
// the 128-slice variant; and an explicit projection with per-slice output.
// RUN: sigreg-run %s --target=cuda --entry=wgmma --pipeline=fused --emit-artifact=%t/wgmma | FileCheck %s --check-prefix=WGMMA
// RUN: FileCheck %s --check-prefix=WGMMA-KERNELS --input-file=%t/wgmma/fused/manifest.json
// RUN: sigreg-run %s --target=cuda --entry=wgmma --pipeline=fused --wgmma-slices=128 | FileCheck %s --check-prefix=WGMMA
// RUN: sigreg-run %s --target=cuda --entry=wgmma_none --pipeline=both --emit-artifact=%t/wgmman | FileCheck %s --check-prefix=WGMMA-NONE
// RUN: FileCheck %s --check-prefix=WGMMA-KERNELS --input-file=%t/wgmman/fused/manifest.json
// WGMMA:         x=3x1000x200xbf16 S=1928 P=5
// WGMMA:         == fused pipeline ==
// WGMMA:         PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// WGMMA-KERNELS: "kernel": "sigreg_fused_ecf_wgmma"
// WGMMA-NONE:    == fused pipeline ==
// WGMMA-NONE:    unwritten {{ *}}0 of 4096
// WGMMA-NONE:    PASS: max relative error {{.*}} <= 2.0e-03 (bf16 inputs)
// WGMMA-NONE:    == naive pipeline ==
// WGMMA-NONE:    PASS: max relative error

func.func @wgmma(%x: tensor<3x1000x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<3x1000x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @wgmma_none(%x: tensor<2x3000x1024xbf16>, %a: tensor<1024x2048xbf16>) -> tensor<2x2048xf32> {
  %l = sigreg.loss %x projection(%a : tensor<1024x2048xbf16>) slices = 2048 points = 9 reduction = none
      : tensor<2x3000x1024xbf16> -> tensor<2x2048xf32>
  return %l : tensor<2x2048xf32>
}
func.func @views(%x: tensor<3x37x129xbf16>, %seed: i64) -> tensor<3x77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(1.0) reduction = none
      : tensor<3x37x129xbf16> -> tensor<3x77xf32>
  return %l : tensor<3x77xf32>
}
func.func @dynamic(%x: tensor<?x129xf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 17 clip = zero_below(0.5) reduction = sum
      : tensor<?x129xf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @mma(%x: tensor<4x700x129xbf16>, %seed: i64) -> tensor<4x333xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 333 points = 9 clip = clamp_min(1.0) reduction = none
      : tensor<4x700x129xbf16> -> tensor<4x333xf32>
  return %l : tensor<4x333xf32>
}
func.func @mma_explicit(%x: tensor<2500x200xf16>, %a: tensor<200x333xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<200x333xf16>) slices = 333 points = 17
      : tensor<2500x200xf16> -> tensor<f32>
  return %l : tensor<f32>
}
