// Android FrameTimeline slices on the timeline: colours by jank, as the
// Perfetto UI and its docs describe them (green: on time; light green: late
// but smooth, buffer stuffing; red: the app's own jank; yellow: jank caused
// by someone else; blue: a dropped frame), and the frame's own fields for
// the details panel.
#pragma once

#include <QHash>
#include <QRgb>
#include <optional>

#include "core/storage/trace_storage.h"
#include "widgets/timeline/timeline_data.h"

namespace fathom::gui {

// slice row -> row of storage.frame_timeline_slice (empty for most traces).
QHash<quint32, quint32> frameRowsBySlice(const TraceStorage& storage);
// The frame row of one slice (a scan: for a click, not for painting).
std::optional<quint32> frameRowOfSlice(const TraceStorage& storage, quint32 slice_row);

QRgb frameSliceColor(const TraceStorage& storage, quint32 frame_row);

// Jank type and tag, present type, prediction, layer, tokens, ... of a frame.
void addFrameDetails(const TraceStorage& storage, quint32 frame_row, Details& details);

}  // namespace fathom::gui
