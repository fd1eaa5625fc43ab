// RUN: sigreg-opt %s | sigreg-opt | FileCheck %s
// RUN: sigreg-opt %s -mlir-print-op-generic | sigreg-opt | FileCheck %s
// RUN: sigreg-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of the fused ops (what --sigreg-fuse-ecf and
// --sigreg-fuse-epilogue produce) through the custom and the generic form.
// Defaults (t_max = 3.0, clip = none, reduction = mean) are elided by the
// custom printer and materialized in the generic form (clip none = 0,
// zero_below = 1, clamp_min = 2; reduction mean = 0, sum = 1, none = 2).

// CHECK-LABEL: func.func @fused_ecf_seeded(
// CHECK-SAME:      %[[X:.*]]: tensor<3x37x129xbf16>, %[[A:.*]]: tensor<129x77xf32>)
// CHECK-NEXT:    %[[C:.*]], %[[S:.*]] = sigreg.fused_ecf %[[X]], %[[A]] t_max = 2.500000e+00 : tensor<3x37x129xbf16>, tensor<129x77xf32> -> tensor<3x77x9xf32>
// CHECK-NEXT:    return %[[C]], %[[S]]
// GENERIC-LABEL: sym_name = "fused_ecf_seeded"
// GENERIC:       "sigreg.fused_ecf"(%{{.*}}, %{{.*}}) <{t_max = 2.500000e+00 : f64}> : (tensor<3x37x129xbf16>, tensor<129x77xf32>) -> (tensor<3x77x9xf32>, tensor<3x77x9xf32>)
func.func @fused_ecf_seeded(%x: tensor<3x37x129xbf16>, %a: tensor<129x77xf32>) -> (tensor<3x77x9xf32>, tensor<3x77x9xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a t_max = 2.5 : tensor<3x37x129xbf16>, tensor<129x77xf32> -> tensor<3x77x9xf32>
  return %c, %s : tensor<3x77x9xf32>, tensor<3x77x9xf32>
}

// Dynamic batch, f16 projection, default t_max (written explicitly: elided).
// CHECK-LABEL: func.func @fused_ecf_dynamic(
// CHECK-NEXT:    sigreg.fused_ecf %{{.*}}, %{{.*}} : tensor<1x?x16xf16>, tensor<16x8xf16> -> tensor<1x8x17xf32>
// GENERIC-LABEL: sym_name = "fused_ecf_dynamic"
// GENERIC:       "sigreg.fused_ecf"(%{{.*}}, %{{.*}}) <{t_max = 3.000000e+00 : f64}>
func.func @fused_ecf_dynamic(%x: tensor<1x?x16xf16>, %a: tensor<16x8xf16>) -> tensor<1x8x17xf32> {
  %c, %s = sigreg.fused_ecf %x, %a t_max = 3.0 : tensor<1x?x16xf16>, tensor<16x8xf16> -> tensor<1x8x17xf32>
  return %c : tensor<1x8x17xf32>
}

