#include "widgets/query/query_result_model.h"

#include <QBrush>
#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QMutex>
#include <QMutexLocker>
#include <QPointer>
#include <QSaveFile>
#include <QThreadPool>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <utility>

namespace fathom::gui {

// The query's state on the worker. Only lane jobs touch `it`; the UI thread
// reads the atomics to decide whether sqlite3_interrupt is needed.
struct QueryCursor {
  std::string sql;
  std::unique_ptr<QueryIterator> it;
  bool started = false;
  std::atomic<bool> cancelled{false};
  std::atomic<bool> stepping{false};
  std::atomic<TraceProcessor*> tp{nullptr};
  // Paging runs as a chain of lane jobs that re-post themselves while the
  // model wants more rows, so no page waits for a round trip through the UI.
  std::atomic<qint64> target{0};  // rows the model wants (UI writes)
  qint64 fetched = 0;             // rows read so far (lane only)
  std::atomic<bool> scheduled{false};
  bool done = false;  // lane only
  // Held while a lane job hands a page to the model, so the model cannot be
  // destroyed half-way through; `model` is cleared by its destructor.
  QMutex mu;
  QPointer<QueryResultModel> model;
  TraceSession* session = nullptr;
  quint64 generation = 0;
};

struct QueryResultModel::Page {
  quint64 generation = 0;
  QStringList columns;  // on the first page only
  QByteArray blob;
  int rows = 0;
  bool first = false;
  bool done = false;
  bool cancelled = false;
  QString error;
  int error_byte = -1;
};

namespace {

// One lane job: opens the query if needed, then reads up to a page of rows.
QueryResultModel::Page FetchPageOnWorker(Core& core, QueryCursor& c) {
  QueryResultModel::Page page;  // generation is set by the caller
  c.tp.store(&core.tp);
  c.stepping.store(true);
  auto finish = [&c, &page]() {
    c.stepping.store(false);
    if (page.done) c.it.reset();  // finalize now: no statement stays active
  };
  if (c.cancelled.load()) {
    page.cancelled = page.done = true;
    finish();
    return page;
  }
  if (!c.started) {
    c.started = true;
    page.first = true;
    c.it = core.tp.Query(c.sql);
    // Several statements: run them all and show the last one's rows, as Perfetto does.
    bool has_rows = c.it->NextResultSet();
    while (has_rows && c.it->HasMoreStatements() && !c.cancelled.load())
      has_rows = c.it->NextResultSet();
    if (!has_rows) {
      page.done = true;
      if (!c.it->status().ok()) {
        page.error = QString::fromStdString(c.it->status().message());
        page.error_byte = c.it->error_offset();
      }
      page.cancelled = c.cancelled.load();
      finish();
      return page;
    }
    for (int i = 0; i < c.it->column_count(); ++i)
      page.columns << QString::fromStdString(c.it->column_name(i));
  }
  if (!c.it) {
    page.done = true;
    finish();
    return page;
  }
  const int n = c.it->column_count();
  PageBuilder b;
  while (b.rows() < QueryResultModel::kPageRows &&
         b.bytes() < size_t(QueryResultModel::kPageBytes)) {
    if (c.cancelled.load(std::memory_order_relaxed)) break;
    if (!c.it->NextRow()) {
      page.done = true;
      break;
    }
    b.AddRow(*c.it, n);
  }
  if (c.cancelled.load()) page.cancelled = page.done = true;
  if (page.done && !page.cancelled && !c.it->status().ok()) {
    page.error = QString::fromStdString(c.it->status().message());
    page.error_byte = c.it->error_offset();
  }
  page.rows = b.rows();
  page.blob = b.Finish();
  finish();
  return page;
}

QString CsvCell(CellType t, int64_t i, double d, const QByteArray& s) {
  switch (t) {
    case CellType::kNull:
      return QStringLiteral("\"[NULL]\"");
    case CellType::kInt:
      return QString::number(i);
    case CellType::kDouble:
      return QString::asprintf("%f", d);
    case CellType::kString: {
      QString v = QString::fromUtf8(s);
      v.replace(QLatin1Char('"'), QLatin1String("\"\""));
      return QLatin1Char('"') + v + QLatin1Char('"');
    }
    case CellType::kBlob:
      return QStringLiteral("\"<raw bytes>\"");
  }
  return {};
}

}  // namespace

QueryResultModel::QueryResultModel(TraceSession* session, QObject* parent)
    : QAbstractTableModel(parent), session_(session) {}

QueryResultModel::~QueryResultModel() { closeCursor(); }

void QueryResultModel::closeCursor() {
  if (!cursor_) return;
  std::shared_ptr<QueryCursor> c = std::move(cursor_);
  c->cancelled.store(true);
  {
    QMutexLocker lock(&c->mu);
    c->model.clear();
  }
  if (c->stepping.load()) {
    if (TraceProcessor* tp = c->tp.load()) tp->Interrupt();
  }
  // The statement is finalized on the lane that owns the connection.
  session_->query<int>(
      [c](Core&) {
        c->it.reset();
        return 0;
      },
      nullptr, [](int) {});
}

void QueryResultModel::run(const QString& sql) {
  closeCursor();
  beginResetModel();
  ++generation_;
  store_ = std::make_shared<ResultStore>(budget_);
  cursor_ = std::make_shared<QueryCursor>();
  cursor_->sql = sql.toStdString();
  sql_ = sql;
  columns_.clear();
  error_.clear();
  error_pos_ = -1;
  rows_ = 0;
  target_rows_ = std::max<qint64>(auto_rows_, 1);
  cursor_->target.store(target_rows_);
  cursor_->session = session_;
  cursor_->model = this;
  cursor_->generation = generation_;
  first_page_ns_ = done_ns_ = -1;
  pending_export_.clear();
  state_ = State::kRunning;
  endResetModel();
  timer_.start();
  emit stateChanged();
  requestPage();
}

namespace {

void SchedulePage(const std::shared_ptr<QueryCursor>& c);

// One link of the chain: read a page, hand it over, decide whether to go on.
void RunPageJob(Core& core, const std::shared_ptr<QueryCursor>& c, QueryResultModel::Page* out) {
  *out = FetchPageOnWorker(core, *c);
  out->generation = c->generation;
  c->fetched += out->rows;
  c->done = out->done;
}

void SchedulePage(const std::shared_ptr<QueryCursor>& c) {
  QMutexLocker lock(&c->mu);
  QueryResultModel* model = c->model.data();
  if (!model || c->cancelled.load()) {
    c->scheduled.store(false);
    return;
  }
  c->session->query<QueryResultModel::Page>(
      [c](Core& core) {
        QueryResultModel::Page page;
        RunPageJob(core, c, &page);
        // Go on while the model wants more; the re-check after clearing
        // `scheduled` catches a target raised meanwhile.
        auto wantMore = [&] { return !c->done && c->fetched < c->target.load(); };
        if (wantMore()) {
          SchedulePage(c);
        } else {
          c->scheduled.store(false);
          if (wantMore() && !c->scheduled.exchange(true)) SchedulePage(c);
        }
        return page;
      },
      model, [model](QueryResultModel::Page p) { model->deliverPage(p); });
}

}  // namespace

void QueryResultModel::requestPage() {
  if (!cursor_ || state_ != State::kRunning) return;
  cursor_->target.store(target_rows_);
  if (!cursor_->scheduled.exchange(true)) SchedulePage(cursor_);
}

void QueryResultModel::deliverPage(const Page& page) { onPage(page); }

void QueryResultModel::onPage(const Page& page) {
  if (page.generation != generation_) return;  // a page of an older run
  // A job scheduled before the last page arrived finds the cursor closed and
  // reports "done" again, without the error: the first ending counts.
  if (!cursor_) return;
  if (page.first) {
    first_page_ns_ = timer_.nsecsElapsed();
    if (!page.columns.isEmpty()) {
      beginInsertColumns({}, 0, int(page.columns.size()) - 1);
      columns_ = page.columns;
      store_->setColumns(int(columns_.size()));
      endInsertColumns();
    }
  }
  if (page.rows > 0) {
    beginInsertRows({}, rows_, rows_ + page.rows - 1);
    store_->append(page.blob, page.rows);
    rows_ += page.rows;
    endInsertRows();
    emit rowsFetched(rows_);
  }
  if (page.done) {
    done_ns_ = timer_.nsecsElapsed();
    cursor_.reset();  // the worker already finalized the statement
    if (page.cancelled) {
      state_ = State::kCancelled;
    } else if (!page.error.isEmpty()) {
      state_ = State::kError;
      error_ = page.error;
      // SQLite's offset counts UTF-8 bytes; the editor counts UTF-16 units.
      error_pos_ = page.error_byte < 0
                       ? -1
                       : int(QString::fromUtf8(sql_.toUtf8().left(page.error_byte)).size());
    } else {
      state_ = State::kDone;
    }
    emit stateChanged();
    if (!pending_export_.isEmpty()) {
      if (state_ == State::kDone) {
        startExport();
      } else {
        const QString path = std::exchange(pending_export_, QString());
        emit exportFinished(path, tr("the query did not finish"));
      }
    }
    return;
  }
}

void QueryResultModel::cancel() {
  if (state_ != State::kRunning) return;
  closeCursor();
  ++generation_;  // drop pages still in flight
  done_ns_ = timer_.nsecsElapsed();
  state_ = State::kCancelled;
  emit stateChanged();
  if (!pending_export_.isEmpty()) {
    const QString path = std::exchange(pending_export_, QString());
    emit exportFinished(path, tr("cancelled"));
  }
}

void QueryResultModel::fetchAll() {
  target_rows_ = std::numeric_limits<qint64>::max();
  requestPage();
}

qint64 QueryResultModel::elapsedNs() const {
  if (done_ns_ >= 0) return done_ns_;
  return timer_.isValid() ? timer_.nsecsElapsed() : 0;
}

void QueryResultModel::setMemoryBudget(qint64 bytes) {
  budget_ = bytes;
  if (store_) store_->setMemoryBudget(bytes);
}

QVariant QueryResultModel::value(int row, int col) const {
  return store_ ? store_->value(row, col) : QVariant();
}

int QueryResultModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}

int QueryResultModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(columns_.size());
}

QVariant QueryResultModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_ || index.column() >= columns_.size()) return {};
  switch (role) {
    case Qt::DisplayRole: {
      const QVariant v = value(index.row(), index.column());
      if (v.isNull()) return QStringLiteral("NULL");
      if (v.typeId() == QMetaType::LongLong) return QString::number(v.toLongLong());
      if (v.typeId() == QMetaType::Double) return QString::number(v.toDouble(), 'g', 15);
      QString s = v.toString();
      // One line per row: long or multi-line text is shown whole in the tooltip.
      if (s.size() > 300) s = s.left(300) + QChar(0x2026);
      s.replace(QLatin1Char('\n'), QChar(0x21B5));
      return s;
    }
    case Qt::EditRole:
    case Qt::UserRole:
      return value(index.row(), index.column());
    case Qt::ToolTipRole: {
      const QVariant v = value(index.row(), index.column());
      if (v.typeId() == QMetaType::QString && v.toString().size() > 40) return v.toString();
      return {};
    }
    case Qt::TextAlignmentRole: {
      const CellType t = store_->type(index.row(), index.column());
      if (t == CellType::kInt || t == CellType::kDouble)
        return int(Qt::AlignRight | Qt::AlignVCenter);
      return int(Qt::AlignLeft | Qt::AlignVCenter);
    }
    case Qt::ForegroundRole:
      if (store_->type(index.row(), index.column()) == CellType::kNull)
        return QBrush(QColor(0x90, 0x90, 0x90));
      return {};
    case Qt::FontRole:
      if (store_->type(index.row(), index.column()) == CellType::kNull) {
        QFont f;
        f.setItalic(true);
        return f;
      }
      return {};
    default:
      return {};
  }
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (o == Qt::Horizontal)
    return section >= 0 && section < columns_.size() ? columns_[section] : QVariant();
  return section + 1;
}

