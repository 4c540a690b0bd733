# Installing and packaging staxc.
#   cmake --install BUILD [--prefix DIR]  puts in place:
#     bin/staxc
#     share/doc/staxc/                   README.md and docs/ (pictures included)
#     lib/cmake/staxc/                   the CMake package: find_package(staxc) gives the imported
#                                        executable staxc::staxc and staxc_add_model()
#   cpack -G DEB (in BUILD)              staxc_VERSION_ARCH.deb with the same files under /usr,
#                                        depending on the Debian packages staxc's own libraries
#                                        come from and on those the generated code needs.
include(CMakePackageConfigHelpers)

# Installing needs staxc built, not every test: `cmake --build build --target staxc` then
# `cmake --install build` (or cpack) works without building the test suite.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(STAX_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/staxc)

install(TARGETS staxc EXPORT staxcTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT staxcTargets NAMESPACE staxc:: DESTINATION ${STAX_CMAKE_PACKAGE_DIR})

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# The ISA table's compiler flags, for staxc_add_model's ISA argument (the same records as
# cmake/StaxIsa.cmake reads for the tests).
set(stax_isa_table "# The instruction sets of staxc ${PROJECT_VERSION} (include/stax/support/isa.def) and their compiler flags.\n")
string(APPEND stax_isa_table "set(STAXC_ISA_NAMES ${STAX_ISA_NAMES})\n")
foreach(isa ${STAX_ISA_NAMES})
  string(APPEND stax_isa_table "set(STAXC_ISA_${isa}_ARCH ${STAX_ISA_${isa}_ARCH})\n")
  string(APPEND stax_isa_table "set(STAXC_ISA_${isa}_FLAGS ${STAX_ISA_${isa}_FLAGS})\n")
endforeach()
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/staxcIsa.cmake CONTENT "${stax_isa_table}")

configure_package_config_file(cmake/staxcConfig.cmake.in ${PROJECT_BINARY_DIR}/staxcConfig.cmake
  INSTALL_DESTINATION ${STAX_CMAKE_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/staxcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/staxcConfig.cmake
  ${PROJECT_BINARY_DIR}/staxcConfigVersion.cmake
  ${PROJECT_BINARY_DIR}/staxcIsa.cmake
  cmake/staxcAddModel.cmake
  DESTINATION ${STAX_CMAKE_PACKAGE_DIR})

# The Debian package. Its dependencies: the shared libraries staxc links (spdlog, fmt, ONNX,
# protobuf, libstdc++: found by dpkg-shlibdeps), and what building the generated code needs: a
# C++17 compiler with OpenMP (g++ brings libgomp and <omp.h>) and SLEEF (<sleef.h>, -lsleef).
set(CPACK_PACKAGE_NAME staxc)
set(CPACK_PACKAGE_VENDOR "staxc")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ahead-of-time compiler for tensor programs to standalone C++ CPU kernels")
set(CPACK_PACKAGE_DESCRIPTION "staxc reads a model (a JSON graph in the stax graph format, or an ONNX \
model) and writes one standalone C++ file of fused, vectorized, OpenMP-parallel CPU kernels with a C \
API. Its CMake package (find_package(staxc)) provides staxc_add_model() to compile models in a build.")
set(CPACK_PACKAGE_CONTACT "staxc maintainers <staxc@localhost>")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "g++ (>= 10), libsleef-dev")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake (>= 3.20), ninja-build")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "graphviz")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
