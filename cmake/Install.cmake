# install: headers, libbudcore.so/.a, budcoreConfig.cmake (+ version file) and budcore.pc.
include(CMakePackageConfigHelpers)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/budcore DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS budcore budcore_static EXPORT budcoreTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT budcoreTargets NAMESPACE budcore:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/budcore)
configure_package_config_file(${PROJECT_SOURCE_DIR}/src/cmake/budcoreConfig.cmake.in
  ${PROJECT_BINARY_DIR}/budcoreConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/budcore)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/budcoreConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/budcoreConfig.cmake ${PROJECT_BINARY_DIR}/budcoreConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/budcore)
# The .pc file locates the prefix from its own directory (pkg-config's ${pcfiledir}): the prefix
# given to `cmake --install --prefix` is not known at configure time.
file(RELATIVE_PATH BUDCORE_PC_PREFIX_FROM_PCDIR "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" BUDCORE_PC_PREFIX_FROM_PCDIR "${BUDCORE_PC_PREFIX_FROM_PCDIR}")
configure_file(${PROJECT_SOURCE_DIR}/src/cmake/budcore.pc.in ${PROJECT_BINARY_DIR}/budcore.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/budcore.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
