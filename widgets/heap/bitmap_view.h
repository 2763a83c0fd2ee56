// The heap explorer's Bitmaps tab: every reachable android.graphics.Bitmap
// (size, where its pixels are, bytes, retained size) and, for the selected
// one, its pixels drawn as an image where the dump holds them, or a plain
// sentence saying why it does not (core/heap/heap_bitmaps.h).
#pragma once

#include <QAbstractTableModel>
#include <QImage>
#include <QWidget>
#include <vector>

#include "core/heap/heap_bitmaps.h"
#include "widgets/heap/heap_models.h"

class QLabel;

namespace fathom::gui {

class BitmapsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kObject, kSize, kPixels, kBytes, kRetained, kColumns };
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(HeapDumpViewPtr view, std::vector<heap::BitmapRow> rows);
  const heap::BitmapRow* rowAt(int r) const;
  int rowCount(const QModelIndex& p = {}) const override {
    return p.isValid() ? 0 : int(rows_.size());
  }
  int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : kColumns; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  HeapDumpViewPtr view_;
  std::vector<heap::BitmapRow> rows_;
};

// The image (or why there is none), scaled to fit with its aspect kept,
// over a checkerboard so transparent pixels show.
class BitmapPreview : public QWidget {
  Q_OBJECT
 public:
  explicit BitmapPreview(QWidget* parent = nullptr);
  void showImage(const QImage& image, const QString& caption);
  void showNote(const QString& note);
  const QImage& image() const { return image_; }
  QString caption() const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  QImage image_;
  QLabel* caption_ = nullptr;
};

// Pixels read back from the dump as an image (on a worker: QImage is not
// tied to the GUI thread). A null image when they cannot be decoded.
QImage bitmapImage(const heap::BitmapPixels& pixels);

}  // namespace fathom::gui
