// Helpers shared by the robustness and real-trace tests: file I/O, an
// independent walk of the outer `Trace` framing (so expectations never come
// from the code under test), gzip/zstd wrappers and temp files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace_processor.h"

namespace fathom::testing {

inline std::string ReadFileBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFileBytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline const uint8_t* AsBytes(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

inline std::filesystem::path SharedDir() { return std::filesystem::path(FATHOM_SHARED_DIR); }
inline std::filesystem::path TestData(const std::string& name) {
  return SharedDir() / "testdata" / name;
}

// A unique temp directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fathom_test_XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path Write(const std::string& name, const std::string& bytes) const {
    auto p = path_ / name;
    WriteFileBytes(p, bytes);
    return p;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Minimal varint writer and reader, written independently of core's proto
// decoder (tests build hand-made damage with them).
inline std::string TestVarint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

inline bool TestReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

struct FramingWalk {
  uint64_t packets = 0;      // whole `packet` (field 1) entries
  uint64_t whole_bytes = 0;  // bytes covered by whole top-level fields
  bool clean = true;         // no bad tag was met
};

// Counts the whole top-level `Trace.packet` entries in data[0, size): what a
// correct loader must have tokenized when the file is cut at `size`.
inline FramingWalk WalkTraceFraming(const uint8_t* data, size_t size) {
  FramingWalk w;
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  while (p < end) {
    uint64_t tag;
    if (!TestReadVarint(&p, end, &tag)) break;
    uint32_t wire = tag & 7;
    if ((tag >> 3) == 0) {
      w.clean = false;
      break;
    }
    if (wire == 2) {
      uint64_t len;
      if (!TestReadVarint(&p, end, &len) || len > static_cast<uint64_t>(end - p)) break;
      p += len;
      if ((tag >> 3) == 1) ++w.packets;
    } else if (wire == 0) {
      uint64_t v;
      if (!TestReadVarint(&p, end, &v)) break;
    } else if (wire == 1 || wire == 5) {
      size_t n = wire == 1 ? 8 : 4;
      if (static_cast<size_t>(end - p) < n) break;
      p += n;
    } else {
      w.clean = false;
      break;
    }
    w.whole_bytes = static_cast<uint64_t>(p - data);
  }
  return w;
}

// gzip (windowBits 15 + 16) or raw zlib (15) compression of `in`.
inline std::string Deflate(const std::string& in, bool gzip) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string ZstdCompress(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

// The first column of the first row of `sql` as an integer; a query without a row fails the test.
inline int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

// Every column of the first row of `sql` as integers (NULL as 0); a query without a row
// fails the test and gives no values.
inline std::vector<int64_t> QueryRowInts(TraceProcessor& tp, const std::string& sql) {
  std::vector<int64_t> out;
  auto it = tp.Query(sql);
  if (!it->NextResultSet() || !it->NextRow()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return out;
  }
  for (int i = 0; i < it->column_count(); ++i) out.push_back(it->Get(i).i);
  return out;
}

// Every row of `sql`, columns joined with '|'; NULL as `null_text`, doubles with %f. A failing
// query fails the test.
inline std::vector<std::string> JoinedRows(TraceProcessor& tp, const std::string& sql,
                                           const char* null_text = "NULL") {
  std::vector<std::string> out;
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) {
    EXPECT_TRUE(it->status().ok()) << sql << ": " << it->status().message();
    return out;
  }
  while (it->NextRow()) {
    std::string row;
    for (int i = 0; i < it->column_count(); ++i) {
      const SqlValue v = it->Get(i);
      if (i) row += "|";
      if (v.type == SqlValue::kInt)
        row += std::to_string(v.i);
      else if (v.type == SqlValue::kString)
        row += std::string(v.s);
      else if (v.type == SqlValue::kDouble)
        row += std::to_string(v.d);
      else
        row += null_text;
    }
    out.push_back(row);
  }
  EXPECT_TRUE(it->status().ok()) << sql << ": " << it->status().message();
  return out;
}

}  // namespace fathom::testing
