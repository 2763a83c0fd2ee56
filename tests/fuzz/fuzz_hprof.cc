// libFuzzer target: HPROF heap dumps. Inputs that already start with an
// HPROF header load as they are; any other input becomes the records of a
// dump behind a valid header (8-byte ids when its first byte is odd, else
// 4-byte ids), so the fuzzer spends its time in the record and sub-record
// reader, the class layouts and the table writer rather than on the magic.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/import/hprof/hprof_format.h"
#include "fuzz_load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (fathom::hprof::LooksLikeHprof(data, size)) {
    fathom::fuzz::LoadAndQuery(data, size);
    return 0;
  }
  static const char kMagic[] = "JAVA PROFILE 1.0.3";
  std::vector<uint8_t> dump(kMagic, kMagic + sizeof(kMagic));  // with its NUL
  uint8_t id_size = size > 0 && (data[0] & 1) ? 8 : 4;
  const uint8_t header[12] = {0, 0, 0, id_size, 0, 0, 1, 0x8F, 0x12, 0x34, 0x56, 0x78};
  dump.insert(dump.end(), header, header + sizeof(header));
  dump.insert(dump.end(), data, data + size);
  fathom::fuzz::LoadAndQuery(dump.data(), dump.size());
  return 0;
}
