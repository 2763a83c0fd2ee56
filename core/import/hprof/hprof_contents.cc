#include "core/import/hprof/hprof_contents.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <io.h>
#include <windows.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_set>

#include "core/import/hprof/hprof_format.h"
#include "core/import/hprof/hprof_reader.h"
#include "core/import/hprof/hprof_writer.h"

namespace fathom::hprof {
namespace {

constexpr uint32_t kNone = ~0u;

using File = std::unique_ptr<FILE, int (*)(FILE*)>;

#ifdef _WIN32
// Windows has no pread: ReadFile at an explicit offset on the descriptor's own
// handle leaves no shared position between the lanes either.
constexpr int kReadBackFlags = O_RDONLY | O_BINARY;
long long ReadAt(int fd, void* buf, size_t n, uint64_t offset) {
  OVERLAPPED at{};
  at.Offset = DWORD(offset);
  at.OffsetHigh = DWORD(offset >> 32);
  DWORD got = 0;
  const DWORD want = DWORD(std::min<size_t>(n, size_t{1} << 30));
  if (!::ReadFile(HANDLE(_get_osfhandle(fd)), buf, want, &got, &at)) return -1;
  return got;
}
#else
constexpr int kReadBackFlags = O_RDONLY | O_CLOEXEC;
long long ReadAt(int fd, void* buf, size_t n, uint64_t offset) {
  return ::pread(fd, buf, n, off_t(offset));
}
#endif

Result<File> Open(const std::string& path) {
  File f(fopen(path.c_str(), "rb"), fclose);
  if (f) return f;
  if (errno == ENOENT || errno == ENOTDIR) return ErrorStatus(MissingFileMessage(path));
  return ErrorStatus(path + ": cannot be opened again for its contents (" + strerror(errno) + ")");
}

Status ReadFile(const std::string& path, Reader& reader, const std::atomic<bool>* cancel,
                std::atomic<int>* percent) {
  auto opened = Open(path);
  if (!opened.ok()) return opened.status();
  File f = std::move(*opened);
  struct stat st {};
  const uint64_t total = fstat(fileno(f.get()), &st) == 0 ? uint64_t(st.st_size) : 0;
  constexpr size_t kChunk = 16 << 20;
  std::vector<uint8_t> buf;
  uint64_t offset = 0;  // file offset of buf[0]
  for (;;) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return ErrorStatus("cancelled");
    const size_t kept = buf.size();
    buf.resize(kept + kChunk);
    const size_t got = fread(buf.data() + kept, 1, kChunk, f.get());
    buf.resize(kept + got);
    if (got == 0) break;
    const size_t used = reader.Feed(buf.data(), buf.size(), offset);
    buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(used));
    offset += used;
    if (percent && total) percent->store(int(std::min<uint64_t>(100, (offset * 100) / total)));
  }
  if (!reader.header_read()) return ErrorStatus(path + ": not a plain HPROF file");
  return Status::Ok();
}

// Reads bytes back for shown strings and bitmaps: the file stays open
// (pread, so both lanes may read at once; thousands of string texts cost
// one open), but every read first checks that the path still names the
// same file of the same size, so a moved, deleted or rewritten dump is
// reported, never read from its old inode or misread from a new one.
class FileBytes {
 public:
  FileBytes(std::string path, uint64_t size) : path_(std::move(path)), size_(size) {
    fd_ = ::open(path_.c_str(), kReadBackFlags);
    if (fd_ >= 0 && fstat(fd_, &opened_) != 0) ::close(fd_), fd_ = -1;
  }
  ~FileBytes() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  Result<std::vector<uint8_t>> Read(uint64_t offset, uint64_t size) const {
    struct stat now {};
    if (::stat(path_.c_str(), &now) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return ErrorStatus(MissingFileMessage(path_));
      return ErrorStatus(path_ + ": " + strerror(errno));
    }
    if (fd_ < 0 || now.st_ino != opened_.st_ino || now.st_dev != opened_.st_dev ||
        uint64_t(now.st_size) != size_ || now.st_mtime != opened_.st_mtime)
      return ErrorStatus(path_ + " changed since it was loaded; open it again");
    if (offset > size_ || size > size_ - offset)
      return ErrorStatus(path_ + ": no such bytes in the file");
    std::vector<uint8_t> out(size);
    size_t got = 0;
    while (got < out.size()) {
      const long long n = ReadAt(fd_, out.data() + got, out.size() - got, offset + got);
      if (n <= 0) return ErrorStatus(path_ + ": cannot read its bytes again");
      got += size_t(n);
    }
    return out;
  }

