# hcube as a library for other projects: position-independent code, the
# targets hcube::hcube (everything) and hcube::core, hcube::host,
# hcube::kernels, hcube::emulator, the generated <hcube/config.hpp>, and the install rules
# with an exported hcubeConfig.cmake. Included at the end of the top
# CMakeLists.txt, once every library target exists.
#
#   find_package(hcube REQUIRED)            # or add_subdirectory(hcube)
#   target_link_libraries(app PRIVATE hcube::hcube)
#
# tests/consumer is such a project; scripts/check-install.sh builds it against
# an installed hcube and as a subdirectory.

# A Python extension links these static libraries into a shared module.
set_target_properties(hcube_host hcube_emulator PROPERTIES POSITION_INDEPENDENT_CODE ON)

# The headers need C++17 wherever they are compiled, not only here.
target_compile_features(hcube_host PUBLIC cxx_std_17)

# The names a consumer sees: hcube::host, hcube::kernels, hcube::emulator and
# the umbrella hcube::hcube (the target `hcube` is the command-line program).
set_target_properties(hcube_host PROPERTIES EXPORT_NAME host)
set_target_properties(hcube_kernels PROPERTIES EXPORT_NAME kernels)
set_target_properties(hcube_core PROPERTIES EXPORT_NAME core)
set_target_properties(hcube_emulator PROPERTIES EXPORT_NAME emulator)
add_library(hcube_library INTERFACE)
set_target_properties(hcube_library PROPERTIES EXPORT_NAME hcube)
target_link_libraries(hcube_library INTERFACE hcube_emulator hcube_kernels hcube_host)
# One library of everything, for a program that links by name (pkg-config's hcube.pc): libhcube.so
# and libhcube.a, made of the host and emulator objects, with FFTW, OpenMP and (on CUDA) the static
# CUDA runtime and cuFFT linked in or named as their dependencies.
foreach(_kind SHARED STATIC)
  string(TOLOWER ${_kind} _k)
  add_library(hcube_${_k} ${_kind} $<TARGET_OBJECTS:hcube_host> $<TARGET_OBJECTS:hcube_emulator>)
  set_target_properties(hcube_${_k} PROPERTIES OUTPUT_NAME hcube EXPORT_NAME ${_k} POSITION_INDEPENDENT_CODE ON)
  if(NOT HCUBE_INSTALL)  # a subproject or the Python module: made only when something links it
    set_target_properties(hcube_${_k} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  target_include_directories(hcube_${_k} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/host/include> $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/host/io/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/host/system/include> $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/kernels/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/kernels/core/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/emulator/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(hcube_${_k} PUBLIC cxx_std_17)
  target_link_libraries(hcube_${_k} PUBLIC fmt::fmt nlohmann_json::nlohmann_json
    PRIVATE OpenMP::OpenMP_CXX $<BUILD_INTERFACE:hcube_fftw3> $<INSTALL_INTERFACE:hcube::fftw3>)
  if(HCUBE_HAVE_CUDA)
    target_link_libraries(hcube_${_k} PRIVATE CUDA::cudart_static CUDA::cufft)
  endif()
endforeach()
set_target_properties(hcube_shared PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

# The same names for a project that adds hcube with add_subdirectory or FetchContent.
add_library(hcube::shared ALIAS hcube_shared)
add_library(hcube::static ALIAS hcube_static)
add_library(hcube::hcube ALIAS hcube_library)
add_library(hcube::host ALIAS hcube_host)
add_library(hcube::kernels ALIAS hcube_kernels)
add_library(hcube::core ALIAS hcube_core)
add_library(hcube::emulator ALIAS hcube_emulator)

# <hcube/config.hpp>: the version and whether the CUDA backend is built, for
# consumers of the installed headers (the build itself also has them as
# compile definitions).
if(HCUBE_HAVE_CUDA)
  set(HCUBE_HAVE_CUDA_01 1)
else()
  set(HCUBE_HAVE_CUDA_01 0)
endif()
set(_hcube_generated_include ${PROJECT_BINARY_DIR}/generated/include)
configure_file(${CMAKE_CURRENT_LIST_DIR}/hcube_config.hpp.in ${_hcube_generated_include}/hcube/config.hpp @ONLY)
target_include_directories(hcube_host PUBLIC $<BUILD_INTERFACE:${_hcube_generated_include}>)

if(NOT HCUBE_INSTALL)
  return()
endif()

include(CMakePackageConfigHelpers)
set(HCUBE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hcube CACHE STRING
  "Where hcubeConfig.cmake is installed, relative to the prefix")
mark_as_advanced(HCUBE_INSTALL_CMAKEDIR)

# FFTW. The build links hcube_fftw3 (absolute paths found on this machine);
# installed, the static library instead links hcube::fftw3, which the config
# makes by finding the same libraries again, by name, on the consumer's
# machine. The names are read off hcube_fftw3 so that a library added to it
# (fftw3_threads, ...) is found too.
set(HCUBE_FFTW_NAMES "")
set(HCUBE_FFTW_HINTS "")
set(HCUBE_FFTW_TARGETS "")
get_target_property(_hcube_fftw_libs hcube_fftw3 INTERFACE_LINK_LIBRARIES)
if(NOT _hcube_fftw_libs)
  set(_hcube_fftw_libs "")
endif()
foreach(_lib IN LISTS _hcube_fftw_libs)
  if(TARGET "${_lib}")
    # An imported target (Threads::Threads, OpenMP::OpenMP_CXX): the config
    # finds its package (below) and links it as it is.
    if(NOT _lib MATCHES "^(Threads::Threads|OpenMP::OpenMP_CXX)$")
      message(WARNING "hcube: hcube_fftw3 links ${_lib}; the installed hcubeConfig.cmake does not find "
        "its package: teach cmake/HcubePackage.cmake and cmake/hcubeConfig.cmake.in")
    endif()
    list(APPEND HCUBE_FFTW_TARGETS "${_lib}")
  elseif(IS_ABSOLUTE "${_lib}")
    get_filename_component(_dir "${_lib}" DIRECTORY)
    get_filename_component(_name "${_lib}" NAME_WE)  # libfftw3_threads.so.3 -> libfftw3_threads
    string(REGEX REPLACE "^lib" "" _name "${_name}")
    list(APPEND HCUBE_FFTW_NAMES "${_name}")
    list(APPEND HCUBE_FFTW_HINTS "${_dir}")
  elseif(_lib MATCHES "^-l([A-Za-z0-9_.+-]+)$" OR _lib MATCHES "^([A-Za-z0-9_.+-]+)$")
    list(APPEND HCUBE_FFTW_NAMES "${CMAKE_MATCH_1}")
  else()
    message(WARNING "hcube: hcube_fftw3 links '${_lib}', which the installed hcubeConfig.cmake cannot find again")
  endif()
endforeach()
list(REMOVE_DUPLICATES HCUBE_FFTW_HINTS)
target_link_libraries(hcube_emulator PRIVATE $<INSTALL_INTERFACE:hcube::fftw3>)

# The CUDA toolkit the backend was compiled with: a hint for the consumer's
# find_dependency(CUDAToolkit).
set(HCUBE_CUDA_ROOT "")
if(HCUBE_HAVE_CUDA AND CUDAToolkit_BIN_DIR)
  get_filename_component(HCUBE_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()

# The distributed machine (emulator/mpi): hcube::mpi, DistributedMachine on the caller's MPI_Comm.
set(HCUBE_HAVE_MPI_01 0)
set(_hcube_mpi_target "")
if(TARGET hcube_mpi)
  set(HCUBE_HAVE_MPI_01 1)
  set(_hcube_mpi_target hcube_mpi)
  set_target_properties(hcube_mpi PROPERTIES EXPORT_NAME mpi)
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hcubeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hcubeConfig.cmake
  INSTALL_DESTINATION ${HCUBE_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hcubeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

# pkg-config: hcube.pc names libhcube (shared first, as the linker takes it) and what it links.
set(HCUBE_PC_PRIVATE "")
foreach(_name IN LISTS HCUBE_FFTW_NAMES)
  string(APPEND HCUBE_PC_PRIVATE " -l${_name}")
endforeach()
string(APPEND HCUBE_PC_PRIVATE " -fopenmp -lpthread")
if(HCUBE_HAVE_CUDA AND CUDAToolkit_LIBRARY_DIR)
  string(APPEND HCUBE_PC_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcufft -lcudart_static -ldl -lrt")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/hcube.pc.in ${PROJECT_BINARY_DIR}/hcube.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hcube.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT hcube_Development)

install(TARGETS hcube_core hcube_host hcube_kernels hcube_emulator hcube_library hcube_shared hcube_static
    ${_hcube_mpi_target} EXPORT hcubeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT hcube_Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT hcube_Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT hcube_Runtime)
# The headers: only the API, what <hcube/hcube.hpp> and <hcube/mpi/*.hpp>
# include (cmake/HcubeInstalledHeaders.cmake), not every header of the tree.
include(${CMAKE_CURRENT_LIST_DIR}/HcubeInstalledHeaders.cmake)
set(_hcube_header_roots ${PROJECT_SOURCE_DIR}/emulator/include/hcube/hcube.hpp)
set(_hcube_header_dirs
  ${PROJECT_SOURCE_DIR}/emulator/include
  ${PROJECT_SOURCE_DIR}/host/include
  ${PROJECT_SOURCE_DIR}/host/io/include
  ${PROJECT_SOURCE_DIR}/host/system/include
  ${PROJECT_SOURCE_DIR}/kernels/core/include
  ${PROJECT_SOURCE_DIR}/kernels/include
  ${_hcube_generated_include})
if(TARGET hcube_mpi)
  file(GLOB _hcube_mpi_roots CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/emulator/mpi/include/hcube/mpi/*.hpp)
  list(APPEND _hcube_header_roots ${_hcube_mpi_roots})
  list(APPEND _hcube_header_dirs ${PROJECT_SOURCE_DIR}/emulator/mpi/include)
endif()
hcube_installed_headers(HCUBE_INSTALLED_HEADERS ROOTS ${_hcube_header_roots} DIRS ${_hcube_header_dirs})
list(LENGTH HCUBE_INSTALLED_HEADERS _hcube_n)
message(STATUS "hcube: ${_hcube_n} headers installed (the closure of <hcube/hcube.hpp> and <hcube/mpi/*.hpp>)")
foreach(_entry IN LISTS HCUBE_INSTALLED_HEADERS)
  string(REPLACE "|" ";" _pair "${_entry}")
  list(GET _pair 0 _dir)
  list(GET _pair 1 _rel)
  get_filename_component(_sub "${_rel}" DIRECTORY)
  install(FILES ${_dir}/${_rel} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${_sub} COMPONENT hcube_Development)
endforeach()
install(EXPORT hcubeTargets NAMESPACE hcube:: FILE hcubeTargets.cmake
  DESTINATION ${HCUBE_INSTALL_CMAKEDIR} COMPONENT hcube_Development)
install(FILES ${PROJECT_BINARY_DIR}/hcubeConfig.cmake ${PROJECT_BINARY_DIR}/hcubeConfigVersion.cmake
  DESTINATION ${HCUBE_INSTALL_CMAKEDIR} COMPONENT hcube_Development)
if(TARGET hcube)
  install(TARGETS hcube RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT hcube_Runtime)
endif()

# The check that an installed hcube serves a project of its own (CI runs it
# as well, with the add_subdirectory variant: .ci/run).
if(HCUBE_BUILD_TESTS)
  set(_hcube_consumer_args -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
  if(CMAKE_CXX_COMPILER_LAUNCHER)
    list(APPEND _hcube_consumer_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}")
  endif()
  if(HCUBE_SANITIZE)
    # The libraries are instrumented; the installed package does not carry
    # the build's sanitizer flags (hcube_flags), so the consumer is given them.
    list(APPEND _hcube_consumer_args "-DCMAKE_CXX_FLAGS=-fsanitize=${HCUBE_SANITIZE} -fno-omit-frame-pointer"
      "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${HCUBE_SANITIZE}")
  endif()
  add_test(NAME hcube_install_consumer
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-install.sh --work ${PROJECT_BINARY_DIR}/install-check
      --config $<CONFIG> ${PROJECT_BINARY_DIR} -- ${_hcube_consumer_args})
  set_tests_properties(hcube_install_consumer PROPERTIES TIMEOUT 600)
endif()
