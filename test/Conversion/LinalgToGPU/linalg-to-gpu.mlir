// RUN: sigreg-opt %s --split-input-file --sigreg-linalg-to-gpu | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-linalg-to-gpu | sigreg-opt --split-input-file --verify-each > /dev/null

// --sigreg-linalg-to-gpu: one kernel per bufferized linalg.generic
// (naive_<region>_<k> in gpu.module @sigreg_kernels). Schedule: one thread
// per point of the parallel iteration space, flattened row-major, 256
// threads a block, grid ceil(points / 256); reduction loops are scf.for in
// the thread, in the op's loop order. Captured non-constant values become
// kernel arguments, constants are cloned in, constant globals are copied
// into the GPU module.

// Elementwise with a captured scalar and linalg.index: 37*77 = 2849 points,
// grid ceil(2849/256) = 12.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:      %[[A:.*]]: memref<37x77xf32>, %[[B:.*]]: memref<37x77xf32>, %[[S:.*]]: f32)
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C12:.*]] = arith.constant 12 : index
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_trig_reduction_0 blocks in (%[[C12]], %{{.*}}, %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}}) args(%[[A]] : memref<37x77xf32>, %[[B]] : memref<37x77xf32>, %[[S]] : f32) {sigreg.region = "trig_reduction"}
// CHECK-NEXT:    return
// CHECK:       gpu.module @sigreg_kernels {
// CHECK:         gpu.func @naive_trig_reduction_0(%[[KA:.*]]: memref<37x77xf32>, %[[KB:.*]]: memref<37x77xf32>, %[[KS:.*]]: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// CHECK-DAG:       %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG:       %[[BID:.*]] = gpu.block_id x
// CHECK:           %[[OFF:.*]] = arith.muli %[[BID]], %{{.*}} : index
// CHECK-NEXT:      %[[LIN:.*]] = arith.addi %[[OFF]], %[[TID]] : index
// CHECK-NEXT:      %[[TOTAL:.*]] = arith.constant 2849 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %[[TOTAL]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK:             %[[J:.*]] = arith.remui %[[LIN]], %{{.*}} : index
// CHECK:             %[[R:.*]] = arith.divui %[[LIN]], %{{.*}} : index
// CHECK:             %[[I:.*]] = arith.remui %[[R]], %{{.*}} : index
// CHECK:             %[[V:.*]] = memref.load %[[KA]][%[[I]], %[[J]]] : memref<37x77xf32>
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[V]], %[[KS]] : f32
// CHECK-NEXT:        %[[JI:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT:        %[[JF:.*]] = arith.sitofp %[[JI]] : i32 to f32
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[M]], %[[JF]] : f32
// CHECK-NEXT:        memref.store %[[SUM]], %[[KB]][%[[I]], %[[J]]] : memref<37x77xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.return
// CHECK-NOT:     linalg.index
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%a: memref<37x77xf32>, %b: memref<37x77xf32>, %s: f32) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<37x77xf32>) outs(%b : memref<37x77xf32>) attrs = {sigreg.region = "trig_reduction"} {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %s : f32
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %1 = arith.addf %0, %f : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Reduction over the last dimension, weights from a constant global (copied
// into the GPU module, read in place: not a kernel argument), a captured
// constant (cloned in). 40*30 = 1200 points: grid 5. The output is loaded,
// carried through the scf.for over the 9 reduction points, stored once.
// CHECK:       memref.global "private" constant @weights : memref<30xf32> = dense<
// CHECK-LABEL: func.func @reduction(
// CHECK-SAME:      %[[A:.*]]: memref<40x30x9xf32>, %[[B:.*]]: memref<40x30xf32>)
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_epilogue_0 blocks in (%[[C5]], %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[A]] : memref<40x30x9xf32>, %[[B]] : memref<40x30xf32>) {sigreg.region = "epilogue"}
// CHECK:       gpu.module @sigreg_kernels {
// CHECK-NEXT:    memref.global "private" constant @weights : memref<30xf32> = dense<
// CHECK:         gpu.func @naive_epilogue_0(%[[KA:.*]]: memref<40x30x9xf32>, %[[KB:.*]]: memref<40x30xf32>) kernel
// CHECK:           arith.constant 1200 : index
// CHECK:           %[[J:.*]] = arith.remui
// CHECK:           %[[I:.*]] = arith.remui
// CHECK:           %[[INIT:.*]] = memref.load %[[KB]][%[[I]], %[[J]]] : memref<40x30xf32>
// CHECK-DAG:       %[[NINE:.*]] = arith.constant 9 : index
// CHECK:           %[[RES:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[NINE]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[KA]][%[[I]], %[[J]], %[[K]]] : memref<40x30x9xf32>
// CHECK-NEXT:        %[[G:.*]] = memref.get_global @weights : memref<30xf32>
// CHECK-NEXT:        %[[W:.*]] = memref.load %[[G]][%[[J]]] : memref<30xf32>
// CHECK-NEXT:        %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT:        %[[Q:.*]] = arith.mulf %[[P]], %[[HALF]] : f32
// CHECK-NEXT:        %[[N:.*]] = arith.addf %[[Q]], %[[ACC]] : f32
// CHECK-NEXT:        scf.yield %[[N]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[RES]], %[[KB]][%[[I]], %[[J]]] : memref<40x30xf32>
memref.global "private" constant @weights : memref<30xf32> = dense<2.0>
func.func @reduction(%a: memref<40x30x9xf32>, %b: memref<40x30xf32>) {
  %half = arith.constant 0.5 : f32
  %g = memref.get_global @weights : memref<30xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %g : memref<40x30x9xf32>, memref<30xf32>) outs(%b : memref<40x30xf32>) attrs = {sigreg.region = "epilogue"} {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %0 = arith.mulf %in, %w : f32
    %1 = arith.mulf %0, %half : f32
    %2 = arith.addf %1, %out : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// Two reduction dimensions, the first of them outermost in the op's loop
// order (d0 reduction, d2 reduction around the parallel d1): 7 points, grid 1,
// nested loops 0..3 (d0) then 0..5 (d2). No region: kernel naive_other_0.
// CHECK-LABEL: func.func @two_reductions(
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_other_0 blocks in (%c1{{(_[0-9]+)?}}, %{{.*}}, %{{.*}})
// CHECK-NOT:     sigreg.region
// CHECK:         gpu.func @naive_other_0(
// CHECK:           arith.constant 7 : index
// CHECK:           %[[C3:.*]] = arith.constant 3 : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[C3]]
// CHECK:             %[[C5:.*]] = arith.constant 5 : index
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[C5]]
func.func @two_reductions(%a: memref<3x7x5xf32>, %b: memref<7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%a : memref<3x7x5xf32>) outs(%b : memref<7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A generalized fill: the scalar constant input is cloned into the kernel,
// the output is only written (not loaded). 2*300 = 600 points: grid 3.
// CHECK-LABEL: func.func @fill(
// CHECK-SAME:      %[[B:.*]]: memref<2x300xf32>)
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_other_0 blocks in (%[[C3]], %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[B]] : memref<2x300xf32>)
// CHECK:         gpu.func @naive_other_0(%[[KB:.*]]: memref<2x300xf32>)
// CHECK-NOT:       memref.load
// CHECK:           %[[CST:.*]] = arith.constant 4.250000e+00 : f32
// CHECK-NEXT:      memref.store %[[CST]], %[[KB]]
func.func @fill(%b: memref<2x300xf32>) {
  %cst = arith.constant 4.25 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cst : f32) outs(%b : memref<2x300xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// Two generics in one function: two kernels, two launches in program order.
// CHECK-LABEL: func.func @two_ops(
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_a_0
// CHECK:         gpu.launch_func @sigreg_kernels::@naive_b_1
// CHECK:         gpu.func @naive_a_0(
// CHECK:         gpu.func @naive_b_1(
func.func @two_ops(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {sigreg.region = "a"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : memref<4xf32>) outs(%a : memref<4xf32>) attrs = {sigreg.region = "b"} {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  return
}
