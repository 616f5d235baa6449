# `cmake --install`: the public headers, tilesched::engine and
# tilesched::graphgen (static libraries), the tilesched command line, the
# CMake package (tileschedConfig.cmake, tileschedConfigVersion.cmake and the
# exported tilesched:: targets) and a pkg-config file. Internal targets
# (engine_internal, the sweep harness, the warnings) stay in the build tree.
# README.md "Using tilesched from another project" shows both ways in.
include(CMakePackageConfigHelpers)

set(TILESCHED_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilesched)
set(_tilesched_libs tilesched_engine)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/ TYPE INCLUDE)
if(TILESCHED_BUILD_GRAPHGEN)
  list(APPEND _tilesched_libs tilesched_graphgen)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/generators/include/ TYPE INCLUDE)
endif()
install(TARGETS ${_tilesched_libs} EXPORT tileschedTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TILESCHED_BUILD_CLI)
  # The command line as tilesched::cli, for $<TARGET_FILE:tilesched::cli>.
  set_target_properties(tilesched PROPERTIES EXPORT_NAME cli)
  install(TARGETS tilesched EXPORT tileschedTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT tileschedTargets NAMESPACE tilesched:: DESTINATION ${TILESCHED_CMAKE_DIR})

set(TILESCHED_WITH_GRAPHGEN ${TILESCHED_BUILD_GRAPHGEN})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tileschedConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tileschedConfig.cmake INSTALL_DESTINATION ${TILESCHED_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tileschedConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tileschedConfig.cmake
  ${PROJECT_BINARY_DIR}/tileschedConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/FindCaDiCaL.cmake DESTINATION ${TILESCHED_CMAKE_DIR})

# pkg-config: `pkg-config --cflags --libs tilesched` (relocatable: paths are
# relative to the .pc file).
file(RELATIVE_PATH TILESCHED_PC_TO_PREFIX
  /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" TILESCHED_PC_TO_PREFIX "${TILESCHED_PC_TO_PREFIX}")
if(TILESCHED_BUILD_GRAPHGEN)
  set(TILESCHED_PC_LIBS "-ltilesched_graphgen -ltilesched_engine -lcadical")
  set(TILESCHED_PC_REQUIRES "z3 pugixml")
else()
  set(TILESCHED_PC_LIBS "-ltilesched_engine -lcadical")
  set(TILESCHED_PC_REQUIRES "z3")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/tilesched.pc.in ${PROJECT_BINARY_DIR}/tilesched.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tilesched.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
