# Fuzzing the parsers (tests/fuzz): libFuzzer targets for the .npy reader, the
# schedule reader and the --cycle, --perm and --message parsers.
#
# HCUBE_FUZZ=ON (a build of its own, scripts/fuzz.sh): clang with libFuzzer;
# the hcube libraries get -fsanitize=fuzzer-no-link (coverage for libFuzzer)
# beside HCUBE_SANITIZE, and only the fuzz targets are meant to be built
# (target hcube_fuzzers).
# HCUBE_FUZZ=OFF (every other build, with the tests): each target is built with
# a plain main() that replays its seed corpus as a ctest, so the targets keep
# compiling and the seeds keep passing without clang.
option(HCUBE_FUZZ "Build the libFuzzer targets (clang only; see scripts/fuzz.sh)" OFF)

if(HCUBE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "hcube: HCUBE_FUZZ=ON needs clang (libFuzzer ships with it as -fsanitize=fuzzer), "
                        "not ${CMAKE_CXX_COMPILER_ID}: configure with CC=clang CXX=clang++, or run scripts/fuzz.sh")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }]] HCUBE_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT HCUBE_HAVE_LIBFUZZER)
    message(FATAL_ERROR "hcube: clang cannot link -fsanitize=fuzzer here: install libclang-rt-dev "
                        "(scripts/install-deps.sh installs it with clang)")
  endif()
  if(NOT HCUBE_SANITIZE MATCHES "address")
    message(WARNING "hcube: fuzzing without AddressSanitizer (HCUBE_SANITIZE=${HCUBE_SANITIZE}) misses memory errors")
  endif()
  message(STATUS "hcube: fuzz build: the libraries get -fsanitize=fuzzer-no-link")
  target_compile_options(hcube_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()

if(HCUBE_FUZZ OR HCUBE_BUILD_TESTS)
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/fuzz ${PROJECT_BINARY_DIR}/tests/fuzz)
endif()
