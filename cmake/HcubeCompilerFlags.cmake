# Warnings, warnings-as-errors and sanitizers, carried by one interface
# target that every project target links privately.
add_library(hcube_flags INTERFACE)

set(_hcube_cxx_warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
target_compile_options(hcube_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${_hcube_cxx_warnings}>)
if(HCUBE_WARNINGS_AS_ERRORS)
  target_compile_options(hcube_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings>)
endif()
target_compile_options(hcube_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)

if(HCUBE_SANITIZE)
  message(STATUS "hcube: building with -fsanitize=${HCUBE_SANITIZE}")
  target_compile_options(hcube_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${HCUBE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
  target_link_options(hcube_flags INTERFACE -fsanitize=${HCUBE_SANITIZE})
endif()
