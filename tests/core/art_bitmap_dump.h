// An ART-style HPROF made byte by byte with android.graphics.Bitmap objects
// in the three states a real dump has them (no real Android dump with
// bitmaps is in the shared test data):
//   - @0x1001 (32 x 32): pixels as a PNG in Bitmap$DumpData (Android 14+
//     `am dumpheap -b png`), matched by mNativePtr;
//   - @0x1002 (40 x 30): native pixels only, not in the dump;
//   - @0x1003 and @0x1004 (3 x 2): raw RGB_565 pixels in equal mBuffer
//     byte[]s (Android 7 and older), so also a duplicate bitmap.
// Shared by the core tests and the heap explorer's GUI test.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace fathom::testing {

inline std::string ArtBitmapPng() {
  static const char kHex[] =
      "89504e470d0a1a0a0000000d4948445200000020000000200806000000737a7af4000000704944415478daedce5d"
      "0d80"
      "301843d1c9a908442011398898081c8c77c2c6f753922de94dfadc532ad032c3b1a55604104000efa1a5df009ea8"
      "804c"
      "eb03188501cc04981780bdb6de985d275e27800043000bd13b3701b288d1f93a8008e4eb3804b022ace721c0739e"
      "3301"
      "049812700352e54e2fd6a904bc0000000049454e44ae426082";
  std::string out;
  for (size_t i = 0; kHex[i] && kHex[i + 1]; i += 2)
    out += char(std::stoi(std::string(kHex + i, 2), nullptr, 16));
  return out;
}

// The RGB_565 pixels of @0x1003 / @0x1004: red, green, blue / white, black, grey.
inline std::string ArtBitmapRgb565() {
  const uint16_t px[] = {0xF800, 0x07E0, 0x001F, 0xFFFF, 0x0000, 0x8410};
  std::string out;
  for (uint16_t p : px) out += char(p & 0xFF), out += char(p >> 8);  // little-endian words
  return out;
}

inline std::string ArtBitmapDump() {
  std::string file("JAVA PROFILE 1.0.3", 19);  // with its NUL
  auto u4 = [](std::string& out, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out += char((v >> s) & 0xFF);
  };
  auto u8 = [&](std::string& out, uint64_t v) { u4(out, uint32_t(v >> 32)), u4(out, uint32_t(v)); };
  auto u2 = [](std::string& out, uint16_t v) { out += char(v >> 8), out += char(v & 0xFF); };
  auto record = [&](uint8_t tag, const std::string& body) {
    file += char(tag);
    u4(file, 0);
    u4(file, uint32_t(body.size()));
    file += body;
  };
  u4(file, 4);                        // id size
  u4(file, 0x18B), u4(file, 0x1000);  // milliseconds
  const std::vector<std::string> names = {"",
                                          "java.lang.Object",
                                          "android.graphics.Bitmap",
                                          "android.graphics.Bitmap$DumpData",
                                          "byte[]",
                                          "long[]",
                                          "byte[][]",
                                          "mBuffer",
                                          "mNativePtr",
                                          "mWidth",
                                          "mHeight",
                                          "dumpData",
                                          "count",
                                          "format",
                                          "natives",
                                          "buffers",
                                          "app"};
  auto id = [&](const char* n) {
    for (uint32_t i = 1; i < names.size(); ++i)
      if (names[i] == n) return i;
    return 0u;
  };
  for (uint32_t i = 1; i < names.size(); ++i) {
    std::string b;
    u4(b, i);
    record(0x01, b + names[i]);
  }
  // Classes: ids 0x100 + name id.
  for (const char* c : {"java.lang.Object", "android.graphics.Bitmap",
                        "android.graphics.Bitmap$DumpData", "byte[]", "long[]", "byte[][]"}) {
    std::string b;
    u4(b, 1), u4(b, 0x100 + id(c)), u4(b, 0), u4(b, id(c));
    record(0x02, b);
  }
  std::string seg;
  auto sub = [&](uint8_t tag, std::initializer_list<uint32_t> words) {
    seg += char(tag);
    for (uint32_t w : words) u4(seg, w);
  };
  const uint32_t object = 0x100 + id("java.lang.Object"),
                 bitmap = 0x100 + id("android.graphics.Bitmap"),
                 dump_data = 0x100 + id("android.graphics.Bitmap$DumpData");
  sub(0xFE, {1, id("app")});
  // CLASS_DUMP: id, serial, super, loader, signers, domain, 2 reserved, size;
  // then constant pool, statics, instance fields.
  auto class_dump = [&](uint32_t cls, uint32_t super, uint32_t size,
                        std::vector<std::pair<const char*, uint32_t>> statics,
                        std::vector<std::pair<const char*, uint8_t>> fields) {
    sub(0x20, {cls, 0, super, 0, 0, 0, 0, 0, size});
    u2(seg, 0);
    u2(seg, uint16_t(statics.size()));
    for (auto [n, v] : statics) u4(seg, id(n)), seg += char(2), u4(seg, v);
    u2(seg, uint16_t(fields.size()));
    for (auto [n, t] : fields) u4(seg, id(n)), seg += char(t);
  };
  class_dump(object, 0, 0, {}, {});
  // Bitmap: mBuffer (object), mNativePtr (long), mWidth, mHeight (int).
  class_dump(bitmap, object, 20, {{"dumpData", 0x2000}},
             {{"mBuffer", 2}, {"mNativePtr", 11}, {"mWidth", 10}, {"mHeight", 10}});
  class_dump(dump_data, object, 16, {},
             {{"count", 10}, {"format", 10}, {"natives", 2}, {"buffers", 2}});
  for (const char* c : {"byte[]", "long[]", "byte[][]"})
    class_dump(0x100 + id(c), object, 0, {}, {});
  auto instance_bitmap = [&](uint32_t obj, uint32_t buffer, uint64_t native, uint32_t w,
                             uint32_t h) {
    sub(0x21, {obj, 0, bitmap, 20});
    u4(seg, buffer), u8(seg, native), u4(seg, w), u4(seg, h);
    sub(0x01, {obj, 0});  // JNI global root
  };
  auto bytes = [&](uint32_t obj, const std::string& data) {
    sub(0x23, {obj, 0, uint32_t(data.size())});
    seg += char(8);
    seg += data;
  };
  instance_bitmap(0x1001, 0, 0xAAAA0001, 32, 32);
  instance_bitmap(0x1002, 0, 0xAAAA0002, 40, 30);
  instance_bitmap(0x1003, 0x3003, 0, 3, 2);
  instance_bitmap(0x1004, 0x3004, 0, 3, 2);
  bytes(0x3003, ArtBitmapRgb565());
  bytes(0x3004, ArtBitmapRgb565());
  // Bitmap.dumpData: one native (0x1001's) and its PNG.
  sub(0x21, {0x2000, 0, dump_data, 16});
  u4(seg, 1), u4(seg, 1), u4(seg, 0x2001), u4(seg, 0x2002);
  sub(0x23, {0x2001, 0, 1});
  seg += char(11);
  u8(seg, 0xAAAA0001);
  sub(0x22, {0x2002, 0, 1, 0x100 + id("byte[][]"), 0x2003});
  bytes(0x2003, ArtBitmapPng());
  sub(0x05, {bitmap});  // sticky class: the static dumpData is reachable
  record(0x1C, seg);
  record(0x2C, "");
  return file;
}

}  // namespace fathom::testing