bool QueryResultModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && state_ == State::kRunning && cursor_ != nullptr;
}

void QueryResultModel::fetchMore(const QModelIndex& parent) {
  if (parent.isValid()) return;
  // A view reached the bottom: read ahead a few pages so scrolling stays smooth.
  target_rows_ = std::max<qint64>(target_rows_, rows_ + 4 * kPageRows);
  requestPage();
}

void QueryResultModel::exportCsv(const QString& path) {
  pending_export_ = path;
  if (state_ == State::kDone) {
    startExport();
  } else if (state_ == State::kRunning) {
    fetchAll();
  } else {
    pending_export_.clear();
    emit exportFinished(path, tr("no complete result to export"));
  }
}

void QueryResultModel::startExport() {
  const QString path = std::exchange(pending_export_, QString());
  std::shared_ptr<ResultStore> store = store_;
  const QStringList columns = columns_;
  QPointer<QueryResultModel> self(this);
  // Formatting a million rows takes a while: do it off the UI thread. The
  // store is thread-safe and no longer grows.
  QThreadPool::globalInstance()->start([store, columns, path, self]() {
    QString error;
    QSaveFile file(path);  // writes a temporary file, renamed by commit()
    if (!file.open(QIODevice::WriteOnly)) {
      error = file.errorString();
    } else {
      QByteArray out;
      for (int i = 0; i < columns.size(); ++i) {
        if (i) out += ',';
        out += '"' + columns[i].toUtf8() + '"';
      }
      out += '\n';
      const int n = int(columns.size());
      const bool ok = store->forEachPage([&](const QByteArray& blob) {
        PageView page(blob);
        QByteArray s;
        for (int r = 0; r < page.rows(); ++r) {
          for (int c = 0; c < n; ++c) {
            int64_t i = 0;
            double d = 0;
            const CellType t = page.Cell(r, c, &i, &d, &s);
            if (c) out += ',';
            out += CsvCell(t, i, d, s).toUtf8();
          }
          out += '\n';
        }
        if (file.write(out) != out.size()) return false;
        out.clear();
        return true;
      });
      if (!ok || file.write(out) != out.size()) {
        error = file.errorString().isEmpty() ? QStringLiteral("write failed") : file.errorString();
        file.cancelWriting();
      } else if (!file.commit()) {
        error = file.errorString();
      }
    }
    // Posted to the application, and the guard tested there: a QPointer is
    // only safe to test on the thread that deletes its object.
    QMetaObject::invokeMethod(
        qApp,
        [self, path, error]() {
          if (self) emit self->exportFinished(path, error);
        },
        Qt::QueuedConnection);
  });
}

}  // namespace fathom::gui
