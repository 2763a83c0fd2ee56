// The heap explorer's views that need the dump's contents (duplicates,
// bitmaps, Activity leaks), the bitmap preview, and the progress display
// with Cancel. For an HPROF file the contents are read again from the file
// (core/import/hprof/hprof_contents.h) after the histogram is on screen.
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <optional>

#include "core/heap/heap_bitmaps.h"
#include "core/heap/heap_duplicates.h"
#include "core/import/hprof/hprof_contents.h"
#include "widgets/common/format.h"
#include "widgets/heap/bitmap_view.h"
#include "widgets/heap/heap_explorer_panel.h"

namespace fathom::gui {
namespace {

const char* StepName(int step) {
  switch (heap::AnalysisStep(step)) {
    case heap::AnalysisStep::kObjects:
      return QT_TRANSLATE_NOOP("HeapExplorerPanel", "collecting objects");
    case heap::AnalysisStep::kGraph:
      return QT_TRANSLATE_NOOP("HeapExplorerPanel", "building the reference graph");
    case heap::AnalysisStep::kPaths:
      return QT_TRANSLATE_NOOP("HeapExplorerPanel", "shortest paths from GC roots");
    case heap::AnalysisStep::kDominators:
      return QT_TRANSLATE_NOOP("HeapExplorerPanel", "dominator tree");
    case heap::AnalysisStep::kSizes:
      return QT_TRANSLATE_NOOP("HeapExplorerPanel", "retained sizes");
  }
  return QT_TRANSLATE_NOOP("HeapExplorerPanel", "starting");
}

struct Side {
  std::shared_ptr<const heap::HeapContents> contents;
  std::vector<heap::DuplicateGroup> duplicates;
  std::vector<heap::BitmapRow> bitmaps;
  std::vector<heap::LeakRow> leaks;
  QString note;  // why contents are missing, if they are
  bool cancelled = false;
};

Side findSide(Core& c, const HeapDumpViewPtr& view, const std::string& path, QString note,
              const std::atomic<bool>* cancel, std::atomic<int>* percent) {
  Side side;
  side.note = std::move(note);
  if (side.note.isEmpty()) {
    auto read = hprof::ReadHprofContents(path, view->analysis->rows, cancel, percent);
    if (read.ok())
      side.contents = std::make_shared<const heap::HeapContents>(std::move(*read));
    else
      side.note = QString::fromStdString(read.status().message());
  }
  if (cancel->load()) {
    side.cancelled = true;
    return side;
  }
  const heap::HeapContents* with = side.contents.get();
  side.duplicates = heap::FindDuplicates(c.storage(), *view->analysis, with);
  side.bitmaps = heap::FindBitmaps(c.storage(), *view->analysis, with);
  side.leaks = heap::FindLeaks(c.storage(), *view->analysis, with);
  return side;
}

}  // namespace

QString HeapExplorerPanel::statusText() const { return status_->text(); }

QString HeapExplorerPanel::fileProblem() const {
  const QString path = session_->path();
  if (!session_->outcome().format.startsWith(QLatin1String("hprof")))
    return tr("this heap graph holds no object contents");
  const QFileInfo now(path);
  if (!now.exists()) return QString::fromStdString(hprof::MissingFileMessage(path.toStdString()));
  if (now.size() != file_size_ || now.lastModified() != file_time_)
    return tr("%1 changed since it was loaded; open it again to read its contents").arg(path);
  return {};
}

void HeapExplorerPanel::loadSideViews() {
  const int gen = generation_;
  const QString problem = fileProblem();
  if (problem.isEmpty()) setPhase(Phase::kContents);
  run<Side>(
      [view = view_, path = session_->path().toStdString(), problem, cancel = cancel_,
       percent = percent_](Core& c) {
        return findSide(c, view, path, problem, cancel.get(), percent.get());
      },
      [this, gen](Side side) {
        if (gen != generation_ || side.cancelled || phase_ == Phase::kCancelled) return;
        setPhase(Phase::kIdle);
        contents_ = side.contents;
        duplicates_->setRows(view_, std::move(side.duplicates));
        copies_->setRows(view_, {});
        const size_t with_pixels = size_t(std::count_if(
            side.bitmaps.begin(), side.bitmaps.end(),
            [](const heap::BitmapRow& b) { return b.source != heap::BitmapRow::Source::kNone; }));
        tabs_->setTabText(
            3, side.bitmaps.empty() ? tr("Bitmaps") : tr("Bitmaps (%1)").arg(side.bitmaps.size()));
        bitmaps_->setRows(view_, std::move(side.bitmaps));
        std::vector<ObjectListModel::Row> leaks;
        for (const auto& l : side.leaks)
          leaks.push_back({QString::fromStdString(l.reason), l.object});
        tabs_->setTabText(4, leaks.empty() ? tr("Leaks") : tr("Leaks (%1)").arg(leaks.size()));
        leaks_->setRows(view_, std::move(leaks));
        // Without contents only Fragment leaks can be found: say so where it shows.
        const QString why =
            side.note.isEmpty()
                ? QString()
                : tr("No duplicates, bitmap pixels or Activity leaks: %1").arg(side.note);
        for (QWidget* w :
             {static_cast<QWidget*>(duplicates_view_), static_cast<QWidget*>(leaks_view_),
              static_cast<QWidget*>(bitmaps_view_)})
          w->setToolTip(why);
        if (!why.isEmpty()) setStatus(status_->text() + QStringLiteral("  \u2014  ") + why);
        bitmap_preview_->showNote(bitmaps_->rowCount() == 0 ? tr("No bitmaps in this dump.")
                                  : with_pixels == 0
                                      ? tr("None of these bitmaps has its pixels in the dump.")
                                      : tr("Select a bitmap"));
        contents_note_ = side.note;
        emit contentsShown();
      });
}

void HeapExplorerPanel::showBitmap(int row) {
  const heap::BitmapRow* b = bitmaps_->rowAt(row);
  if (!b || !view_) return;
  const QString size = tr("%1 \u00D7 %2").arg(b->width).arg(b->height);
  if (b->source == heap::BitmapRow::Source::kNone || !contents_) {
    bitmap_preview_->showNote(
        tr("%1: no pixels in this dump — %2")
            .arg(view_->label(b->object), b->note.empty() ? tr("its contents were not read")
                                                          : QString::fromStdString(b->note)));
    emit bitmapShown();
    return;
  }
  const int gen = generation_;
  struct Shown {
    QImage image;
    QString error;
  };
  runView<Shown>(
      [view = view_, contents = contents_, bitmap = *b](Core&) {
        auto px = heap::ReadBitmapPixels(*view->analysis, *contents, bitmap);
        if (!px.ok()) return Shown{{}, QString::fromStdString(px.status().message())};
        QImage image = bitmapImage(*px);
        return image.isNull() ? Shown{{}, QObject::tr("the pixels cannot be decoded")}
                              : Shown{std::move(image), {}};
      },
      [this, gen, label = view_->label(b->object), size, format = b->format,
       bytes = b->pixel_bytes](Shown shown) {
        if (gen != generation_) return;
        if (shown.image.isNull())
          bitmap_preview_->showNote(tr("%1: %2").arg(label, shown.error));
        else
          bitmap_preview_->showImage(
              shown.image,
              tr("%1 — %2, %3, %4 of pixels in the dump")
                  .arg(label, size, QString::fromStdString(format), formatBytes(double(bytes))));
        emit bitmapShown();
      });
}

void HeapExplorerPanel::setPhase(Phase phase) {
  phase_ = phase;
  const bool running = phase == Phase::kAnalysing || phase == Phase::kContents;
  progress_->setVisible(running);
  cancel_button_->setVisible(running || phase == Phase::kCancelled);
  cancel_button_->setText(phase == Phase::kCancelled ? tr("Analyse again") : tr("Cancel"));
  if (running) {
    progress_timer_->start();
    updateProgress();
  } else {
    progress_timer_->stop();
  }
}

void HeapExplorerPanel::updateProgress() {
  if (phase_ == Phase::kAnalysing) {
    const int step = step_ ? step_->load() : 0;
    progress_->setRange(0, heap::kAnalysisSteps);
    progress_->setValue(std::max(0, step - 1));
    progress_->setFormat(tr("analysis %p%"));
    setStatus(tr("Analysing the heap dump: %1 (%2 of %3)…")
                  .arg(tr(StepName(step)))
                  .arg(std::max(1, step))
                  .arg(heap::kAnalysisSteps));
  } else if (phase_ == Phase::kContents) {
    progress_->setRange(0, 100);
    progress_->setValue(percent_ ? percent_->load() : 0);
    progress_->setFormat(tr("contents %p%"));
  }
}

}  // namespace fathom::gui
