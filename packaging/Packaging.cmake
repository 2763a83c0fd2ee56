# Install layout and CPack packages (issue 10). Included at the END of the
# top-level CMakeLists.txt so every target (device/ included) exists by now.
#
#   bin/fathom, bin/fathom-cli
#   share/fathom/device/<abi>/      programs and libraries pushed to a device
#   share/fathom/sample/            the bundled sample trace
#   share/doc/fathom/               README and the notices of what ships
#   share/applications, share/mime/packages, share/icons/hicolor (Linux)
#   lib/udev/rules.d                adb access for the logged-in user (Linux)
#
# `cpack -G DEB` / `-G TGZ` in the build dir packages what is already built;
# packaging/README.md has the commands, also for Windows and macOS.
include(GNUInstallDirs)

# Device programs are installed per ABI, named as Android names them, so the
# recorder pushes share/fathom/device/<device abi>/ unchanged.
if(ANDROID_ABI)
  set(FATHOM_DEVICE_ABI ${ANDROID_ABI})
else()
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" _fathom_cpu)
  if(_fathom_cpu MATCHES "^(x86_64|amd64|x64)$")
    set(FATHOM_DEVICE_ABI x86_64)
  elseif(_fathom_cpu MATCHES "^(aarch64|arm64)")
    set(FATHOM_DEVICE_ABI arm64-v8a)
  elseif(_fathom_cpu MATCHES "^arm")
    set(FATHOM_DEVICE_ABI armeabi-v7a)
  elseif(_fathom_cpu MATCHES "^(i.86|x86)$")
    set(FATHOM_DEVICE_ABI x86)
  else()
    set(FATHOM_DEVICE_ABI ${_fathom_cpu})
  endif()
endif()
set(FATHOM_DEVICE_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/fathom/device/${FATHOM_DEVICE_ABI})

if(NOT APPLE)  # MacOS.cmake puts it inside the bundle
  install(TARGETS fathom-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET fathom)
  install(TARGETS fathom
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          BUNDLE DESTINATION .)
endif()

# The list of device files is also written for tests/packaging, which checks
# that the package really contains them.
set(_fathom_device_files "")
foreach(target fathom-recorder fathom-heapprofd fathom_heapprof fathom_jvmti)
  if(TARGET ${target})
    get_target_property(_excluded ${target} EXCLUDE_FROM_ALL)
    if(_excluded)
      continue()  # not built by default, so not packaged
    endif()
    install(TARGETS ${target}
            RUNTIME DESTINATION ${FATHOM_DEVICE_INSTALL_DIR}
            LIBRARY DESTINATION ${FATHOM_DEVICE_INSTALL_DIR})
    list(APPEND _fathom_device_files
         "${FATHOM_DEVICE_INSTALL_DIR}/$<TARGET_FILE_NAME:${target}>")
  endif()
endforeach()
list(JOIN _fathom_device_files "\n" _fathom_device_files)
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/packaging/device-files.txt
     CONTENT "${_fathom_device_files}\n")

set(_fathom_doc ${CMAKE_INSTALL_DATAROOTDIR}/doc/fathom)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${_fathom_doc})
foreach(license LICENSE COPYING NOTICE)
  if(EXISTS ${CMAKE_SOURCE_DIR}/${license})
    install(FILES ${CMAKE_SOURCE_DIR}/${license} DESTINATION ${_fathom_doc})
  endif()
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/resources/sample/sample.pftrace
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fathom/sample)
install(FILES ${CMAKE_SOURCE_DIR}/resources/sample/NOTICE
        DESTINATION ${_fathom_doc}/sample)

if(UNIX AND NOT APPLE)
  include(${CMAKE_CURRENT_LIST_DIR}/Linux.cmake)
elseif(WIN32)
  include(${CMAKE_CURRENT_LIST_DIR}/Windows.cmake)
elseif(APPLE)
  include(${CMAKE_CURRENT_LIST_DIR}/MacOS.cmake)
endif()

set(CPACK_PACKAGE_NAME fathom)
set(CPACK_PACKAGE_VENDOR "Fathom")
set(CPACK_PACKAGE_CONTACT "Fathom developers <fathom@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Perfetto-compatible trace viewer, recorder and flamegraph explorer")
set(CPACK_PACKAGE_DESCRIPTION_FILE ${CMAKE_CURRENT_LIST_DIR}/description.txt)
set(CPACK_RESOURCE_FILE_README ${CMAKE_SOURCE_DIR}/README.md)
set(CPACK_PACKAGE_INSTALL_DIRECTORY Fathom)
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/")
include(CPack)
