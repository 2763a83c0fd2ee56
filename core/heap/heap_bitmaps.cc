#include "core/heap/heap_bitmaps.h"

#include <algorithm>
#include <unordered_map>

#include "core/heap/heap_duplicates.h"
#include "core/heap/heap_queries.h"
#include "core/storage/trace_storage.h"

namespace fathom::heap {
namespace {

constexpr char kDumpData[] = "android.graphics.Bitmap$DumpData";

// The bytes of a hashed primitive array (local index), or an error.
Result<std::vector<uint8_t>> ArrayBytes(const HeapAnalysis& a, const HeapContents& c, uint32_t v,
                                        uint64_t limit = ~uint64_t{0}) {
  const size_t k = c.IndexOf(a.rows[v]);
  if (k == HeapContents::kNone || k >= c.data_offsets.size() || !c.read_bytes)
    return ErrorStatus("the array's bytes are not in the dump's contents");
  return c.read_bytes(c.data_offsets[k],
                      std::min<uint64_t>(limit, uint64_t(std::max<int64_t>(0, a.self_size[v]))));
}

// Native pointer -> the byte[] holding that bitmap's encoded image, from
// every Bitmap$DumpData in the dump (Android 14+ `am dumpheap -b`).
std::unordered_map<int64_t, uint32_t> EncodedByNative(const TraceStorage& s, const HeapAnalysis& a,
                                                      const HeapContents& c) {
  std::unordered_map<int64_t, uint32_t> out;
  const StringId dump_data = s.strings.Find(kDumpData);
  if (dump_data == kNullStringId) return out;
  const auto& classes = s.profile.heap_graph_class;
  const auto& refs = s.profile.heap_graph_reference;
  const StringId natives_field = s.strings.Find(std::string(kDumpData) + ".natives");
  const StringId buffers_field = s.strings.Find(std::string(kDumpData) + ".buffers");
  for (uint32_t v = 0; v < a.size(); ++v) {
    if (classes.name[a.cls[v]] != dump_data) continue;
    const uint32_t natives = FieldTarget(s, a, v, natives_field);
    const uint32_t buffers = FieldTarget(s, a, v, buffers_field);
    if (natives == kNoObject || buffers == kNoObject) continue;
    auto bytes = ArrayBytes(a, c, natives);
    if (!bytes.ok()) continue;
    auto set = s.profile.heap_graph_object.reference_set_id.Get(a.rows[buffers]);
    for (uint32_t r = set ? *set : refs.row_count();
         r < refs.row_count() && refs.reference_set_id[r] == *set; ++r) {
      std::string_view name = s.GetString(refs.field_name[r]);
      auto owned = refs.owned_id.Get(r);
      if (name.size() < 3 || name[0] != '[' || !owned) continue;
      const size_t i = std::strtoul(std::string(name.substr(1)).c_str(), nullptr, 10);
      if ((i + 1) * 8 > bytes->size()) continue;
      int64_t native = 0;  // HPROF longs are big-endian
      for (size_t b = 0; b < 8; ++b) native = (native << 8) | (*bytes)[i * 8 + b];
      const uint32_t target = a.LocalOfRow(*owned);
      if (native != 0 && target != kNoObject) out.emplace(native, target);
    }
  }
  return out;
}

std::string EncodedFormat(const std::vector<uint8_t>& head) {
  auto starts = [&](std::string_view magic, size_t at = 0) {
    return head.size() >= at + magic.size() &&
           std::equal(magic.begin(), magic.end(), head.begin() + std::ptrdiff_t(at),
                      [](char m, uint8_t b) { return uint8_t(m) == b; });
  };
  if (starts("\x89PNG")) return "encoded (PNG)";
  if (starts("\xFF\xD8\xFF")) return "encoded (JPEG)";
  if (starts("RIFF") && starts("WEBP", 8)) return "encoded (WEBP)";
  return "encoded";
}

// Fills source, pixels, format and note of a Bitmap whose fields were read.
void Classify(const TraceStorage& s, const HeapAnalysis& a, const HeapContents& c,
              const std::unordered_map<int64_t, uint32_t>& encoded, StringId buffer_field,
              BitmapRow& row) {
  const int64_t native = c.BitmapOf(a.rows[row.object])->native_ptr;
  if (auto it = encoded.find(native); native != 0 && it != encoded.end()) {
    row.source = BitmapRow::Source::kEncoded;
    row.pixels = it->second;
    row.pixel_bytes = a.self_size[it->second];
    auto head = ArrayBytes(a, c, it->second, 16);
    row.format = head.ok() ? EncodedFormat(*head) : "encoded";
    return;
  }
  const uint32_t buffer = FieldTarget(s, a, row.object, buffer_field);
  const int64_t pixels = int64_t(row.width) * row.height;
  if (buffer == kNoObject) {
    row.note =
        "pixels not in the dump: Android 8+ keeps them in native memory "
        "(Android 14+: take the dump with `am dumpheap -b png`)";
    return;
  }
  row.pixels = buffer;
  row.pixel_bytes = a.self_size[buffer];
  if (pixels <= 0) {
    row.note = "mBuffer present, but the width or height is 0";
    return;
  }
  const int64_t bpp = row.pixel_bytes / pixels;
  row.format = bpp >= 4 ? "ARGB_8888" : bpp == 2 ? "RGB_565" : bpp == 1 ? "ALPHA_8" : "";
  if (row.format.empty() || c.IndexOf(a.rows[buffer]) == HeapContents::kNone) {
    row.note = row.format.empty()
                   ? "mBuffer holds " + std::to_string(row.pixel_bytes) + " bytes, too few for " +
                         std::to_string(row.width) + " x " + std::to_string(row.height) + " pixels"
                   : "mBuffer's bytes are not in the dump";
    return;
  }
  row.source = BitmapRow::Source::kBuffer;
}

}  // namespace

std::vector<BitmapRow> FindBitmaps(const TraceStorage& s, const HeapAnalysis& a,
                                   const HeapContents* contents) {
  std::vector<BitmapRow> out;
  const auto bitmaps = DerivesFrom(s, {"android.graphics.Bitmap"});
  if (std::find(bitmaps.begin(), bitmaps.end(), 1) == bitmaps.end()) return out;
  std::unordered_map<int64_t, uint32_t> encoded;
  if (contents) encoded = EncodedByNative(s, a, *contents);
  const StringId buffer_field = s.strings.Find("android.graphics.Bitmap.mBuffer");
  for (uint32_t v = 0; v < a.size(); ++v) {
    if (!a.reachable(v) || a.cls[v] >= bitmaps.size() || !bitmaps[a.cls[v]]) continue;
    BitmapRow row;
    row.object = v;
    const BitmapFields* f = contents ? contents->BitmapOf(a.rows[v]) : nullptr;
    if (!f) {
      row.note = contents ? "this object's fields were not read"
                          : "the dump's contents were not read (a Perfetto heap graph has "
                            "none; an HPROF file is read again from where it was loaded)";
    } else {
      row.width = f->width, row.height = f->height;
      Classify(s, a, *contents, encoded, buffer_field, row);
    }
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [&](const BitmapRow& x, const BitmapRow& y) {
    return a.retained_size[x.object] > a.retained_size[y.object];
  });
  return out;
}

Result<BitmapPixels> ReadBitmapPixels(const HeapAnalysis& a, const HeapContents& contents,
                                      const BitmapRow& bitmap) {
  if (bitmap.source == BitmapRow::Source::kNone || bitmap.pixels == kNoObject)
    return ErrorStatus(bitmap.note.empty() ? "no pixels in the dump" : bitmap.note);
  auto bytes = ArrayBytes(a, contents, bitmap.pixels);
  if (!bytes.ok()) return bytes.status();
  BitmapPixels p;
  p.width = bitmap.width, p.height = bitmap.height;
  p.bytes = std::move(*bytes);
  if (bitmap.source == BitmapRow::Source::kEncoded) {
    p.format = BitmapPixels::Format::kEncoded;
    return p;
  }
  const int64_t bpp = int64_t(p.bytes.size()) / (int64_t(p.width) * p.height);
  p.format = bpp >= 4   ? BitmapPixels::Format::kArgb8888
             : bpp == 2 ? BitmapPixels::Format::kRgb565
                        : BitmapPixels::Format::kAlpha8;
  return p;
}

}  // namespace fathom::heap
