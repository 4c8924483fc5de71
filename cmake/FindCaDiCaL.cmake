# Finds the CaDiCaL SAT solver as a library (Debian: libcadical-dev), which
# hcube synthesize links (host/synthesize/). Sets CaDiCaL_FOUND and the imported
# target CaDiCaL::CaDiCaL. Optional: without it the synthesizer refuses with
# one line naming the missing library, and its tests skip.
find_path(CaDiCaL_INCLUDE_DIR cadical.hpp)
find_library(CaDiCaL_LIBRARY cadical)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CaDiCaL REQUIRED_VARS CaDiCaL_LIBRARY CaDiCaL_INCLUDE_DIR)
if(CaDiCaL_FOUND AND NOT TARGET CaDiCaL::CaDiCaL)
  add_library(CaDiCaL::CaDiCaL UNKNOWN IMPORTED)
  set_target_properties(CaDiCaL::CaDiCaL PROPERTIES IMPORTED_LOCATION "${CaDiCaL_LIBRARY}")
  target_include_directories(CaDiCaL::CaDiCaL SYSTEM INTERFACE "${CaDiCaL_INCLUDE_DIR}")
endif()
mark_as_advanced(CaDiCaL_INCLUDE_DIR CaDiCaL_LIBRARY)
