# Windows: an NSIS installer (fathom-<version>-win64.exe) and a zip, from the mingw-w64
# cross build (scripts/windows/build.sh, then `cpack` in build-win; Debian's `nsis`
# package provides makensis). The executables are static, so nothing else is copied;
# a GUI build adds Qt's DLLs through Qt's deploy script (windeployqt), or, cross-built,
# those that scripts/windows/deploy-qt.sh put in bin/.
set(CPACK_GENERATOR "NSIS;ZIP")
# Values reach CPackConfig.cmake escaped: without this the NSIS commands below (quotes,
# backslashes) came out as `WriteRegStr HKLM ;Software\Classes\Fathom.Trace" ...`, so the
# file association was never written. (Only the Windows build: the source package's
# ignore patterns in Packaging.cmake are written for the unescaped form.)
set(CPACK_VERBATIM_VARIABLES ON)
set(CPACK_PACKAGE_FILE_NAME "fathom-${PROJECT_VERSION}-win64")
set(CPACK_NSIS_DISPLAY_NAME Fathom)
set(CPACK_NSIS_PACKAGE_NAME Fathom)
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
# 64-bit program folder (the default is the 32-bit one).
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
# A 64-bit installer (NSIS's amd64-unicode stubs, shipped by Debian's nsis-common): Fathom
# is 64-bit only, its registry entries land in the 64-bit view without SetRegView, and
# the installer runs under wine64 alone (the default x86 stub needs a 32-bit Wine).
# CPack's NSIS template puts CPACK_NSIS_DEFINES in its header, where Target may still
# go. (CPACK_NSIS_EXECUTABLE_PRE_ARGUMENTS cannot carry `-XTarget amd64-unicode`: CPack
# splits it at the space or keeps the quotes.)
set(CPACK_NSIS_DEFINES "Target amd64-unicode")
# bin/ on the PATH so fathom-cli works from any console (a page in the installer;
# the silent install follows CPACK_NSIS_MODIFY_PATH's default, i.e. not added).
set(CPACK_NSIS_MODIFY_PATH ON)
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_MUI_FINISHPAGE_RUN "")
set(CPACK_NSIS_HELP_LINK "https://fathom.invalid/")

if(NOT TARGET fathom)
  message(STATUS "Packaging: no GUI target; the Windows installer holds fathom-cli only")
  return()
endif()

set_target_properties(fathom PROPERTIES WIN32_EXECUTABLE ON)
if(CMAKE_CROSSCOMPILING)
  # Debian's Qt has no windeployqt for a Linux host (Qt's deploy script would stop
  # there): scripts/windows/deploy-qt.sh has put the DLLs and plugins next to
  # fathom.exe in bin/, and they ship as they are.
  install(DIRECTORY ${CMAKE_BINARY_DIR}/bin/ DESTINATION bin FILES_MATCHING PATTERN "*.dll")
else()
  qt_generate_deploy_app_script(TARGET fathom OUTPUT_SCRIPT _fathom_deploy
                                NO_UNSUPPORTED_PLATFORM_ERROR)
  install(SCRIPT ${_fathom_deploy})
endif()
# Start menu entry for the window.
set(CPACK_PACKAGE_EXECUTABLES fathom Fathom)
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\fathom.exe")
# The installer and uninstaller wear the app's icon, when the build rendered one
# (resources/icon_pngs.cmake; fathom.exe carries it as its own resource too).
get_property(_fathom_ico GLOBAL PROPERTY FATHOM_APP_ICO)
if(_fathom_ico)
  set(CPACK_NSIS_MUI_ICON ${_fathom_ico})
  set(CPACK_NSIS_MUI_UNIICON ${_fathom_ico})
endif()
# .perfetto-trace and .pftrace open in Fathom (HKLM, as the installer runs elevated).
set(CPACK_NSIS_EXTRA_INSTALL_COMMANDS [=[
  WriteRegStr HKLM "Software\Classes\Fathom.Trace" "" "Perfetto trace"
  WriteRegStr HKLM "Software\Classes\Fathom.Trace\DefaultIcon" "" "$INSTDIR\bin\fathom.exe,0"
  WriteRegStr HKLM "Software\Classes\Fathom.Trace\shell\open\command" "" '"$INSTDIR\bin\fathom.exe" "%1"'
  WriteRegStr HKLM "Software\Classes\.perfetto-trace" "" "Fathom.Trace"
  WriteRegStr HKLM "Software\Classes\.pftrace" "" "Fathom.Trace"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
]=])
set(CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS [=[
  DeleteRegKey HKLM "Software\Classes\Fathom.Trace"
  ReadRegStr $0 HKLM "Software\Classes\.perfetto-trace" ""
  StrCmp $0 "Fathom.Trace" 0 +2
  DeleteRegKey HKLM "Software\Classes\.perfetto-trace"
  ReadRegStr $0 HKLM "Software\Classes\.pftrace" ""
  StrCmp $0 "Fathom.Trace" 0 +2
  DeleteRegKey HKLM "Software\Classes\.pftrace"
]=])
