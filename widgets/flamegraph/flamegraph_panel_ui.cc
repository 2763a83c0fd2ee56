// FlamegraphPanel: the widgets (toolbar, fields, canvas, side tables), the
// context menu and exports.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/export/flamegraph_export.h"
#include "widgets/common/resource_icon.h"
#include "widgets/flamegraph/caller_model.h"
#include "widgets/flamegraph/caller_tables.h"
#include "widgets/flamegraph/flame_view.h"
#include "widgets/flamegraph/flamegraph_panel.h"

namespace fathom::gui {
namespace {

// A line edit that reports its text after the user paused typing.
QLineEdit* debouncedEdit(QWidget* owner, const QString& placeholder,
                         std::function<void(const QString&)> apply) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(placeholder);
  edit->setClearButtonEnabled(true);
  auto* timer = new QTimer(edit);
  timer->setSingleShot(true);
  timer->setInterval(250);
  QObject::connect(edit, &QLineEdit::textEdited, timer, qOverload<>(&QTimer::start));
  QObject::connect(timer, &QTimer::timeout, owner, [edit, apply] { apply(edit->text()); });
  QObject::connect(edit, &QLineEdit::returnPressed, owner, [edit, timer, apply] {
    timer->stop();
    apply(edit->text());
  });
  return edit;
}

}  // namespace

