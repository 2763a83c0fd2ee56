// Human-readable times, sizes and counts, shared by every widget so the
// ruler, tooltips, details panel and tables say the same thing.
#pragma once

#include <QString>
#include <cstdint>

namespace fathom::gui {

// A duration: "850 ns", "12.4 us", "3.25 ms", "1.500 s", "2 m 03.2 s".
QString formatDuration(int64_t ns);
// A point on the timeline relative to the trace start, at a precision that
// fits `step_ns` (the distance between neighbouring labels): "1.250 s",
// "1 s 250.125 ms".
QString formatTimestamp(int64_t ns_from_start, int64_t step_ns = 0);
// Bytes with binary units: "512 B", "4.0 KiB", "12.3 MiB".
QString formatBytes(double bytes);
// A large count with thin separators: "1 234 567".
QString formatCount(int64_t n);

}  // namespace fathom::gui
