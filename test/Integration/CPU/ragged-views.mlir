// The ragged shape of docs/CONTRACT.md section 5 (no size is a multiple of any
// tile): V = 3 views, N = 37, D = 129, S = 77, P = 9, compiled through
// --sigreg-cpu-pipeline, run on seeded inputs and validated against the
// float64 reference (relative error <= 1e-4 for f32, 2e-3 for bf16/f16).
// A failed validation exits 1 and fails the RUN line.

// RUN: sigreg-run --target=cpu %s | FileCheck %s --check-prefix=F32
// RUN: sigreg-run --target=cpu --dtype=bf16 %s | FileCheck %s --check-prefix=BF16
// RUN: sigreg-run --target=cpu --dtype=f16 %s | FileCheck %s --check-prefix=F16

// F32:      sigreg-run: target=cpu entry=@ragged x=3x37x129xf32 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed
// F32-NEXT: loss {{ *}}0.9704
// F32-NEXT: reference {{ *}}0.9704
// F32-NEXT: relative error
// F32-NEXT: PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)

// BF16:      sigreg-run: target=cpu entry=@ragged x=3x37x129xbf16 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed
// BF16:      PASS: relative error {{.*}} <= 2.0e-03 (bf16 inputs)

// F16:       sigreg-run: target=cpu entry=@ragged x=3x37x129xf16 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed
// F16:       PASS: relative error {{.*}} <= 2.0e-03 (f16 inputs)

func.func @ragged(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}
