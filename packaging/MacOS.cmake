# macOS: fathom.app (Qt deployed into the bundle by macdeployqt, through Qt's
# deploy script) on a DragNDrop disk image. Not built here; see README.md.
if(NOT TARGET fathom)
  message(WARNING "Packaging: no fathom GUI target, so no app bundle")
  return()
endif()
set_target_properties(fathom PROPERTIES
  MACOSX_BUNDLE ON
  MACOSX_BUNDLE_BUNDLE_NAME Fathom
  MACOSX_BUNDLE_GUI_IDENTIFIER org.fathom.Fathom
  MACOSX_BUNDLE_BUNDLE_VERSION ${PROJECT_VERSION}
  MACOSX_BUNDLE_SHORT_VERSION_STRING ${PROJECT_VERSION})
# fathom-cli ships inside the bundle so the image holds a single item.
install(TARGETS fathom-cli RUNTIME DESTINATION fathom.app/Contents/MacOS)
qt_generate_deploy_app_script(TARGET fathom OUTPUT_SCRIPT _fathom_deploy
                              NO_UNSUPPORTED_PLATFORM_ERROR)
install(SCRIPT ${_fathom_deploy})
set(CPACK_GENERATOR DragNDrop)
set(CPACK_DMG_VOLUME_NAME Fathom)
