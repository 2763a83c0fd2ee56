// FlamegraphPanel: state, the build pipeline on the query lane, zoom history.
// The widgets themselves are assembled in flamegraph_panel_ui.cc.
#include "widgets/flamegraph/flamegraph_panel.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <algorithm>
#include <cstdlib>
#include <optional>

#include "widgets/common/format.h"
#include "widgets/flamegraph/caller_model.h"
#include "widgets/flamegraph/caller_tables.h"
#include "widgets/flamegraph/flame_view.h"
#include "widgets/symbols/symbols_controller.h"

namespace fathom::gui {
namespace {

// Applies one Result-returning core operation, keeping the first error.
template <typename Op>
Flamegraph apply(Flamegraph fg, Op op, std::string* error) {
  Result<Flamegraph> r = op(fg);
  if (r.ok()) return std::move(*r);
  if (error->empty()) *error = r.status().message();
  return fg;
}

}  // namespace

// What one build job hands back to the UI thread.
struct FlamegraphPanel::Built {
  std::shared_ptr<const Flamegraph> raw, rawBase, shown;
  // The top-down tree behind a bottom-up view: callers and callees are read
  // from it, since an inverted tree's parents are callees and its values are
  // self values. Null when the shown tree is top-down.
  std::shared_ptr<const Flamegraph> calls;
  std::shared_ptr<const FlameTree> tree;
  std::string error;
};

FlamegraphPanel::FlamegraphPanel(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
  buildUi();
  if (session_) {
    connect(session_, &TraceSession::loaded, this, &FlamegraphPanel::onLoaded);
    connect(session_, &TraceSession::reloaded, this, &FlamegraphPanel::onReloaded);
    symbols_ = new SymbolsController(session_, this);
    if (session_->isLoaded()) onLoaded();
  }
}

FlamegraphPanel::~FlamegraphPanel() = default;

void FlamegraphPanel::onLoaded() {
  ++pending_;
  session_->query<std::vector<DumpInfo>>([](Core& core) { return listDumps(core); }, this,
                                         [this](std::vector<DumpInfo> dumps) {
                                           --pending_;
                                           dumps_ = std::move(dumps);
                                           dumps_loaded_ = true;
                                           refillProfileCombo();
                                           if (!has_source_)
                                             openDefault();
                                           else if (pending_ == 0)
                                             emit treeReady();
                                         });
}

void FlamegraphPanel::symbolize() {
  if (symbols_) symbols_->symbolize();
}

void FlamegraphPanel::deobfuscate() {
  if (symbols_) symbols_->deobfuscate();
}

void FlamegraphPanel::onReloaded(bool ok) {
  if (!ok) return;
  // Same trace, new names: the cached trees name frames the old way. Frame
  // and dump ids are unchanged, so the source, zoom path and filters stay.
  raw_.reset();
  raw_base_.reset();
  rebuild();
}

void FlamegraphPanel::openDefault() {
  // A pprof file's preferred sample type, then heap dumps (what a diamond
  // click shows), then the CPU samples.
  for (const DumpInfo& d : dumps_)
    if (d.preferred) return showSource(d.source);
  for (const DumpInfo& d : dumps_)
    if (d.source.kind != ProfileKind::kCpu) return showSource(d.source);
  if (!session_ || !session_->isLoaded()) return;
  if (dumps_.empty()) {
    status_->setText(tr("This trace has no heap dumps and no CPU stack samples"));
    return;
  }
  showCpuSamples(session_->traceStart(), session_->traceEnd() + 1, {});
}

bool FlamegraphPanel::hasCpuSamples() const {
  return std::any_of(dumps_.begin(), dumps_.end(),
                     [](const DumpInfo& d) { return d.source.kind == ProfileKind::kCpu; });
}

void FlamegraphPanel::showHeapProfile(qint64 upid, qint64 ts, const QString& kind) {
  FlameSource s;
  s.kind = kind == QLatin1String("graph") ? ProfileKind::kJavaGraph : ProfileKind::kNative;
  s.upid = uint32_t(upid);
  s.ts = ts;
  // Pick the dump's heap when the listing knows it (one diamond per heap).
  for (const DumpInfo& d : dumps_)
    if (d.source.kind == s.kind && d.source.upid == s.upid && d.source.ts == ts) {
      s = d.source;
      break;
    }
  showSource(s);
}

void FlamegraphPanel::showCpuSamples(qint64 t0, qint64 t1, const QList<int>& cpus,
                                     const QList<int>& utids) {
  // A CPU-track selection in a trace without stack samples keeps the dump
  // on screen instead of replacing it with an empty graph.
  if (dumps_loaded_ && !hasCpuSamples() && has_source_) return;
  FlameSource s;
  s.kind = ProfileKind::kCpu;
  s.t0 = t0;
  s.t1 = t1;
  s.cpus = cpus;
  s.utids = utids;
  std::sort(s.cpus.begin(), s.cpus.end());
  std::sort(s.utids.begin(), s.utids.end());
  showSource(s);
}

void FlamegraphPanel::showSource(const FlameSource& source) {
  const bool kindChanged = !has_source_ || source.kind != source_.kind;
  source_ = source;
  has_source_ = true;
  if (kindChanged || !ViewFits(source.kind, view_kind_)) view_kind_ = DefaultView(source.kind);
  if (compare_ && compare_->kind != source.kind) compare_.reset();
  history_.clear();
  history_pos_ = -1;
  refillProfileCombo();
  refillViewCombo();
  rebuild();
}

void FlamegraphPanel::setView(FlamegraphView view) {
  if (view == view_kind_ || !ViewFits(source_.kind, view)) return;
  view_kind_ = view;
  refillViewCombo();
  rebuild();
}

void FlamegraphPanel::setBottomUp(bool on) {
  if (on == bottom_up_) return;
  bottom_up_ = on;
  bottom_up_action_->setChecked(on);
  history_.clear();  // paths of a top-down tree mean nothing bottom-up
  history_pos_ = -1;
  rebuild();
}

void FlamegraphPanel::setCollapseRecursion(bool on) {
  if (on == collapse_recursion_) return;
  collapse_recursion_ = on;
  recursion_action_->setChecked(on);
  rebuild();
}

void FlamegraphPanel::setMinShare(double percent) {
  percent = std::clamp(percent, 0.0, 100.0);
  if (percent == min_share_) return;
  min_share_ = percent;
  if (min_share_combo_) {
    QSignalBlocker block(min_share_combo_);
    int i = min_share_combo_->findData(percent);
    if (i < 0) {
      min_share_combo_->addItem(tr("Min %1 %").arg(percent), percent);
      i = min_share_combo_->count() - 1;
    }
    min_share_combo_->setCurrentIndex(i);
  }
  rebuild();
}

void FlamegraphPanel::setIcicle(bool on) {
  flame_action_->setChecked(!on);  // toggled() applies it
}

void FlamegraphPanel::setRegexField(QLineEdit* field, const QString& text) {
  if (field->text() != text) field->setText(text);
}

void FlamegraphPanel::setSearch(const QString& regex) {
  search_ = regex;
  setRegexField(search_edit_, regex);
  runSearch();
}

void FlamegraphPanel::setFocusRegex(const QString& regex) {
  if (regex == focus_) return;
  focus_ = regex;
  setRegexField(focus_edit_, regex);
  rebuild();
}

void FlamegraphPanel::setHideRegex(const QString& regex) {
  if (regex == hide_) return;
  hide_ = regex;
  setRegexField(hide_edit_, regex);
  rebuild();
}

void FlamegraphPanel::compareWith(std::optional<FlameSource> base) {
  compare_ = std::move(base);
  refillProfileCombo();
  rebuild();
}

void FlamegraphPanel::rebuild() {
  if (!has_source_ || !session_ || !session_->isLoaded()) return;
  const quint64 gen = ++generation_;
  ++pending_;
  status_->setText(tr("Building…"));
  // Reuse the raw trees when only an operation changed.
  std::shared_ptr<const Flamegraph> raw =
      raw_ && raw_source_ == source_ && raw_view_ == view_kind_ ? raw_ : nullptr;
  std::shared_ptr<const Flamegraph> rawBase;
  if (compare_ && raw_base_ && raw_base_source_ == *compare_ && raw_view_ == view_kind_)
    rawBase = raw_base_;
  const FlameSource source = source_;
  const std::optional<FlameSource> compare = compare_;
  const FlamegraphView view = view_kind_;
  const bool bottomUp = bottom_up_, collapse = collapse_recursion_;
  const double min_share = min_share_;
  const std::string focus = focus_.toStdString(), hide = hide_.toStdString();
  session_->query<std::shared_ptr<Built>>(
      [=](Core& core) {
        auto b = std::make_shared<Built>();
        auto build = [&](const FlameSource& s) -> std::shared_ptr<const Flamegraph> {
          Result<Flamegraph> r = buildSource(core, s, view);
          if (!r.ok()) {
            if (b->error.empty()) b->error = r.status().message();
            return std::make_shared<const Flamegraph>();
          }
          return std::make_shared<const Flamegraph>(std::move(*r));
        };
        b->raw = raw ? raw : build(source);
        if (compare) b->rawBase = rawBase ? rawBase : build(*compare);
        // Focus, hide, collapse, then invert: the core's operations.
        auto topDown = [&](const Flamegraph& in) {
          Flamegraph t = in;
          if (!focus.empty())
            t = apply(
                std::move(t), [&](const Flamegraph& g) { return g.Focus(focus); }, &b->error);
          if (!hide.empty())
            t = apply(
                std::move(t), [&](const Flamegraph& g) { return g.Hide(hide); }, &b->error);
          if (collapse) t = t.CollapseRecursion();
          return t;
        };
        Flamegraph calls = topDown(*b->raw);
        std::optional<Flamegraph> baseCalls;
        if (b->rawBase) baseCalls = topDown(*b->rawBase);
        Flamegraph shown;
        if (bottomUp) {
          shown = calls.Inverted();
          if (baseCalls) shown = Flamegraph::Diff(baseCalls->Inverted(), shown);
          b->calls = std::make_shared<const Flamegraph>(
              baseCalls ? Flamegraph::Diff(*baseCalls, calls) : std::move(calls));
        } else {
          // Top-down: the shown tree is the call tree itself (no copy).
          shown = baseCalls ? Flamegraph::Diff(*baseCalls, calls) : std::move(calls);
        }
        if (min_share > 0) {
          // Relative to what is shown (the focused tree, or the larger side of a diff).
          const Metric m = MetricOf(view);
          int64_t total = std::abs(shown.Total(m));
          if (shown.is_diff()) total = std::max(total, std::abs(b->rawBase->Total(m)));
          const auto min_value = static_cast<int64_t>(static_cast<double>(total) * min_share / 100);
          if (min_value > 0) shown = shown.Prune(m, min_value);
        }
        b->shown = std::make_shared<const Flamegraph>(std::move(shown));
        b->tree = std::make_shared<const FlameTree>(
            FlameTree::fromCore(*b->shown, MetricOf(view), unitOf(view, source)));
        return b;
      },
      this, [this, gen](std::shared_ptr<Built> b) { applyBuilt(std::move(b), gen); });
}

void FlamegraphPanel::applyBuilt(std::shared_ptr<Built> b, quint64 gen) {
  --pending_;
  if (gen != generation_) return;  // a newer request is on its way
  raw_ = b->raw;
  raw_source_ = source_;
  raw_view_ = view_kind_;
  raw_base_ = b->rawBase;
  if (compare_) raw_base_source_ = *compare_;
  shown_core_ = b->shown;
  calls_core_ = b->calls ? b->calls : b->shown;
  shown_ = b->tree;
  last_error_ = QString::fromStdString(b->error);
  // A program that freed everything before the dump (most do at exit) has nothing
  // unreleased: say where to look instead of showing an empty view.
  const bool allFreed = shown_ && shown_->total() == 0 &&
                        (view_kind_ == FlamegraphView::kUnreleasedSize ||
                         view_kind_ == FlamegraphView::kUnreleasedCount) &&
                        shown_core_->Total(Metric::kAllocSize) > 0;
  view_->setEmptyText(allFreed ? tr("Nothing unreleased at this dump: every sampled allocation "
                                    "was freed. Choose \u201cTotal size\u201d to see where "
                                    "memory was allocated.")
                               : QString());
  const QStringList zoomPath = history_pos_ >= 0 ? history_[size_t(history_pos_)] : QStringList();
  view_->setTree(shown_);
  applyZoomPath(zoomPath);
  scrollToRoot();
  if (history_.empty()) {
    history_.push_back({});
    history_pos_ = 0;
  }
  updateHistoryActions();
  const double total = shown_->total();
  QString text = tr("%1 · %2 frames · %3")
                     .arg(viewTitle(view_kind_))
                     .arg(shown_->size() - 1)
                     .arg(shown_->unit == FlameTree::Unit::kBytes ? formatBytes(total)
                                                                  : formatCount(int64_t(total)));
  if (shown_->unit == FlameTree::Unit::kSamples) text += tr(" samples");
  if (shown_->isDiff)
    text += tr(" · diff against %1: red grew, blue shrank")
                .arg(shown_->unit == FlameTree::Unit::kBytes
                         ? formatBytes(shown_->node(0).baseTotal)
                         : formatCount(int64_t(shown_->node(0).baseTotal)));
  if (!last_error_.isEmpty()) text += QStringLiteral(" · ") + last_error_;
  status_->setText(text);
  for (QLineEdit* e : {focus_edit_, hide_edit_})
    e->setStyleSheet(!last_error_.isEmpty() && !e->text().isEmpty()
                         ? QStringLiteral("QLineEdit { background: #f4c0c0; }")
                         : QString());
  callers_->setRows({}, 0, shown_->unit);
  callees_->setRows({}, 0, shown_->unit);
  caller_tables_->setTitle(CallerTables::kCallers, tr("Callers (click a frame)"));
  caller_tables_->setTitle(CallerTables::kCallees, tr("Callees"));
  runSearch();
  // Fill the side tables from the start: the heaviest top frame.
  if (!shown_->node(0).children.empty()) selectNode(shown_->node(0).children.front());
  if (pending_ == 0) emit treeReady();
}

void FlamegraphPanel::runSearch() {
  if (!shown_core_ || search_.isEmpty()) {
    matched_share_ = 0;
    view_->setMatches({});
    matched_label_->clear();
    search_edit_->setStyleSheet({});
    return;
  }
  // Search touches every node: run it on the lane too, keep only the latest.
  const quint64 gen = ++search_generation_;
  ++pending_;
  auto core = shown_core_;
  const std::string text = search_.toStdString();
  const Metric metric = MetricOf(view_kind_);
  session_->query<std::shared_ptr<Result<SearchResult>>>(
      [core, text, metric](Core&) {
        return std::make_shared<Result<SearchResult>>(core->Search(text, metric));
      },
      this,
      [this, gen, core](std::shared_ptr<Result<SearchResult>> r) {
        --pending_;
        if (gen != search_generation_ || core != shown_core_) return;
        if (!r->ok()) {
          matched_share_ = 0;
          view_->setMatches({});
          matched_label_->setText(tr("bad regex"));
          search_edit_->setStyleSheet(QStringLiteral("QLineEdit { background: #f4c0c0; }"));
          search_edit_->setToolTip(QString::fromStdString(r->status().message()));
        } else {
          search_edit_->setStyleSheet({});
          std::vector<bool> matched(size_t(shown_->size()), false);
          for (uint32_t n : (*r)->matched_nodes) matched[n + 1] = true;
          matched_share_ = (*r)->share();
          view_->setMatches(std::move(matched));
          matched_label_->setText(tr("%1 % matched").arg(100.0 * matched_share_, 0, 'f', 1));
        }
        if (pending_ == 0) emit treeReady();
      });
}

QStringList FlamegraphPanel::namesTo(int node) const {
  QStringList names;
  if (!shown_) return names;
  for (int n : shown_->pathTo(node)) names << shown_->node(n).name;
  return names;
}

void FlamegraphPanel::applyZoomPath(const QStringList& path) {
  const int node = shown_ ? shown_->find(path) : -1;
  view_->setZoomNode(node < 0 ? 0 : node);
}

int FlamegraphPanel::zoomNode() const { return view_->zoomNode(); }
int FlamegraphPanel::selectedNode() const { return view_->selectedNode(); }

void FlamegraphPanel::pushZoom(int node) {
  history_.resize(size_t(history_pos_ + 1));
  history_.push_back(namesTo(node));
  history_pos_ = int(history_.size()) - 1;
  updateHistoryActions();
}

void FlamegraphPanel::zoomToNode(int node) {
  if (!shown_ || node < 0 || node >= shown_->size() || node == view_->zoomNode()) return;
  view_->setZoomNode(node);
  pushZoom(node);
}

void FlamegraphPanel::resetZoom() { zoomToNode(0); }

bool FlamegraphPanel::back() {
  if (history_pos_ <= 0) return false;
  applyZoomPath(history_[size_t(--history_pos_)]);
  updateHistoryActions();
  return true;
}

bool FlamegraphPanel::forward() {
  if (history_pos_ + 1 >= int(history_.size())) return false;
  applyZoomPath(history_[size_t(++history_pos_)]);
  updateHistoryActions();
  return true;
}

void FlamegraphPanel::updateHistoryActions() {
  back_->setEnabled(history_pos_ > 0);
  forward_->setEnabled(history_pos_ + 1 < int(history_.size()));
}

void FlamegraphPanel::selectNode(int node) {
  if (!shown_ || node < 0 || node >= shown_->size()) return;
  view_->setSelectedNode(node);
  if (node == 0) return;
  const QString name = shown_->node(node).name;
  const quint64 gen = ++select_generation_;
  ++pending_;
  auto core = shown_core_, calls = calls_core_;
  const Metric metric = MetricOf(view_kind_);
  using Rows = std::pair<std::vector<CallerRow>, std::vector<CallerRow>>;
  session_->query<std::shared_ptr<Rows>>(
      [calls, metric, n = name.toStdString()](Core&) {
        auto toRows = [](const std::vector<FrameNeighbour>& in) {
          std::vector<CallerRow> out;
          for (const FrameNeighbour& f : in)
            out.push_back({QString::fromStdString(f.name), QString::fromStdString(f.map_name),
                           double(f.value)});
          return out;
        };
        return std::make_shared<Rows>(toRows(calls->Callers(n, metric)),
                                      toRows(calls->Callees(n, metric)));
      },
      this,
      [this, gen, core, name](std::shared_ptr<Rows> rows) {
        --pending_;
        if (gen != select_generation_ || core != shown_core_) return;
        // Callers cover every call of the function once: their sum is its total.
        double total = 0;
        for (const CallerRow& r : rows->first) total += r.value;
        callers_->setRows(std::move(rows->first), shown_->total(), shown_->unit);
        callees_->setRows(std::move(rows->second), shown_->total(), shown_->unit);
        const QString pct = shown_->total() != 0
                                ? QString::number(100.0 * total / shown_->total(), 'f', 1)
                                : QStringLiteral("0");
        caller_tables_->setTitle(
            CallerTables::kCallers,
            tr("Callers of <b>%1</b> (%2 % of all)").arg(name.toHtmlEscaped(), pct));
        caller_tables_->setTitle(CallerTables::kCallees,
                                 tr("Callees of <b>%1</b>").arg(name.toHtmlEscaped()));
        if (pending_ == 0) emit treeReady();
      });
}

QString FlamegraphPanel::stackText(int node) const {
  if (!shown_ || node <= 0 || node >= shown_->size()) return {};
  QStringList lines;
  std::vector<int> path = shown_->pathTo(node);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const FlameNode& n = shown_->node(*it);
    lines << (n.library.isEmpty() ? n.name : n.name + QStringLiteral("  (") + n.library + ')');
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace fathom::gui
