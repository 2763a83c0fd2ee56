# CMake toolchain for cross-building Fathom for 64-bit Windows with Debian's
# mingw-w64 (posix thread model: std::thread and std::mutex need it).
#   cmake -DCMAKE_TOOLCHAIN_FILE=scripts/windows/mingw-w64.cmake ...
# FATHOM_WIN_DEPS (cache var or environment) names the dependency prefix that
# scripts/windows/build-deps.sh filled; it is searched before the sysroot.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_triple x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${_triple}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_triple}-g++-posix)
set(CMAKE_RC_COMPILER ${_triple}-windres)
set(CMAKE_AR ${_triple}-gcc-ar-posix CACHE FILEPATH "")
set(CMAKE_RANLIB ${_triple}-gcc-ranlib-posix CACHE FILEPATH "")

if(NOT FATHOM_WIN_DEPS AND DEFINED ENV{FATHOM_WIN_DEPS})
  set(FATHOM_WIN_DEPS "$ENV{FATHOM_WIN_DEPS}")
endif()
set(FATHOM_WIN_DEPS "${FATHOM_WIN_DEPS}" CACHE PATH "Prefix of the mingw-built dependencies")

# FATHOM_WIN_QT: the Qt prefix that scripts/windows/build-qt-deps.sh filled (GUI builds).
if(NOT FATHOM_WIN_QT AND DEFINED ENV{FATHOM_WIN_QT})
  set(FATHOM_WIN_QT "$ENV{FATHOM_WIN_QT}")
endif()
set(FATHOM_WIN_QT "${FATHOM_WIN_QT}" CACHE PATH "Prefix of the mingw-built Qt and QCustomPlot")

set(CMAKE_FIND_ROOT_PATH ${FATHOM_WIN_DEPS} ${FATHOM_WIN_QT} /usr/${_triple})
# Programs (protoc) come from the build machine; headers and libraries only from the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static archives first: the folder then needs no dependency DLLs.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a .dll.a .lib)
# pkg-config must see the target's .pc files only, never the build machine's: run
# cmake with PKG_CONFIG_LIBDIR=${FATHOM_WIN_DEPS}/lib/pkgconfig in the environment
# (scripts/windows/build.sh does), so ninja's re-configures see it too.

# One folder that runs from anywhere: no libstdc++/libgcc/libwinpthread DLLs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