void FlamegraphPanel::buildUi() {
  auto* bar = new QToolBar;
  bar->setIconSize(QSize(16, 16));
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  back_ = bar->addAction(resourceIcon("back"), tr("Back"), this, [this] { back(); });
  back_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
  back_->setToolTip(tr("Previous zoom (Alt+Left)"));
  forward_ = bar->addAction(resourceIcon("forward"), tr("Forward"), this, [this] { forward(); });
  forward_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
  forward_->setToolTip(tr("Next zoom (Alt+Right)"));
  QAction* fit =
      bar->addAction(resourceIcon("zoom-fit"), tr("Reset"), this, [this] { resetZoom(); });
  fit->setShortcut(QKeySequence(Qt::Key_Escape));
  fit->setToolTip(tr("Show the whole profile (Esc)"));
  for (QAction* a : {back_, forward_, fit}) a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  addActions({back_, forward_, fit});
  bar->addSeparator();

  profile_combo_ = new QComboBox;
  profile_combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  profile_combo_->setMinimumContentsLength(26);
  profile_combo_->setToolTip(tr("Heap dump or CPU samples to show"));
  bar->addWidget(profile_combo_);
  connect(profile_combo_, &QComboBox::activated, this, [this](int i) {
    if (filling_) return;
    const int d = profile_combo_->itemData(i).toInt();
    if (d >= 0 && d < int(dumps_.size())) showSource(dumps_[size_t(d)].source);
  });
  view_combo_ = new QComboBox;
  view_combo_->setToolTip(tr("What the widths measure"));
  bar->addWidget(view_combo_);
  connect(view_combo_, &QComboBox::activated, this, [this](int i) {
    if (!filling_) setView(FlamegraphView(view_combo_->itemData(i).toInt()));
  });

  // Toggles and colours sit on a second row with the search fields.
  auto* toggles = new QToolBar;
  toggles->setIconSize(QSize(16, 16));
  toggles->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bottom_up_action_ = toggles->addAction(resourceIcon("bottom-up"), tr("Bottom-up"));
  bottom_up_action_->setCheckable(true);
  bottom_up_action_->setToolTip(tr("Invert the tree: allocating / sampled frames first"));
  connect(bottom_up_action_, &QAction::toggled, this, [this](bool on) { setBottomUp(on); });
  flame_action_ = toggles->addAction(resourceIcon("flame"), tr("Root at bottom"));
  flame_action_->setCheckable(true);
  flame_action_->setToolTip(tr("Flame orientation (root at the bottom) instead of icicle"));
  connect(flame_action_, &QAction::toggled, this, [this](bool on) {
    view_->setIcicle(!on);
    scrollToRoot();
  });

  recursion_action_ =
      toggles->addAction(resourceIcon("collapse-recursion"), tr("Collapse recursion"));
  recursion_action_->setCheckable(true);
  recursion_action_->setToolTip(tr("Fold directly recursive calls (f → f → f) into one frame"));
  connect(recursion_action_, &QAction::toggled, this,
          [this](bool on) { setCollapseRecursion(on); });

  min_share_combo_ = new QComboBox;
  min_share_combo_->setToolTip(
      tr("Fold frames smaller than this share of the total into their caller (totals unchanged)"));
  min_share_combo_->addItem(tr("All frames"), 0.0);
  for (double p : {0.1, 0.5, 1.0, 2.0, 5.0}) min_share_combo_->addItem(tr("Min %1 %").arg(p), p);
  toggles->addWidget(min_share_combo_);
  connect(min_share_combo_, &QComboBox::activated, this,
          [this](int i) { setMinShare(min_share_combo_->itemData(i).toDouble()); });

  color_combo_ = new QComboBox;
  color_combo_->addItem(tr("Colour by library / package"), int(FlameView::ColorBy::kLibrary));
  color_combo_->addItem(tr("Colour by function"), int(FlameView::ColorBy::kName));
  toggles->addWidget(color_combo_);
  connect(color_combo_, &QComboBox::activated, this, [this](int i) {
    view_->setColorBy(FlameView::ColorBy(color_combo_->itemData(i).toInt()));
  });

  compare_combo_ = new QComboBox;
  compare_combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  compare_combo_->setMinimumContentsLength(14);
  compare_combo_->setToolTip(tr("Compare with another dump of the same kind (diff colours)"));
  bar->addWidget(compare_combo_);
  connect(compare_combo_, &QComboBox::activated, this, [this](int i) {
    if (filling_) return;
    const int d = compare_combo_->itemData(i).toInt();
    compareWith(d >= 0 && d < int(dumps_.size()) ? std::optional(dumps_[size_t(d)].source)
                                                 : std::nullopt);
  });

  auto* exportButton = new QToolButton;
  exportButton->setText(tr("Export"));
  exportButton->setIcon(resourceIcon("export"));
  exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  exportButton->setPopupMode(QToolButton::InstantPopup);
  auto* exportMenu = new QMenu(exportButton);
  exportMenu->addAction(tr("SVG…"), this, [this] { exportWithDialog(QStringLiteral("svg")); });
  exportMenu->addAction(tr("PNG…"), this, [this] { exportWithDialog(QStringLiteral("png")); });
  exportMenu->addAction(tr("Collapsed stacks (folded)…"), this,
                        [this] { exportWithDialog(QStringLiteral("folded")); });
  exportMenu->addAction(tr("pprof (gzipped profile.proto)…"), this,
                        [this] { exportWithDialog(QStringLiteral("pprof")); });
  exportMenu->addAction(tr("speedscope JSON…"), this,
                        [this] { exportWithDialog(QStringLiteral("speedscope")); });
  connect(this, &FlamegraphPanel::exportFinished, this,
          [this](const QString& path, bool ok, const QString& error) {
            if (ok)
              status_->setText(tr("Exported %1").arg(path));
            else if (isVisible())
              QMessageBox::warning(this, tr("Export failed"), error);
          });
  exportButton->setMenu(exportMenu);
  auto* symbolsButton = new QToolButton;
  symbolsButton->setText(tr("Symbols"));
  // Icon only: the first toolbar row has to fit a 1024-pixel window.
  symbolsButton->setIcon(resourceIcon("symbols"));
  symbolsButton->setToolButtonStyle(symbolsButton->icon().isNull() ? Qt::ToolButtonTextOnly
                                                                   : Qt::ToolButtonIconOnly);
  symbolsButton->setPopupMode(QToolButton::InstantPopup);
  symbolsButton->setToolTip(
      tr("Name native frames from local binaries, or Java names from "
         "ProGuard/R8 mapping files"));
  auto* symbolsMenu = new QMenu(symbolsButton);
  symbolsMenu->addAction(tr("Symbolize…"), this, [this] { symbolize(); });
  symbolsMenu->addAction(tr("Deobfuscate…"), this, [this] { deobfuscate(); });
  symbolsButton->setMenu(symbolsMenu);
  auto* spacer = new QWidget;
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  bar->addWidget(spacer);
  bar->addWidget(symbolsButton);
  bar->addWidget(exportButton);
  QAction* copy = bar->addAction(resourceIcon("copy"), tr("Copy stack"), this, [this] {
    QApplication::clipboard()->setText(stackText(view_->selectedNode()));
  });
  copy->setToolTip(tr("Copy the selected frame's stack, leaf first"));

  // Search / focus / hide.
  auto* filters = new QHBoxLayout;
  filters->setContentsMargins(0, 0, 4, 0);
  filters->addWidget(toggles);
  search_edit_ =
      debouncedEdit(this, tr("Search (regex, Ctrl+F)"), [this](const QString& t) { setSearch(t); });
  if (const QIcon i = resourceIcon("search"); !i.isNull())
    search_edit_->addAction(i, QLineEdit::LeadingPosition);
  auto* findAction = new QAction(this);
  findAction->setShortcut(QKeySequence::Find);
  findAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(findAction, &QAction::triggered, search_edit_, [this] {
    search_edit_->setFocus();
    search_edit_->selectAll();
  });
  addAction(findAction);
  matched_label_ = new QLabel;
  matched_label_->setMinimumWidth(90);
  focus_edit_ = debouncedEdit(this, tr("Focus: keep stacks through (regex)"),
                              [this](const QString& t) { setFocusRegex(t); });
  hide_edit_ =
      debouncedEdit(this, tr("Hide frames (regex)"), [this](const QString& t) { setHideRegex(t); });
  filters->addWidget(search_edit_, 3);
  filters->addWidget(matched_label_);
  filters->addWidget(focus_edit_, 2);
  filters->addWidget(hide_edit_, 2);

  view_ = new FlameView;
  scroll_ = new QScrollArea;
  scroll_->setWidget(view_);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  connect(view_, &FlameView::nodeClicked, this, [this](int n) {
    selectNode(n);
    zoomToNode(n);
  });
  connect(view_, &FlameView::nodeHovered, this, &FlamegraphPanel::showNodeInfo);
  connect(view_, &FlameView::contextMenuForNode, this, &FlamegraphPanel::contextMenu);

  callers_ = new CallerModel(this);
  callees_ = new CallerModel(this);
  caller_tables_ = new CallerTables(callers_, callees_);
  for (auto which : {CallerTables::kCallers, CallerTables::kCallees}) {
    QTableView* v = caller_tables_->view(which);
    connect(v, &QTableView::doubleClicked, this, [this, v](const QModelIndex& index) {
      // Jump to the heaviest frame of that function.
      const auto* model = static_cast<CallerModel*>(v->model());
      const QString name = model->row(index.row()).name;
      int best = -1;
      for (int i = 1; shown_ && i < shown_->size(); ++i)
        if (shown_->node(i).name == name &&
            (best < 0 || shown_->node(i).total > shown_->node(best).total))
          best = i;
      if (best > 0) {
        selectNode(best);
        zoomToNode(best);
      }
    });
  }

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(scroll_);
  split->addWidget(caller_tables_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  // The side gets about 30 %: at 1024 px that leaves the function column its title.
  split->setSizes({1000, 430});
  split->setChildrenCollapsible(true);

  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("flamegraphStatus"));
  status_->setTextFormat(Qt::PlainText);
  status_->setContentsMargins(4, 0, 4, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(bar);
  layout->addLayout(filters);
  layout->addWidget(split, 1);
  layout->addWidget(status_);
  refillProfileCombo();
  refillViewCombo();
  updateHistoryActions();
}

void FlamegraphPanel::refillProfileCombo() {
  filling_ = true;
  profile_combo_->clear();
  compare_combo_->clear();
  compare_combo_->addItem(tr("Compare with…"), -1);
  int current = -1;
  for (size_t i = 0; i < dumps_.size(); ++i) {
    const FlameSource& s = dumps_[i].source;
    profile_combo_->addItem(dumps_[i].label, int(i));
    if (has_source_ && s == source_) current = profile_combo_->count() - 1;
    if (has_source_ && s.kind == source_.kind && !(s == source_)) {
      compare_combo_->addItem(tr("vs %1").arg(dumps_[i].label), int(i));
      if (compare_ && s == *compare_) compare_combo_->setCurrentIndex(compare_combo_->count() - 1);
    }
  }
  if (has_source_ && current < 0 && source_.kind == ProfileKind::kCpu) {
    const QString cpus = !source_.utids.isEmpty()
                             ? tr("%n thread(s)", "", int(source_.utids.size()))
                         : source_.cpus.isEmpty() ? tr("all CPUs")
                                                  : tr("%n CPU(s)", "", int(source_.cpus.size()));
    profile_combo_->addItem(tr("CPU samples · selection · %1").arg(cpus), -2);
    current = profile_combo_->count() - 1;
  }
  if (profile_combo_->count() == 0) profile_combo_->addItem(tr("No profile in this trace"), -3);
  profile_combo_->setCurrentIndex(std::max(0, current));
  compare_combo_->setEnabled(compare_combo_->count() > 1);
  filling_ = false;
}

void FlamegraphPanel::scrollToRoot() {
  // Deep trees scroll: keep the root in sight (top for icicle, bottom for flame).
  QTimer::singleShot(0, this, [this] {
    QScrollBar* bar = scroll_->verticalScrollBar();
    bar->setValue(view_->icicle() ? bar->minimum() : bar->maximum());
  });
}

void FlamegraphPanel::refillViewCombo() {
  filling_ = true;
  view_combo_->clear();
  for (FlamegraphView v : ViewsOf(has_source_ ? source_.kind : ProfileKind::kNative)) {
    view_combo_->addItem(viewTitle(v), int(v));
    if (v == view_kind_) view_combo_->setCurrentIndex(view_combo_->count() - 1);
  }
  filling_ = false;
}

void FlamegraphPanel::showNodeInfo(int node) {
  if (!shown_ || node < 0) return;
  // hotspot-style status: "value (pct) in F (library) and below".
  QString text = view_->describe(node);
  text.replace(QStringLiteral("<br>"), QStringLiteral(" · "));
  // The tooltip's rich text made plain: tags dropped and entities decoded, so
  // a kernel frame reads "f <0xffff…>", not "f &lt;0xffff…&gt;".
  status_->setText(QTextDocumentFragment::fromHtml(text).toPlainText());
}

void FlamegraphPanel::contextMenu(int node, const QPoint& globalPos) {
  const QString name = shown_->node(node).name;
  QMenu menu;
  menu.addAction(tr("Zoom"), this, [this, node] { zoomToNode(node); });
  menu.addAction(tr("Show callers / callees"), this, [this, node] { selectNode(node); });
  menu.addAction(tr("Copy stack"), this,
                 [this, node] { QApplication::clipboard()->setText(stackText(node)); });
  menu.addAction(tr("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
  menu.addSeparator();
  const QString literal = QStringLiteral("^") + escapeRegex(name) + '$';
  menu.addAction(tr("Focus on this function"), this, [this, literal] { setFocusRegex(literal); });
  menu.addAction(tr("Hide this function"), this, [this, literal] {
    setHideRegex(hide_.isEmpty() ? literal : hide_ + '|' + literal);
  });
  menu.addAction(tr("Search for this function"), this, [this, literal] { setSearch(literal); });
  menu.exec(globalPos);
}

void FlamegraphPanel::exportTo(const QString& path, const QString& format) {
  if (!shown_core_) {
    emit exportFinished(path, false, tr("No flamegraph to export"));
    return;
  }
  if (format == QLatin1String("png")) {
    // The whole canvas, also the part scrolled out of sight.
    const bool ok = view_->grab().save(path, "PNG");
    emit exportFinished(path, ok, ok ? QString() : tr("Cannot write %1").arg(path));
    return;
  }
  const std::optional<ExportFormat> f = ParseExportFormat(format.toStdString());
  if (!f) {
    emit exportFinished(path, false, tr("Unknown export format %1").arg(format));
    return;
  }
  ExportOptions opt;
  opt.kind = source_.kind;
  opt.view = view_kind_;
  // The combo's label carries the default view's amount; the title names the
  // view the export shows instead (the SVG adds that view's own total).
  QString heading = profile_combo_->currentText();
  opt.time_nanos = source_.ts;
  for (const DumpInfo& d : dumps_)  // pprof: keep the sample type's name and unit
    if (d.source == source_) {
      heading = d.heading;
      opt.sample_type = d.sample_type;
      opt.sample_unit = d.sample_unit;
    }
  opt.title = (heading + QStringLiteral(" · ") + viewTitle(view_kind_)).toStdString();
  ++pending_;
  auto tree = shown_core_;
  session_->query<QString>(
      [tree, f, opt, path](Core&) -> QString {
        Result<std::string> bytes = ExportFlamegraph(*tree, *f, opt);
        if (!bytes.ok()) return QString::fromStdString(bytes.status().message());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return file.errorString();
        if (file.write(bytes->data(), qint64(bytes->size())) != qint64(bytes->size()))
          return file.errorString();
        return {};
      },
      this,
      [this, path](QString error) {
        --pending_;
        emit exportFinished(path, error.isEmpty(), error);
      });
}

void FlamegraphPanel::exportWithDialog(const QString& format) {
  const QString ext = format == QLatin1String("pprof")        ? QStringLiteral("pb.gz")
                      : format == QLatin1String("speedscope") ? QStringLiteral("speedscope.json")
                                                              : format;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export flamegraph"),
                                                    QStringLiteral("flamegraph.") + ext);
  if (!path.isEmpty()) exportTo(path, format);
}

}  // namespace fathom::gui
