# Linux desktop integration and the .deb / .tar.gz settings.
set(_fathom_linux ${CMAKE_CURRENT_LIST_DIR}/linux)
set(_fathom_icons ${CMAKE_SOURCE_DIR}/resources/icons)

install(FILES ${_fathom_linux}/fathom.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${_fathom_linux}/fathom-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME fathom.xml)
set(_fathom_hicolor ${CMAKE_INSTALL_DATADIR}/icons/hicolor)
install(FILES ${_fathom_icons}/fathom.svg DESTINATION ${_fathom_hicolor}/scalable/apps)
# Trace files in file managers get the app icon (the type's default icon name).
install(FILES ${_fathom_icons}/fathom.svg DESTINATION ${_fathom_hicolor}/scalable/mimetypes
        RENAME application-x-perfetto-trace.svg)

# PNG sizes for desktops that do not render SVG icons, rendered at build time
# with Qt's SVG renderer (no rsvg/inkscape dependency).
if(TARGET Qt6::Svg AND TARGET Qt6::Gui)
  add_executable(fathom-icon-render ${CMAKE_CURRENT_LIST_DIR}/tools/icon_render.cc)
  target_link_libraries(fathom-icon-render PRIVATE Qt6::Gui Qt6::Svg)
  set(_fathom_pngs "")
  foreach(size 16 22 24 32 48 64 128 256)
    set(_png ${CMAKE_BINARY_DIR}/packaging/hicolor/${size}x${size}/apps/fathom.png)
    add_custom_command(
      OUTPUT ${_png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging/hicolor/${size}x${size}/apps
      COMMAND fathom-icon-render png ${_fathom_icons}/fathom.svg ${_png} ${size}
      DEPENDS fathom-icon-render ${_fathom_icons}/fathom.svg
      COMMENT "Rendering fathom.png ${size}x${size}"
      VERBATIM)
    list(APPEND _fathom_pngs ${_png})
    install(FILES ${_png} DESTINATION ${_fathom_hicolor}/${size}x${size}/apps)
  endforeach()
  add_custom_target(fathom_icons ALL DEPENDS ${_fathom_pngs})
endif()

# Debian 12 installs udev rules under /lib/udev/rules.d (== /usr/lib/udev/
# rules.d on merged /usr); the portable archive carries the file for copying.
set(FATHOM_UDEV_RULES_DIR lib/udev/rules.d CACHE STRING "Where the adb udev rule is installed")
install(FILES ${_fathom_linux}/70-fathom-adb.rules DESTINATION ${FATHOM_UDEV_RULES_DIR})

set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_SYSTEM_NAME Linux-${CMAKE_SYSTEM_PROCESSOR})  # archive name: fathom-VERSION-Linux-x86_64
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${_fathom_linux}/postinst)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Runtime libraries come from Debian, never bundled: the Debian 12 packages
# of every library the binaries link (tests/packaging checks each NEEDED
# entry against this list, so a new link fails there, not on a user's
# machine), plus libqt6svg6 whose SVG icon engine is a plugin, not linked.
set(_fathom_deps libc6 libstdc++6 libgcc-s1 libsqlite3-0 zlib1g libzstd1 libprotobuf32)
if(FATHOM_BUILD_ADB)
  list(APPEND _fathom_deps libusb-1.0-0 libssl3)
  # Sync v2 compression codecs adb/ found (libzstd1 is already listed).
  get_property(_adb_deb_deps GLOBAL PROPERTY FATHOM_ADB_DEB_DEPS)
  list(APPEND _fathom_deps ${_adb_deb_deps})
  list(REMOVE_DUPLICATES _fathom_deps)
endif()
if(TARGET fathom)
  list(APPEND _fathom_deps libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 libqt6concurrent6
       libqt6printsupport6 libqcustomplot2.1-qt6 libglx0 libopengl0)
endif()
list(JOIN _fathom_deps ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# Versioned dependencies from dpkg-shlibdeps, for packages meant for other
# releases; off by default because it takes ~15 s per package build.
option(FATHOM_DEB_SHLIBDEPS "Add dpkg-shlibdeps' versioned dependencies to the .deb" OFF)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ${FATHOM_DEB_SHLIBDEPS})
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "desktop-file-utils, shared-mime-info")
