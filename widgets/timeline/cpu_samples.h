// Per-thread CPU-sample tracks: where a thread's perf samples (perf_sample) or Chrome
// sampler samples (cpu_profile_stack_sample) fell, one marker per sample as Perfetto
// draws them, so a trace with samples but no scheduling data still shows each thread's
// activity; a click selects the sample (its call stack in details, the flamegraph of it).
#pragma once

#include <QString>
#include <QVector>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "widgets/timeline/track_layout.h"

namespace fathom {
class TraceStorage;
}

namespace fathom::gui {

struct PaintSpan;
struct Details;

// Per thread (utid), its samples of each table (perf first), in ts order.
std::map<uint32_t, QVector<std::shared_ptr<const ThreadSamples>>> samplesByThread(
    const TraceStorage& storage);

// One span per pixel column with samples in [t0, t1): start = first sample, end = last,
// row = the first sample's row, merged = how many more in the column.
QVector<PaintSpan> sampleSpans(const ThreadSamples& samples, int64_t t0, int64_t t1,
                               double ns_per_px);

// The sample's time, thread, CPU and call stack (leaf first) as details fields.
void addSampleDetails(const TraceStorage& storage, const ThreadSamples& samples, uint32_t row,
                      int64_t trace_start, Details& d);

// The sample's time and thread (for the flamegraph of that one sample); false when absent.
bool sampleAt(const TraceStorage& storage, const ThreadSamples& samples, uint32_t row, int64_t* ts,
              uint32_t* utid);

}  // namespace fathom::gui
