// Rank 2 ([N, D]) with a dynamic batch dimension: --shape fills N at run
// time (the CPU path keeps N dynamic in the compiled code).

// RUN: sigreg-run --target=cpu --shape=37x129 %s | FileCheck %s --check-prefix=N37
// RUN: sigreg-run --target=cpu --shape=300x129 %s | FileCheck %s --check-prefix=N300
// RUN: sigreg-run --target=cpu --shape=37x129 --dtype=f32 %s | FileCheck %s --check-prefix=F32

// N37:      sigreg-run: target=cpu entry=@dynamic x=37x129xbf16 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed
// N37:      PASS: relative error {{.*}} (bf16 inputs)

// N300:     sigreg-run: target=cpu entry=@dynamic x=300x129xbf16 S=77 P=9 t_max=3 clip=none reduction=mean projection=seed
// N300:     PASS: relative error {{.*}} (bf16 inputs)

// F32:      sigreg-run: target=cpu entry=@dynamic x=37x129xf32 S=77 P=9
// F32:      PASS: relative error {{.*}} <= 1.0e-04 (f32 inputs)

func.func @dynamic(%x: tensor<?x129xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<?x129xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
