# SIGREG_STATIC_TOOLS: self-contained sigreg-run, sigreg-opt and sigreg-aot-run.
#
# Debian's MLIR/LLVM packages ship every component as a static archive
# (libMLIR*.a, libLLVM*.a), but their exported CMake targets link the LLVM
# shared library, zlib, zstd and z3 dynamically. So instead of those targets,
# the project's libraries link one interface target, SigregStaticMLIR: all the
# component archives in one rescanned group (the linker takes only the members
# the tools reference), static zlib and zstd, and the C library's dl, pthread,
# rt and m. The executables add static libstdc++/libgcc, --gc-sections and
# --as-needed, so `ldd` lists only the C library (docs/RELEASE.md).
#
# Included from the top-level CMakeLists.txt after lib/ and tools/.

if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  message(FATAL_ERROR "SIGREG_STATIC_TOOLS is supported on Linux only")
endif()

find_library(SIGREG_ZLIB_STATIC NAMES libz.a REQUIRED)
find_library(SIGREG_ZSTD_STATIC NAMES libzstd.a REQUIRED)
find_package(Threads REQUIRED)

# MLIR-free AOT runner: already static-libstdc++; drop unused sections too.
target_link_options(sigreg-aot-run PRIVATE -Wl,--gc-sections -Wl,--as-needed)

if(SIGREG_ENABLE_MLIR)
  file(GLOB SIGREG_MLIR_ARCHIVES "${LLVM_LIBRARY_DIR}/libMLIR*.a")
  file(GLOB SIGREG_LLVM_ARCHIVES "${LLVM_LIBRARY_DIR}/libLLVM*.a")
  list(LENGTH SIGREG_MLIR_ARCHIVES num_mlir)
  list(LENGTH SIGREG_LLVM_ARCHIVES num_llvm)
  if(num_mlir EQUAL 0 OR num_llvm EQUAL 0)
    message(FATAL_ERROR "SIGREG_STATIC_TOOLS: no static MLIR/LLVM archives in "
                        "${LLVM_LIBRARY_DIR} (Debian: libmlir-22-dev, llvm-22-dev)")
  endif()
  message(STATUS "Static tools: ${num_mlir} MLIR and ${num_llvm} LLVM archives")

  add_library(SigregStaticMLIR INTERFACE)
  target_link_libraries(SigregStaticMLIR INTERFACE
    "$<LINK_GROUP:RESCAN,${SIGREG_MLIR_ARCHIVES},${SIGREG_LLVM_ARCHIVES}>"
    ${SIGREG_ZSTD_STATIC} ${SIGREG_ZLIB_STATIC}
    ${CMAKE_DL_LIBS} Threads::Threads rt m)

  # Every target under lib/, tools/ (and unittests/) that links the MLIR
  # shared library links the static group instead.
  function(sigreg_collect_targets dir out)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    foreach(sub IN LISTS subdirs)
      sigreg_collect_targets(${sub} sub_targets)
      list(APPEND targets ${sub_targets})
    endforeach()
    set(${out} ${targets} PARENT_SCOPE)
  endfunction()

  set(sigreg_targets)
  foreach(dir lib tools unittests)
    if(IS_DIRECTORY ${SIGREG_SOURCE_DIR}/${dir})
      get_property(known DIRECTORY ${SIGREG_SOURCE_DIR} PROPERTY SUBDIRECTORIES)
      if("${SIGREG_SOURCE_DIR}/${dir}" IN_LIST known)
        sigreg_collect_targets(${SIGREG_SOURCE_DIR}/${dir} found)
        list(APPEND sigreg_targets ${found})
      endif()
    endif()
  endforeach()

  foreach(tgt IN LISTS sigreg_targets)
    get_target_property(type ${tgt} TYPE)
    if(type STREQUAL "UTILITY")
      continue()
    endif()
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${tgt} ${prop})
      if(libs)
        # MLIR (libMLIR.so) and LLVM (libLLVM.so, added by llvm_add_library
        # since Debian's LLVM links its dylib) become the static group.
        list(TRANSFORM libs REPLACE "^MLIR$" SigregStaticMLIR)
        list(TRANSFORM libs REPLACE "^LLVM$" SigregStaticMLIR)
        list(TRANSFORM libs REPLACE "^\\$<LINK_ONLY:LLVM>$"
             "$<LINK_ONLY:SigregStaticMLIR>")
        list(REMOVE_DUPLICATES libs)
        set_property(TARGET ${tgt} PROPERTY ${prop} ${libs})
      endif()
    endforeach()
  endforeach()

  # sigreg-run and sigreg-opt register only the dialects, extensions and
  # passes of the sigreg pipelines (lib/Tools/Registration.cpp), so the linker
  # leaves the rest of MLIR out.
  set_property(SOURCE ${SIGREG_SOURCE_DIR}/lib/Tools/Registration.cpp
    DIRECTORY ${SIGREG_SOURCE_DIR}/lib/Tools
    APPEND PROPERTY COMPILE_DEFINITIONS SIGREG_MINIMAL_REGISTRATION=1)

  foreach(tool sigreg-run sigreg-opt)
    target_link_options(${tool} PRIVATE -static-libstdc++ -static-libgcc
      -Wl,--as-needed)
    # No run path into the LLVM installation.
    set_target_properties(${tool} PROPERTIES SKIP_BUILD_RPATH ON
      INSTALL_RPATH "")
  endforeach()
endif()

# The release: `cmake --install BUILD --strip` or `cpack` (TGZ by default;
# scripts/build-static.sh makes a TXZ) with the stripped tools, the example
# and the docs.
set(sigreg_release_tools sigreg-aot-run)
if(SIGREG_ENABLE_MLIR)
  list(APPEND sigreg_release_tools sigreg-run sigreg-opt)
endif()
install(TARGETS ${sigreg_release_tools} RUNTIME DESTINATION bin)
install(FILES ${SIGREG_SOURCE_DIR}/examples/sigreg-blog.mlir
  DESTINATION share/sigreg/examples)
install(FILES ${SIGREG_SOURCE_DIR}/README.md ${SIGREG_SOURCE_DIR}/docs/RELEASE.md
  DESTINATION share/doc/sigreg)

set(CPACK_PACKAGE_NAME sigreg-mlir)
set(CPACK_PACKAGE_VENDOR sigreg-mlir)
set(CPACK_PACKAGE_VERSION 0.1.0)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "sigreg-mlir: self-contained SIGReg compiler and runner (static MLIR/LLVM)")
set(CPACK_GENERATOR TGZ)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_FILE_NAME
  "sigreg-mlir-${CPACK_PACKAGE_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
set(CPACK_OUTPUT_FILE_PREFIX ${SIGREG_BINARY_DIR}/package)
include(CPack)