// CHECK-LABEL: func.func @fused_epilogue_all_knobs(
// CHECK-SAME:      %[[C:.*]]: tensor<3x77x9xf32>, %[[S:.*]]: tensor<3x77x9xf32>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[R:.*]] = sigreg.fused_epilogue %[[C]], %[[S]], %[[N]] t_max = 2.500000e+00 clip = clamp_min(5.000000e-01) reduction = sum : tensor<3x77x9xf32> -> tensor<f32>
// CHECK-NEXT:    return %[[R]]
// GENERIC-LABEL: sym_name = "fused_epilogue_all_knobs"
// GENERIC:       "sigreg.fused_epilogue"(%{{.*}}, %{{.*}}, %{{.*}}) <{clip = 2 : i32, clip_value = 5.000000e-01 : f64, reduction = 1 : i32, t_max = 2.500000e+00 : f64}> : (tensor<3x77x9xf32>, tensor<3x77x9xf32>, index) -> tensor<f32>
func.func @fused_epilogue_all_knobs(%c: tensor<3x77x9xf32>, %s: tensor<3x77x9xf32>, %n: index) -> tensor<f32> {
  %r = sigreg.fused_epilogue %c, %s, %n t_max = 2.5 clip = clamp_min(0.5) reduction = sum : tensor<3x77x9xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @fused_epilogue_zero_below_none(
// CHECK-NEXT:    sigreg.fused_epilogue %{{.*}}, %{{.*}}, %{{.*}} clip = zero_below(1.500000e+00) reduction = none : tensor<2x8x5xf32> -> tensor<2x8xf32>
// GENERIC-LABEL: sym_name = "fused_epilogue_zero_below_none"
// GENERIC:       "sigreg.fused_epilogue"(%{{.*}}, %{{.*}}, %{{.*}}) <{clip = 1 : i32, clip_value = 1.500000e+00 : f64, reduction = 2 : i32, t_max = 3.000000e+00 : f64}>
func.func @fused_epilogue_zero_below_none(%c: tensor<2x8x5xf32>, %s: tensor<2x8x5xf32>, %n: index) -> tensor<2x8xf32> {
  %r = sigreg.fused_epilogue %c, %s, %n clip = zero_below(1.5) reduction = none : tensor<2x8x5xf32> -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// Explicit defaults are elided by the custom printer.
// CHECK-LABEL: func.func @fused_epilogue_defaults(
// CHECK-NEXT:    sigreg.fused_epilogue %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x8x17xf32> -> tensor<f32>
// GENERIC-LABEL: sym_name = "fused_epilogue_defaults"
// GENERIC:       "sigreg.fused_epilogue"(%{{.*}}, %{{.*}}, %{{.*}}) <{clip = 0 : i32, clip_value = 0.000000e+00 : f64, reduction = 0 : i32, t_max = 3.000000e+00 : f64}>
func.func @fused_epilogue_defaults(%c: tensor<1x8x17xf32>, %s: tensor<1x8x17xf32>, %n: index) -> tensor<f32> {
  %r = sigreg.fused_epilogue %c, %s, %n t_max = 3.0 clip = none(0.0) reduction = mean : tensor<1x8x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// The fused backward: input, projection, the ECF cotangents, t_max.
// CHECK-LABEL: func.func @fused_ecf_backward(
// CHECK-NEXT:    sigreg.fused_ecf_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} t_max = 2.500000e+00 : tensor<3x37x136xbf16>, tensor<136x72xf32>, tensor<3x72x9xf32> -> tensor<3x37x136xf32>
// GENERIC-LABEL: sym_name = "fused_ecf_backward"
// GENERIC:       "sigreg.fused_ecf_backward"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{t_max = 2.500000e+00 : f64}>
func.func @fused_ecf_backward(%x: tensor<3x37x136xbf16>, %a: tensor<136x72xf32>, %dc: tensor<3x72x9xf32>, %ds: tensor<3x72x9xf32>) -> tensor<3x37x136xf32> {
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds t_max = 2.5 : tensor<3x37x136xbf16>, tensor<136x72xf32>, tensor<3x72x9xf32> -> tensor<3x37x136xf32>
  return %dx : tensor<3x37x136xf32>
}

// The forward's saved slices (--sigreg-save-slices): a third result of
// sigreg.fused_ecf, an operand of sigreg.fused_ecf_backward.
// CHECK-LABEL: func.func @saved_slices(
// CHECK-NEXT:    %[[C:.*]], %[[S:.*]], %[[Y:.*]] = sigreg.fused_ecf %{{.*}}, %{{.*}} t_max = 2.500000e+00 : tensor<3x37x136xbf16>, tensor<136x72xf32> -> tensor<3x72x9xf32>, slices tensor<3x37x72xf32>
// CHECK-NEXT:    sigreg.fused_ecf_backward %{{.*}}, %{{.*}}, %[[C]], %[[S]] slices(%[[Y]] : tensor<3x37x72xf32>) t_max = 2.500000e+00 : tensor<3x37x136xbf16>, tensor<136x72xf32>, tensor<3x72x9xf32> -> tensor<3x37x136xf32>
// GENERIC-LABEL: sym_name = "saved_slices"
// GENERIC:       "sigreg.fused_ecf"(%{{.*}}, %{{.*}}) <{t_max = 2.500000e+00 : f64}> : (tensor<3x37x136xbf16>, tensor<136x72xf32>) -> (tensor<3x72x9xf32>, tensor<3x72x9xf32>, tensor<3x37x72xf32>)
// GENERIC:       "sigreg.fused_ecf_backward"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{t_max = 2.500000e+00 : f64}>
func.func @saved_slices(%x: tensor<3x37x136xbf16>, %a: tensor<136x72xf32>) -> tensor<3x37x136xf32> {
  %c, %s, %y = sigreg.fused_ecf %x, %a t_max = 2.5 : tensor<3x37x136xbf16>, tensor<136x72xf32> -> tensor<3x72x9xf32>, slices tensor<3x37x72xf32>
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %s slices(%y : tensor<3x37x72xf32>) t_max = 2.5 : tensor<3x37x136xbf16>, tensor<136x72xf32>, tensor<3x72x9xf32> -> tensor<3x37x136xf32>
  return %dx : tensor<3x37x136xf32>
}

// The slices as y's 16-bit phase.
// CHECK-LABEL: func.func @saved_phase(
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %[[Q:.*]] = sigreg.fused_ecf {{.*}} -> tensor<1x72x9xf32>, slices tensor<1x37x72xi16>
// CHECK-NEXT:    sigreg.fused_ecf_backward {{.*}} slices(%[[Q]] : tensor<1x37x72xi16>)
func.func @saved_phase(%x: tensor<1x37x136xbf16>, %a: tensor<136x72xbf16>) -> tensor<1x37x136xbf16> {
  %c, %s, %q = sigreg.fused_ecf %x, %a : tensor<1x37x136xbf16>, tensor<136x72xbf16> -> tensor<1x72x9xf32>, slices tensor<1x37x72xi16>
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %s slices(%q : tensor<1x37x72xi16>) : tensor<1x37x136xbf16>, tensor<136x72xbf16>, tensor<1x72x9xf32> -> tensor<1x37x136xbf16>
  return %dx : tensor<1x37x136xbf16>
}
