#include "core/import/hprof/hprof_contents.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unordered_set>

#include "core/import/hprof/hprof_format.h"
#include "core/import/hprof/hprof_reader.h"
#include "core/import/hprof/hprof_writer.h"

namespace fathom::hprof {
namespace {

constexpr uint32_t kNone = ~0u;

Status ReadFile(const std::string& path, Reader& reader, const std::atomic<bool>* cancel) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(fopen(path.c_str(), "rb"), fclose);
  if (!f) return ErrorStatus(path + ": cannot be opened again for its contents");
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
  }
  if (!reader.header_read()) return ErrorStatus(path + ": not a plain HPROF file");
  return Status::Ok();
}

}  // namespace

Result<heap::HeapContents> ReadHprofContents(const std::string& path,
                                             const std::vector<uint32_t>& rows,
                                             const std::atomic<bool>* cancel) {
  Dump dump;
  Reader reader(&dump);
  reader.set_read_contents(true);
  if (Status st = ReadFile(path, reader, cancel); !st.ok()) return st;
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
  heap::HeapContents out;
  for (const auto& [index, hash] : dump.content_hashes) {
    if (position[index] == kNone) continue;
    out.hashed_rows.push_back(rows[position[index]]);
    out.hashes.push_back(hash);
  }
  for (uint64_t index : dump.finished_activities)
    if (position[index] != kNone) out.finished_activity_rows.push_back(rows[position[index]]);
  // Rows follow record order except where a later record replaced an id.
  std::vector<size_t> order(out.hashed_rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return out.hashed_rows[x] < out.hashed_rows[y]; });
  heap::HeapContents sorted;
  for (size_t i : order) {
    sorted.hashed_rows.push_back(out.hashed_rows[i]);
    sorted.hashes.push_back(out.hashes[i]);
  }
  sorted.finished_activity_rows = std::move(out.finished_activity_rows);
  std::sort(sorted.finished_activity_rows.begin(), sorted.finished_activity_rows.end());
  return sorted;
}

}  // namespace fathom::hprof
