#include "core/base/platform.h"

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif

namespace fathom::platform {

uint64_t FileSizeAndRewind(FILE* f) {
  uint64_t size = 0;
#if defined(_WIN32)
  if (_fseeki64(f, 0, SEEK_END) == 0) size = static_cast<uint64_t>(_ftelli64(f));
  _fseeki64(f, 0, SEEK_SET);
#else
  if (fseeko(f, 0, SEEK_END) == 0) size = static_cast<uint64_t>(ftello(f));
  fseeko(f, 0, SEEK_SET);
#endif
  return size;
}

bool StderrIsTerminal() {
#if defined(_WIN32)
  return _isatty(_fileno(stderr)) != 0;
#else
  return isatty(fileno(stderr)) != 0;
#endif
}

}  // namespace fathom::platform
