#include "widgets/timeline/frame_timeline_style.h"

#include "widgets/common/storage_text.h"

namespace fathom::gui {
namespace {

QString text(const TraceStorage& s, StringId id) { return StorageText(s, id); }

}  // namespace

QHash<quint32, quint32> frameRowsBySlice(const TraceStorage& s) {
  const FrameTimelineSliceTable& f = s.frame_timeline_slice;
  QHash<quint32, quint32> out;
  out.reserve(static_cast<int>(f.row_count()));
  for (uint32_t r = 0; r < f.row_count(); ++r) out.insert(f.slice_id[r], r);
  return out;
}

std::optional<quint32> frameRowOfSlice(const TraceStorage& s, quint32 slice_row) {
  const FrameTimelineSliceTable& f = s.frame_timeline_slice;
  for (uint32_t r = 0; r < f.row_count(); ++r)
    if (f.slice_id[r] == slice_row) return r;
  return std::nullopt;
}

QRgb frameSliceColor(const TraceStorage& s, quint32 row) {
  const FrameTimelineSliceTable& f = s.frame_timeline_slice;
  static const QRgb kGreen = qRgb(0x4c, 0xaf, 0x50), kLightGreen = qRgb(0xc0, 0xd5, 0x88),
                    kRed = qRgb(0xf4, 0x43, 0x36), kYellow = qRgb(0xff, 0xc1, 0x07),
                    kBlue = qRgb(0x03, 0xa9, 0xf4), kGrey = qRgb(0x9e, 0x9e, 0x9e);
  if (f.is_expected[row]) return kGreen;  // the time the app was given
  const QString tag = text(s, f.jank_tag[row]);
  if (tag == QLatin1String("No Jank")) return kGreen;
  if (tag == QLatin1String("Self Jank")) return kRed;
  if (tag == QLatin1String("Other Jank")) return kYellow;
  if (tag == QLatin1String("Dropped Frame")) return kBlue;
  if (tag.endsWith(QLatin1String("Stuffing"))) return kLightGreen;
  if (text(s, f.present_type[row]) == QLatin1String("Dropped Frame")) return kBlue;
  return kGrey;  // unknown or unspecified jank
}

void addFrameDetails(const TraceStorage& s, quint32 row, Details& d) {
  const FrameTimelineSliceTable& f = s.frame_timeline_slice;
  auto add = [&](const char* key, const QString& value) {
    if (!value.isEmpty()) d.fields.push_back({QString::fromLatin1(key), value});
  };
  auto number = [](std::optional<int64_t> v) { return v ? QString::number(*v) : QString(); };
  add("Timeline", f.is_expected[row] ? QStringLiteral("Expected") : QStringLiteral("Actual"));
  add("Jank type", text(s, f.jank_type[row]));
  add("Jank tag", text(s, f.jank_tag[row]));
  add("Jank severity", text(s, f.jank_severity_type[row]));
  add("Present type", text(s, f.present_type[row]));
  add("Prediction", text(s, f.prediction_type[row]));
  add("Layer", text(s, f.layer_name[row]));
  add("Display frame token", number(f.display_frame_token.Get(row)));
  add("Surface frame token", number(f.surface_frame_token.Get(row)));
  if (auto v = f.on_time_finish.Get(row))
    add("On time finish", *v ? QStringLiteral("yes") : QStringLiteral("no"));
  if (auto v = f.gpu_composition.Get(row))
    add("GPU composition", *v ? QStringLiteral("yes") : QStringLiteral("no"));
}

}  // namespace fathom::gui
