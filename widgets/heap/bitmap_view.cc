#include "widgets/heap/bitmap_view.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include "widgets/common/format.h"

namespace fathom::gui {

void BitmapsModel::setRows(HeapDumpViewPtr view, std::vector<heap::BitmapRow> rows) {
  beginResetModel();
  view_ = std::move(view);
  rows_ = std::move(rows);
  endResetModel();
}

const heap::BitmapRow* BitmapsModel::rowAt(int r) const {
  return r >= 0 && r < int(rows_.size()) ? &rows_[size_t(r)] : nullptr;
}

QVariant BitmapsModel::data(const QModelIndex& index, int role) const {
  const heap::BitmapRow* b = rowAt(index.row());
  if (!b || !view_) return {};
  if (role == kObjectRole) return QVariant::fromValue<quint32>(b->object);
  const bool shown = role == Qt::DisplayRole || role == Qt::ToolTipRole;
  const int64_t area = int64_t(b->width) * b->height;
  switch (index.column()) {
    case kObject:
      return shown ? view_->label(b->object) : role == kSortRole ? QVariant(b->object) : QVariant();
    case kSize:
      if (role == kSortRole) return QVariant::fromValue<qlonglong>(area);
      return shown && area > 0 ? QStringLiteral("%1 \u00D7 %2").arg(b->width).arg(b->height)
                               : QVariant();
    case kPixels:
      if (role == Qt::ToolTipRole && !b->note.empty()) return QString::fromStdString(b->note);
      if (role == Qt::ForegroundRole && b->source == heap::BitmapRow::Source::kNone)
        return QColor(Qt::gray);
      if (role != Qt::DisplayRole && role != kSortRole) return {};
      return b->source == heap::BitmapRow::Source::kNone ? tr("not in the dump")
                                                         : QString::fromStdString(b->format);
    case kBytes:
    case kRetained: {
      const int64_t v =
          index.column() == kBytes ? b->pixel_bytes : view_->analysis->retained_size[b->object];
      if (role == kSortRole) return QVariant::fromValue<qlonglong>(v);
      if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
      return role == Qt::DisplayRole && v > 0 ? formatBytes(double(v)) : QVariant();
    }
  }
  return {};
}

QVariant BitmapsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kObject:
      return tr("Bitmap");
    case kSize:
      return tr("Size");
    case kPixels:
      return tr("Pixels");
    case kBytes:
      return tr("Pixel bytes");
    case kRetained:
      return tr("Retained");
  }
  return {};
}

BitmapPreview::BitmapPreview(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel(tr("Select a bitmap"));
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  caption_->setContentsMargins(4, 2, 4, 2);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(caption_);
  l->addStretch(1);
  setMinimumSize(160, 120);
}

void BitmapPreview::showImage(const QImage& image, const QString& caption) {
  image_ = image;
  caption_->setText(caption);
  update();
}

void BitmapPreview::showNote(const QString& note) {
  image_ = {};
  caption_->setText(note);
  update();
}

QString BitmapPreview::caption() const { return caption_->text(); }

void BitmapPreview::paintEvent(QPaintEvent*) {
  if (image_.isNull()) return;
  QPainter p(this);
  const QRect room = rect().adjusted(8, caption_->height() + 8, -8, -8);
  if (room.width() < 8 || room.height() < 8) return;
  QSize size = image_.size().scaled(room.size(), Qt::KeepAspectRatio);
  // Small images are scaled up by whole pixels and stay crisp.
  if (size.width() > image_.width()) {
    const int k = std::max(1, size.width() / image_.width());
    size = image_.size() * k;
  }
  const QRect target(room.topLeft() + QPoint((room.width() - size.width()) / 2, 0), size);
  const int cell = 8;
  for (int y = target.top(); y < target.bottom(); y += cell)
    for (int x = target.left(); x < target.right(); x += cell)
      p.fillRect(QRect(x, y, cell, cell).intersected(target),
                 ((x - target.left()) / cell + (y - target.top()) / cell) % 2
                     ? QColor(204, 204, 204)
                     : Qt::white);
  p.setRenderHint(QPainter::SmoothPixmapTransform, size.width() < image_.width());
  p.drawImage(target, image_);
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(target.adjusted(0, 0, -1, -1));
}

QImage bitmapImage(const heap::BitmapPixels& px) {
  using F = heap::BitmapPixels::Format;
  if (px.format == F::kEncoded) return QImage::fromData(px.bytes.data(), int(px.bytes.size()));
  const int bpp = px.format == F::kArgb8888 ? 4 : px.format == F::kRgb565 ? 2 : 1;
  if (px.width <= 0 || px.height <= 0 ||
      int64_t(px.bytes.size()) < int64_t(px.width) * px.height * bpp)
    return {};
  // Android's ARGB_8888 is R, G, B, A in memory, premultiplied; RGB_565 is
  // little-endian 16-bit words.
  const QImage::Format f = px.format == F::kArgb8888 ? QImage::Format_RGBA8888_Premultiplied
                           : px.format == F::kRgb565 ? QImage::Format_RGB16
                                                     : QImage::Format_Alpha8;
  const qsizetype stride = qsizetype(px.bytes.size() / size_t(px.height));
  return QImage(px.bytes.data(), px.width, px.height, stride, f).copy();  // owns its bytes
}

}  // namespace fathom::gui
