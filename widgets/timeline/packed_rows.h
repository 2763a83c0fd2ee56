// Rows that draw several slice tracks at once (a process's Expected / Actual Timeline tracks,
// which the importer splits wherever frames overlap): their slices laid out by actual overlap,
// so the row is as deep as the most frames open at once, not one set of levels per track.
#pragma once

#include <QVector>
#include <cstdint>
#include <functional>
#include <memory>

#include "widgets/timeline/track_layout.h"

namespace fathom {
class TraceStorage;
class TimelineIndex;
}  // namespace fathom

namespace fathom::gui {

struct PaintSpan;

// Rows above this many slices keep one set of levels per track: packing walks every slice
// once at load and keeps a level per slice, which is cheap for frame timelines (thousands)
// but not for a merged async track of millions.
constexpr size_t kMaxPackedSlices = 1000000;

// The slices of `parts` packed greedily in start order (each top-level slice with its
// descendants at the lowest levels free at its start: the fewest levels for intervals);
// null when there are more than `max_slices`.
std::shared_ptr<const PackedSlices> packSlices(const TraceStorage& storage,
                                               const TimelineIndex& index,
                                               const QVector<SlicePart>& parts,
                                               size_t max_slices = kMaxPackedSlices);

// The spans of one packed level in [t0, t1) at `ns_per_px`: slices under a pixel that fall in
// one pixel column are folded into one span (merged = how many more), so a level costs about
// one binary search per pixel column however many slices it has. `make` fills colour and label.
QVector<PaintSpan> packedLevelSpans(const TraceStorage& storage, const QVector<quint32>& rows,
                                    int64_t t0, int64_t t1, double ns_per_px,
                                    const std::function<void(PaintSpan&, bool wide)>& make);

}  // namespace fathom::gui
