# Finds the CaDiCaL SAT solver's library and header (Debian libcadical-dev
# installs /usr/include/cadical.hpp and libcadical.a, with no CMake config
# or pkg-config file) and defines the imported target CaDiCaL::CaDiCaL.
# Hints: CaDiCaL_ROOT, or CADICAL_INCLUDE_DIR and CADICAL_LIBRARY.
find_path(CADICAL_INCLUDE_DIR cadical.hpp)
find_library(CADICAL_LIBRARY NAMES cadical)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CaDiCaL REQUIRED_VARS CADICAL_LIBRARY CADICAL_INCLUDE_DIR)
if(CaDiCaL_FOUND AND NOT TARGET CaDiCaL::CaDiCaL)
  add_library(CaDiCaL::CaDiCaL UNKNOWN IMPORTED)
  set_target_properties(CaDiCaL::CaDiCaL PROPERTIES
    IMPORTED_LOCATION "${CADICAL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CADICAL_INCLUDE_DIR}")
endif()
mark_as_advanced(CADICAL_INCLUDE_DIR CADICAL_LIBRARY)
