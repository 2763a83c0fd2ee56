# The icons as PNGs, for a Qt without QtSvg (the Windows cross build's: Debian's
# qt6-svg source tarballs are gone, packaging/README.md). FATHOM_ICON_RENDER is a
# fathom-icon-render that runs on the build machine (scripts/windows/build.sh
# builds it from packaging/tools/); each resources/icons/NAME.svg becomes
# :/icons/NAME.png at 24 px and :/icons/NAME@2x.png at 48 px, which
# widgets/common/resource_icon.h loads when the .svg is not there. Also renders
# the Windows .exe icon (fathom.ico). Sets, for the caller:
#   FATHOM_ICON_PNG_SOURCES  the compiled resource (.cpp) to add to the executable
#   FATHOM_ICON_ICO          the .ico, also as GLOBAL property FATHOM_APP_ICO
set(FATHOM_ICON_RENDER "" CACHE FILEPATH
    "fathom-icon-render for the build machine: PNG icons when Qt has no QtSvg")
set(FATHOM_ICON_PNG_SOURCES "")
set(FATHOM_ICON_ICO "")
if(NOT FATHOM_ICON_RENDER)
  message(WARNING "Qt has no QtSvg and FATHOM_ICON_RENDER is not set: the icons stay blank")
  return()
endif()

set(_icons_src ${CMAKE_SOURCE_DIR}/resources/icons)
set(_icons_out ${CMAKE_BINARY_DIR}/icon-pngs)
file(GLOB _svgs CONFIGURE_DEPENDS ${_icons_src}/*.svg)
set(_qrc_lines "")
set(_pngs "")
foreach(_svg IN LISTS _svgs)
  get_filename_component(_name ${_svg} NAME_WE)
  foreach(_variant "24;" "48;@2x")
    list(GET _variant 0 _size)
    list(GET _variant 1 _suffix)
    set(_png ${_icons_out}/icons/${_name}${_suffix}.png)
    add_custom_command(
      OUTPUT ${_png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_icons_out}/icons
      COMMAND ${FATHOM_ICON_RENDER} png ${_svg} ${_png} ${_size}
      DEPENDS ${_svg}
      COMMENT "Rendering ${_name}${_suffix}.png"
      VERBATIM)
    list(APPEND _pngs ${_png})
    string(APPEND _qrc_lines "  <file>icons/${_name}${_suffix}.png</file>\n")
  endforeach()
endforeach()
set(_qrc ${_icons_out}/fathom_pngs.qrc)
file(CONFIGURE OUTPUT ${_qrc} CONTENT
     "<!DOCTYPE RCC>\n<RCC version=\"1.0\">\n<qresource prefix=\"/\">\n${_qrc_lines}</qresource>\n</RCC>\n")
# rcc runs after the PNGs exist: qt6_add_resources makes its command depend on the
# files the .qrc lists, and those are this directory's custom command outputs.
qt6_add_resources(FATHOM_ICON_PNG_SOURCES ${_qrc})

# The .exe's icon, the sizes Windows' shell and taskbar ask for.
set(FATHOM_ICON_ICO ${_icons_out}/fathom.ico)
add_custom_command(
  OUTPUT ${FATHOM_ICON_ICO}
  COMMAND ${FATHOM_ICON_RENDER} ico ${_icons_src}/fathom.svg ${FATHOM_ICON_ICO} 16 24 32 48 64 128 256
  DEPENDS ${_icons_src}/fathom.svg
  COMMENT "Rendering fathom.ico"
  VERBATIM)
set_property(GLOBAL PROPERTY FATHOM_APP_ICO ${FATHOM_ICON_ICO})
