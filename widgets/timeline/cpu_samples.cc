#include "widgets/timeline/cpu_samples.h"

#include <algorithm>
#include <cmath>

#include "core/storage/trace_storage.h"
#include "widgets/common/format.h"
#include "widgets/common/storage_text.h"
#include "widgets/timeline/timeline_data.h"

namespace fathom::gui {
namespace {

// Frames shown in details; deeper stacks end with "… N more".
constexpr int kMaxFrames = 40;

template <typename Table>
void collect(const Table& t, bool perf,
             std::map<uint32_t, QVector<std::shared_ptr<const ThreadSamples>>>& out) {
  std::map<uint32_t, std::shared_ptr<ThreadSamples>> by_thread;
  for (uint32_t r = 0; r < t.row_count(); ++r) {
    auto& samples = by_thread[t.utid[r]];
    if (!samples) {
      samples = std::make_shared<ThreadSamples>();
      samples->perf = perf;
    }
    samples->ts.push_back(t.ts[r]);
    samples->rows.push_back(r);
  }
  for (auto& [utid, samples] : by_thread) {
    // Importers append in time order almost always; sort the pairs when they did not.
    if (!std::is_sorted(samples->ts.begin(), samples->ts.end())) {
      QVector<std::pair<qint64, quint32>> pairs;
      for (int i = 0; i < samples->ts.size(); ++i)
        pairs.push_back({samples->ts[i], samples->rows[i]});
      std::sort(pairs.begin(), pairs.end());
      for (int i = 0; i < pairs.size(); ++i) {
        samples->ts[i] = pairs[i].first;
        samples->rows[i] = pairs[i].second;
      }
    }
    out[utid].push_back(std::move(samples));
  }
}

}  // namespace

std::map<uint32_t, QVector<std::shared_ptr<const ThreadSamples>>> samplesByThread(
    const TraceStorage& s) {
  std::map<uint32_t, QVector<std::shared_ptr<const ThreadSamples>>> out;
  collect(s.profile.perf_sample, true, out);
  collect(s.profile.cpu_profile_stack_sample, false, out);
  return out;
}

QVector<PaintSpan> sampleSpans(const ThreadSamples& samples, int64_t t0, int64_t t1,
                               double ns_per_px) {
  QVector<PaintSpan> out;
  const auto& ts = samples.ts;
  auto it = std::lower_bound(ts.begin(), ts.end(), t0);
  while (it != ts.end() && *it < t1) {
    const double column = std::floor(double(*it - t0) / ns_per_px);
    const int64_t next = t0 + int64_t((column + 1) * ns_per_px) + 1;
    auto stop = std::lower_bound(it, ts.end(), next);
    if (stop == it) ++stop;
    const qsizetype i = it - ts.begin();
    out.push_back({*it, *(stop - 1), samples.rows[i], quint32(stop - it - 1), 0, {}});
    it = stop;
  }
  return out;
}

bool sampleAt(const TraceStorage& s, const ThreadSamples& samples, uint32_t row, int64_t* ts,
              uint32_t* utid) {
  if (samples.perf) {
    if (row >= s.profile.perf_sample.row_count()) return false;
    *ts = s.profile.perf_sample.ts[row];
    *utid = s.profile.perf_sample.utid[row];
    return true;
  }
  if (row >= s.profile.cpu_profile_stack_sample.row_count()) return false;
  *ts = s.profile.cpu_profile_stack_sample.ts[row];
  *utid = s.profile.cpu_profile_stack_sample.utid[row];
  return true;
}

void addSampleDetails(const TraceStorage& s, const ThreadSamples& samples, uint32_t row,
                      int64_t trace_start, Details& d) {
  int64_t ts = 0;
  uint32_t utid = 0;
  if (!sampleAt(s, samples, row, &ts, &utid)) return;
  d.title = QStringLiteral("CPU sample");
  d.fields.push_back({QStringLiteral("Time"), formatTimestamp(ts - trace_start, 1)});
  if (utid < s.thread.row_count()) {
    if (auto upid = s.thread.upid.Get(utid))
      d.fields.push_back({QStringLiteral("Process"), processLabel(s, *upid)});
    d.fields.push_back({QStringLiteral("Thread"), threadLabel(s, utid)});
  }
  std::optional<uint32_t> callsite;
  if (samples.perf) {
    const auto& p = s.profile.perf_sample;
    if (auto cpu = p.cpu.Get(row))
      d.fields.push_back({QStringLiteral("CPU"), QString::number(*cpu)});
    if (QString mode = StorageText(s, p.cpu_mode[row]); !mode.isEmpty())
      d.fields.push_back({QStringLiteral("Mode"), mode});
    if (QString err = StorageText(s, p.unwind_error[row]); !err.isEmpty())
      d.fields.push_back({QStringLiteral("Unwind error"), err});
    callsite = p.callsite_id.Get(row);
  } else {
    callsite = s.profile.cpu_profile_stack_sample.callsite_id[row];
  }
  // The call stack, leaf first (the callsite chain walks from the leaf to the root).
  const auto& cs = s.profile.stack_profile_callsite;
  const auto& fr = s.profile.stack_profile_frame;
  int n = 0, more = 0;
  for (auto c = callsite; c && *c < cs.row_count(); c = cs.parent_id.Get(*c)) {
    if (n >= kMaxFrames) {
      ++more;
      continue;
    }
    const uint32_t f = cs.frame_id[*c];
    QString name = f < fr.row_count() ? StorageText(s, fr.deobfuscated_name[f]) : QString();
    if (name.isEmpty() && f < fr.row_count()) name = StorageText(s, fr.name[f]);
    if (name.isEmpty()) name = QStringLiteral("(unknown frame %1)").arg(f);
    d.fields.push_back({n == 0 ? QStringLiteral("Stack (leaf first)") : QString(), name});
    ++n;
  }
  if (more > 0) d.fields.push_back({QString(), QStringLiteral("… %1 more").arg(more)});
  if (n == 0) d.fields.push_back({QStringLiteral("Stack"), QStringLiteral("(none recorded)")});
}

}  // namespace fathom::gui
