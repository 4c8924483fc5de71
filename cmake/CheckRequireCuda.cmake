# ctest hcube_require_cuda: HCUBE_REQUIRE_CUDA=1 makes the CUDA tests fail
# where no CUDA device is usable, rather than skip (tests/support/require.hpp), and
# lets them pass where one is. Runs a few of hcube_tests' CUDA tests with the
# variable set and checks the outcome against `hcube info --json`'s gpu_present.
#   cmake -DTESTS=<hcube_tests> -DHCUBE=<hcube> -P CheckRequireCuda.cmake
set(filter "Backends/MachineTest.*/cuda:CudaStream.*")
execute_process(COMMAND ${HCUBE} info --json OUTPUT_VARIABLE info RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${HCUBE} info --json failed (${rc})")
endif()
string(JSON gpu GET "${info}" gpu_present)
execute_process(COMMAND ${CMAKE_COMMAND} -E env HCUBE_REQUIRE_CUDA=1 ${TESTS} --gtest_filter=${filter} --gtest_brief=1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "\\[  PASSED  \\] ([0-9]+) test" passed "${out}")
set(passed "${CMAKE_MATCH_1}")
if(gpu)
  if(NOT rc EQUAL 0 OR NOT passed GREATER 0)
    message(FATAL_ERROR "a GPU is present, yet the CUDA tests did not all pass under HCUBE_REQUIRE_CUDA=1:\n${out}")
  endif()
  message(STATUS "GPU present: ${passed} CUDA tests passed under HCUBE_REQUIRE_CUDA=1")
else()
  if(rc EQUAL 0 OR NOT out MATCHES "HCUBE_REQUIRE_CUDA is set, so this test must run, but it cannot")
    message(FATAL_ERROR "no GPU here, yet the CUDA tests passed (or skipped) under HCUBE_REQUIRE_CUDA=1:\n${out}")
  endif()
  message(STATUS "no GPU: under HCUBE_REQUIRE_CUDA=1 the CUDA tests fail, as they must")
endif()
