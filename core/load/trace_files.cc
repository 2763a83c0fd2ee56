#include "core/load/trace_files.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace fathom {

std::string_view TraceFileTypeName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kProto:
      return "proto";
    case TraceFormat::kJson:
      return "json";
    case TraceFormat::kSystraceText:
    case TraceFormat::kSystraceHtml:
      return "systrace";
    case TraceFormat::kArtAllocLog:
      return "art_alloc_log";
    case TraceFormat::kCollapsedStacks:
      return "collapsed_stack";
    case TraceFormat::kPprof:
      return "pprof";
    case TraceFormat::kSimpleperfProto:
      return "simpleperf_proto";
    case TraceFormat::kStrace:
      return "strace";
    case TraceFormat::kHprof:
      return "art_hprof";
    case TraceFormat::kZip:
      return "zip";
    case TraceFormat::kTar:
      return "tar";
    default:
      return "unknown";
  }
}

std::optional<int64_t> FormatTraceTimeClock(TraceFormat format) {
  switch (format) {
    case TraceFormat::kJson:
      return 11;
    case TraceFormat::kSystraceText:
    case TraceFormat::kSystraceHtml:
    case TraceFormat::kSimpleperfProto:
      return 3;  // CLOCK_MONOTONIC
    case TraceFormat::kStrace:
      return 1;  // CLOCK_REALTIME (strace -ttt)
    default:
      return std::nullopt;
  }
}

uint32_t AddTraceFile(TraceStorage* storage, std::optional<uint32_t> parent,
                      std::optional<std::string_view> name, std::string_view type, bool container) {
  StringId n = name ? storage->Intern(*name) : kNullStringId;
  return storage->trace_files.Insert(parent, n, storage->Intern(type), container);
}

void SetTraceFileSize(TraceStorage* storage, uint32_t row, uint64_t size) {
  storage->trace_files.size.Set(row, static_cast<int64_t>(size));
}

void FinishTraceFiles(TraceStorage* storage) {
  TraceFileTable& files = storage->trace_files;
  uint32_t rows = files.row_count();
  std::vector<std::vector<uint32_t>> children(rows);
  std::vector<uint32_t> roots;
  for (uint32_t r = 0; r < rows; ++r) {
    auto parent = files.parent_id.Get(r);
    (parent && *parent < r ? children[*parent] : roots).push_back(r);
  }
  // Protobuf traces, and compressed files (which usually hold one), first.
  StringId first[] = {storage->Intern("proto"), storage->Intern("gzip"), storage->Intern("zstd")};
  auto is_first = [&](uint32_t row) {
    return std::find(std::begin(first), std::end(first), files.trace_type[row]) != std::end(first);
  };
  auto before = [&](uint32_t a, uint32_t b) {
    bool pa = is_first(a), pb = is_first(b);
    if (pa != pb) return pa;
    return storage->GetString(files.name[a]) < storage->GetString(files.name[b]);
  };
  int64_t next = 0;
  // Depth first, iteratively: a stack of rows still to number.
  std::vector<uint32_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    uint32_t r = stack.back();
    stack.pop_back();
    files.processing_order.Set(r, next++);
    std::vector<uint32_t>& kids = children[r];
    std::stable_sort(kids.begin(), kids.end(), before);
    stack.insert(stack.end(), kids.rbegin(), kids.rend());
  }
}

}  // namespace fathom
