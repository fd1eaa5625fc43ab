// RUN: sigreg-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(sigreg-grid-constant-params))" --verify-diagnostics | FileCheck %s

// The kernel arguments listed in sigreg.grid_constants (pointers standing
// for 128-byte CUDA tensor maps) become by-value, 64-byte aligned grid
// constants; other arguments keep their attributes, and the list goes away.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func @k(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:      attributes {nvvm.kernel}
// CHECK:         llvm.func @untouched(%{{.*}}: !llvm.ptr)
// CHECK-NOT:     sigreg.grid_constants
gpu.module @kernels {
  llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr {llvm.noalias}, %c: !llvm.ptr) attributes {nvvm.kernel, sigreg.grid_constants = array<i64: 0, 2>} {
    llvm.return
  }
  llvm.func @untouched(%a: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{sigreg.grid_constants must be an array<i64> of argument indices on a kernel}}
  llvm.func @not_a_kernel(%a: !llvm.ptr) attributes {sigreg.grid_constants = array<i64: 0>} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{sigreg.grid_constants lists argument 0, which is not a pointer argument}}
  llvm.func @not_a_pointer(%a: i64) attributes {nvvm.kernel, sigreg.grid_constants = array<i64: 0>} {
    llvm.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @+1 {{sigreg.grid_constants lists argument 3, which is not a pointer argument}}
  llvm.func @out_of_range(%a: !llvm.ptr) attributes {nvvm.kernel, sigreg.grid_constants = array<i64: 3>} {
    llvm.return
  }
}
