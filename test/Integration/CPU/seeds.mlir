// --seed (projection) and --input-seed (inputs) select different problems:
// the float64 reference changes with each (pinned below) and the compiled
// code still matches it. Defaults are --seed=0 --input-seed=1.

// RUN: sigreg-run --target=cpu %s | FileCheck %s --check-prefix=DEFAULT
// RUN: sigreg-run --target=cpu --seed=12345 --input-seed=7 %s | FileCheck %s --check-prefix=BOTH
// RUN: sigreg-run --target=cpu --seed=12345 %s | FileCheck %s --check-prefix=PROJ
// RUN: sigreg-run --target=cpu --input-seed=7 %s | FileCheck %s --check-prefix=INPUT
// A seed above 2^32 exercises the high half of the Philox key.
// RUN: sigreg-run --target=cpu --seed=81985529216486895 %s | FileCheck %s --check-prefix=HIGH

// DEFAULT: reference {{ *}}0.9910648
// DEFAULT: PASS
// BOTH:    reference {{ *}}1.0728453
// BOTH:    PASS
// PROJ-NOT: reference {{ *}}0.9910648
// PROJ-NOT: reference {{ *}}1.0728453
// PROJ:    PASS
// INPUT-NOT: reference {{ *}}0.9910648
// INPUT-NOT: reference {{ *}}1.0728453
// INPUT:   PASS
// HIGH-NOT: reference {{ *}}0.9910648
// HIGH:    PASS

func.func @seeds(%x: tensor<2x41x33xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 29 : tensor<2x41x33xf32> -> tensor<f32>
  return %l : tensor<f32>
}
