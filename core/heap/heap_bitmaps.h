// android.graphics.Bitmap objects of one analysed dump and, where the dump
// holds them, their pixels. Two places hold pixels in an ART dump:
//   - `mBuffer`, a byte[] of raw pixels (Android 7 and older keep pixels
//     in the Java heap): 4 bytes a pixel is ARGB_8888 (R, G, B, A in
//     memory), 2 is RGB_565, 1 is ALPHA_8, decided by the buffer's size
//     over mWidth * mHeight, as the dump names no config;
//   - `Bitmap$DumpData` (Android 14+ `am dumpheap -b png|jpg|webp`): the
//     static `dumpData` holds `natives` (long[]) and `buffers` (byte[][]),
//     each buffer an encoded image of the Bitmap whose mNativePtr is the
//     matching native.
// Otherwise (Android 8+ without -b) the pixels are in native memory, not in
// the dump, and the row says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/heap/heap_analysis.h"
#include "core/heap/heap_contents.h"

namespace fathom {
class TraceStorage;
namespace heap {

struct BitmapRow {
  enum class Source { kNone, kBuffer, kEncoded };
  uint32_t object = kNoObject;  // local index
  int32_t width = 0, height = 0;
  Source source = Source::kNone;
  uint32_t pixels = kNoObject;  // the byte[] with the pixels or the encoded image
  int64_t pixel_bytes = 0;
  std::string format;  // "ARGB_8888", "RGB_565", "ALPHA_8", "encoded (PNG)", ...
  std::string note;    // why there are no pixels (empty when there are)
};

// Reachable Bitmaps, largest retained size first. Without contents (a
// Perfetto heap graph) the sizes are unknown and every note says why.
std::vector<BitmapRow> FindBitmaps(const TraceStorage& s, const HeapAnalysis& a,
                                   const HeapContents* contents);

struct BitmapPixels {
  enum class Format { kArgb8888, kRgb565, kAlpha8, kEncoded };
  Format format = Format::kArgb8888;
  int32_t width = 0, height = 0;
  std::vector<uint8_t> bytes;  // raw rows (width * bpp a row), or the encoded file
};

// Reads the pixels of a row whose source is not kNone back from the file.
Result<BitmapPixels> ReadBitmapPixels(const HeapAnalysis& a, const HeapContents& contents,
                                      const BitmapRow& bitmap);

}  // namespace heap
}  // namespace fathom
