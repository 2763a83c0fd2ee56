# Windows: NSIS installer and a zip, Qt deployed next to the executables by
# windeployqt (through Qt's deploy script). Not built here; see README.md.
if(NOT TARGET fathom)
  message(WARNING "Packaging: no fathom GUI target, so no Qt deployment")
  return()
endif()
set_target_properties(fathom PROPERTIES WIN32_EXECUTABLE ON)
qt_generate_deploy_app_script(TARGET fathom OUTPUT_SCRIPT _fathom_deploy
                              NO_UNSUPPORTED_PLATFORM_ERROR)
install(SCRIPT ${_fathom_deploy})
# Non-Qt DLLs the executables link (libusb, protobuf, sqlite, zlib, zstd,
# OpenSSL from vcpkg), which windeployqt does not copy.
install(FILES $<TARGET_RUNTIME_DLLS:fathom> $<TARGET_RUNTIME_DLLS:fathom-cli>
        DESTINATION ${CMAKE_INSTALL_BINDIR})
set(CPACK_GENERATOR "NSIS;ZIP")
set(CPACK_PACKAGE_EXECUTABLES fathom Fathom)
set(CPACK_NSIS_DISPLAY_NAME Fathom)
set(CPACK_NSIS_PACKAGE_NAME Fathom)
set(CPACK_NSIS_INSTALLED_ICON_NAME bin\\\\fathom.exe)
set(CPACK_NSIS_MODIFY_PATH ON)
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