 private:
  std::string path_;
  uint64_t size_;
  int fd_ = -1;
  struct stat opened_ {};
};

// The contents of `dump` by heap_graph_object row (position: record index ->
// row position, or kNone), every list sorted by row: rows follow record
// order except where a later record replaced an id.
heap::HeapContents MapToRows(const std::string& path, const Dump& dump,
                             const std::vector<uint32_t>& position,
                             const std::vector<uint32_t>& rows) {
  heap::HeapContents out;
  std::vector<Dump::ContentRec> hashed;
  for (Dump::ContentRec c : dump.content_hashes) {
    if (position[c.index] == kNone || c.hash == 0) continue;  // 0: cut short
    c.index = rows[position[c.index]];
    hashed.push_back(c);
  }
  std::sort(hashed.begin(), hashed.end(),
            [](const Dump::ContentRec& x, const Dump::ContentRec& y) { return x.index < y.index; });
  for (const Dump::ContentRec& c : hashed) {
    out.hashed_rows.push_back(uint32_t(c.index));
    out.hashes.push_back(c.hash);
    out.data_offsets.push_back(c.offset);
  }
  auto to_rows = [&](const std::vector<uint64_t>& indices) {
    std::vector<uint32_t> r;
    for (uint64_t index : indices)
      if (position[index] != kNone) r.push_back(rows[position[index]]);
    std::sort(r.begin(), r.end());
    return r;
  };
  out.finished_activity_rows = to_rows(dump.finished_activities);
  out.utf16_string_rows = to_rows(dump.utf16_strings);
  for (const Dump::BitmapRec& b : dump.bitmaps)
    if (position[b.index] != kNone)
      out.bitmaps.push_back({rows[position[b.index]], b.width, b.height, b.native_ptr});
  std::sort(out.bitmaps.begin(), out.bitmaps.end(),
            [](const heap::BitmapFields& x, const heap::BitmapFields& y) { return x.row < y.row; });
  struct stat st {};
  const uint64_t file_size = stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
  auto file = std::make_shared<const FileBytes>(path, file_size);
  out.read_bytes = [file](uint64_t offset, uint64_t size) { return file->Read(offset, size); };
  return out;
}

}  // namespace

std::string MissingFileMessage(const std::string& path) {
  return path +
         " is no longer there (moved or deleted since it was loaded). Duplicates, bitmaps and "
         "Activity leaks are read from the file again: open it from its new place.";
}

Result<heap::HeapContents> ReadHprofContents(const std::string& path,
                                             const std::vector<uint32_t>& rows,
                                             const std::atomic<bool>* cancel,
                                             std::atomic<int>* percent) {
  Dump dump;
  Reader reader(&dump);
  reader.set_read_contents(true);
  if (Status st = ReadFile(path, reader, cancel, percent); !st.ok()) return st;
  reader.ResolvePending();
  // The rows the writer made, in its order (hprof_writer.h): the first
  // record of each id, when its class is known.
  std::unordered_set<std::string> names;
  for (const auto& [id, c] : dump.classes) names.insert(c.name);
  const std::vector<uint32_t> winner = RecordsById(dump, nullptr);
  std::vector<uint32_t> position(dump.objects.size(), kNone);  // record -> row position
  uint32_t next = 0;
  for (size_t first = 0; first < winner.size(); ++first) {
    if (winner[first] == kNone) continue;
    const ObjectRec& o = dump.objects[winner[first]];
    const char* array = PrimitiveArrayName(o.elem_type);
    const bool known = o.kind == ObjectKind::kPrimitiveArray
                           ? (array && names.count(array)) || dump.classes.count(0)
                           : dump.classes.count(o.class_id) != 0;
    if (known) position[winner[first]] = next++;
  }
  if (next != rows.size())
    return ErrorStatus(path + ": the file no longer matches the loaded dump (" +
                       std::to_string(next) + " objects, " + std::to_string(rows.size()) +
                       " rows)");
  return MapToRows(path, dump, position, rows);
}

}  // namespace fathom::hprof
