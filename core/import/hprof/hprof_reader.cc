#include "core/import/hprof/hprof_reader.h"

#include <algorithm>
#include <cstring>

#include "core/import/hprof/hprof_format.h"

namespace fathom::hprof {
namespace {

// Big-endian reads that turn "past the end" into a flag instead of a crash.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  uint32_t id_size;
  bool short_read = false;

  bool Has(size_t n) const { return static_cast<size_t>(end - p) >= n; }
  uint64_t U(size_t n) {
    if (!Has(n)) {
      short_read = true;
      p = end;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
    p += n;
    return v;
  }
  uint64_t Id() { return U(id_size); }
  void Skip(size_t n) {
    if (!Has(n)) {
      short_read = true;
      p = end;
    } else {
      p += n;
    }
  }
};

// No name or class record of a real dump comes near this.
constexpr uint64_t kMaxNameRecord = 64 << 20;

uint64_t ReadBE(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

void Reader::Fail(std::string message, uint64_t offset) {
  if (!error_.empty()) return;
  error_ = std::move(message);
  error_offset_ = offset;
}

size_t Reader::Feed(const uint8_t* data, size_t size, uint64_t offset) {
  size_t pos = 0;
  while (pos < size && error_.empty()) {
    if (array_left_ > 0) {
      size_t used = ReadArrayElements(data + pos, size - pos);
      if (used == 0) break;
      pos += used;
      continue;
    }
    if (skip_ > 0) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(skip_, size - pos));
      if (hashing_) hasher_.Add(data + pos, n);
      skip_ -= n;
      if (hashing_ && skip_ == 0) {
        dump_->content_hashes.back().hash = hasher_.Finish();
        hashing_ = false;
      }
      pos += n;
      continue;
    }
    size_t used = 0;
    unit_offset_ = offset + pos;
    Step step = !header_done_       ? ReadHeader(data + pos, size - pos, &used)
                : segment_left_ > 0 ? ReadSubRecord(data + pos, size - pos, &used)
                                    : ReadRecord(data + pos, size - pos, &used);
    if (step == Step::kMore) break;
    if (step == Step::kBad) {
      Fail(error_.empty() ? "malformed HPROF record" : error_, offset + pos);
      if (error_offset_ == 0) error_offset_ = offset + pos;
      break;
    }
    pos += used;
  }
  return error_.empty() ? pos : size;
}

Reader::Step Reader::ReadHeader(const uint8_t* p, size_t n, size_t* used) {
  const void* nul = memchr(p, 0, std::min<size_t>(n, 64));
  if (!nul) return n >= 64 ? Step::kBad : Step::kMore;
  size_t len = static_cast<const uint8_t*>(nul) - p + 1;
  if (n < len + 12) return Step::kMore;
  uint32_t id_size = static_cast<uint32_t>(ReadBE(p + len, 4));
  if (id_size != 4 && id_size != 8) {
    error_ = "HPROF identifier size " + std::to_string(id_size) + " is not 4 or 8";
    return Step::kBad;
  }
  dump_->id_size = id_size;
  dump_->timestamp_ms = static_cast<int64_t>(ReadBE(p + len + 4, 8));
  header_done_ = true;
  *used = len + 12;
  return Step::kDone;
}

Reader::Step Reader::ReadRecord(const uint8_t* p, size_t n, size_t* used) {
  if (n < 9) return Step::kMore;
  uint8_t tag = p[0];
  uint64_t len = ReadBE(p + 5, 4);
  const uint32_t ids = dump_->id_size;
  switch (tag) {
    case kUtf8:
    case kLoadClass: {
      if (len > kMaxNameRecord) {  // a corrupt length: do not buffer the rest of the file
        error_ = "a string or class record declares " + std::to_string(len) + " bytes";
        return Step::kBad;
      }
      if (n < 9 + len) return Step::kMore;
      Cursor c{p + 9, p + 9 + len, ids};
      if (tag == kUtf8) {
        uint64_t id = c.Id();
        if (c.short_read) return Step::kBad;
        dump_->strings[id] = std::string(reinterpret_cast<const char*>(c.p), c.end - c.p);
        ++dump_->string_count;
      } else {
        c.U(4);
        uint64_t class_id = c.Id();
        c.U(4);
        uint64_t name_id = c.Id();
        if (c.short_read) return Step::kBad;
        ++dump_->class_count;
        std::string name;
        if (!NormalizeClassName(StringOf(name_id), &name)) ++dump_->class_errors;
        auto [it, added] = dump_->classes.try_emplace(class_id);
        if (added) it->second.order = static_cast<uint32_t>(dump_->classes.size() - 1);
        it->second.name = std::move(name);
      }
      *used = 9 + len;
      return Step::kDone;
    }
    case kHeapDump:
    case kHeapDumpSegment:
      ++dump_->heap_dump_count;
      segment_left_ = static_cast<int64_t>(len);
      *used = 9;
      return Step::kDone;
    default:  // strings of stack traces, frames, end markers: not needed
      skip_ = len;
      *used = 9;
      return Step::kDone;
  }
}

Reader::Step Reader::ReadSubRecord(const uint8_t* p, size_t n, size_t* used) {
  Step step;
  uint8_t tag = p[0];
  switch (tag) {
    case kClassDump:
      step = ReadClassDump(p, n, used);
      break;
    case kInstanceDump:
      step = ReadInstance(p, n, used);
      break;
    case kObjectArrayDump:
      step = ReadObjectArray(p, n, used);
      break;
    case kPrimitiveArrayDump:
    case kPrimitiveArrayNoData:
      step = ReadPrimitiveArray(p, n, used, tag == kPrimitiveArrayDump);
      break;
    case kHeapDumpInfo: {
      Cursor c{p + 1, p + n, dump_->id_size};
      c.U(4);
      uint64_t name_id = c.Id();
      if (c.short_read) return Step::kMore;
      std::string name = StringOf(name_id);
      auto& heaps = dump_->heaps;
      auto it = std::find(heaps.begin(), heaps.end(), name);
      heap_ = static_cast<uint16_t>(it - heaps.begin());
      if (it == heaps.end() && heaps.size() < 0xFFFF) heaps.push_back(std::move(name));
      *used = c.p - p;
      step = Step::kDone;
      break;
    }
    default: {
      int extra = RootExtraBytes(tag, dump_->id_size);
      if (extra < 0) {
        char hex[8];
        snprintf(hex, sizeof(hex), "0x%02X", tag);
        error_ = std::string("unknown heap dump sub-record tag ") + hex;
        return Step::kBad;
      }
      size_t len = 1 + dump_->id_size + static_cast<size_t>(extra);
      if (n < len) return Step::kMore;
      uint64_t id = ReadBE(p + 1, dump_->id_size);
      // An object named by several roots: upstream reports the greatest tag
      // read as a signed byte (ART's 0x89.. kinds rank below HotSpot's
      // 0x01..0x08), as seen on JDK dumps and crafted ART ones; some ART-only
      // pairs still differ (README).
      auto [it, added] = dump_->roots.try_emplace(id, tag);
      if (static_cast<int8_t>(tag) > static_cast<int8_t>(it->second)) it->second = tag;
      ++dump_->root_count;
      *used = len;
      step = Step::kDone;
    }
  }
  if (step != Step::kDone) return step;
  // The sub-record's own length wins over the segment's (as upstream): a
  // sub-record running past the segment end ends the segment.
  int64_t consumed = static_cast<int64_t>(*used + skip_left());
  if (consumed > segment_left_) ++dump_->segment_overshoots;
  segment_left_ = std::max<int64_t>(0, segment_left_ - consumed);
  return step;
}

std::string Reader::StringOf(uint64_t id) const {
  auto it = dump_->strings.find(id);
  if (it == dump_->strings.end()) return "[unknown string ID: " + std::to_string(id) + "]";
  return it->second;
}

uint32_t Reader::Label(const std::string& qualified) {
  auto [it, added] = label_ids_.try_emplace(qualified, static_cast<uint32_t>(dump_->labels.size()));
  if (added) dump_->labels.push_back(qualified);
  return it->second;
}

}  // namespace fathom::hprof
