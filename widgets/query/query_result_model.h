// A lazy table model over one SQL query. The QueryIterator lives on the
// session's query lane; rows come back in pages (one lane job per page, so
// other widgets' work interleaves) and are kept in a ResultStore whose memory
// is bounded. rowCount() grows page by page: the model streams on its own up
// to autoFetchRows(), then only when a view asks (canFetchMore/fetchMore) or
// fetchAll() is called.
#pragma once

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QStringList>
#include <memory>

#include "widgets/common/trace_session.h"
#include "widgets/query/result_store.h"

namespace fathom::gui {

struct QueryCursor;

class QueryResultModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum class State { kIdle, kRunning, kDone, kError, kCancelled };
  static constexpr int kPageRows = 2048;
  static constexpr qint64 kPageBytes = 1 << 20;

  struct Page;  // one page of rows as a lane job hands it back

  explicit QueryResultModel(TraceSession* session, QObject* parent = nullptr);
  ~QueryResultModel() override;

  // Starts `sql` (one statement or a script; the first statement that returns
  // columns is shown). Resets the model.
  void run(const QString& sql);
  // Stops the running query: sqlite3_interrupt when it is inside SQLite now,
  // else the cursor is closed before the next page.
  void cancel();
  // Keep fetching pages until the end of the result.
  void fetchAll();

  State state() const { return state_; }
  bool isComplete() const { return state_ == State::kDone; }
  QString sql() const { return sql_; }
  QString errorMessage() const { return error_; }
  // Character position in sql() the error points at, -1 if SQLite gave none.
  int errorPosition() const { return error_pos_; }
  // Wall time from run() to the first page and to the last one (or now).
  qint64 firstPageNs() const { return first_page_ns_; }
  qint64 elapsedNs() const;
  QStringList columnNames() const { return columns_; }
  // Raw value: null QVariant, qlonglong, double or QString.
  QVariant value(int row, int col) const;

  void setAutoFetchRows(qint64 rows) { auto_rows_ = rows; }
  qint64 autoFetchRows() const { return auto_rows_; }
  void setMemoryBudget(qint64 bytes);
  qint64 residentBytes() const { return store_ ? store_->residentBytes() : 0; }
  qint64 spilledBytes() const { return store_ ? store_->spilledBytes() : 0; }

  // Writes the whole result as CSV (core's diff-test CSV: quoted header and
  // strings, "[NULL]", %f doubles; quotes inside strings are doubled) to a
  // temporary file next to `path`, then renames it. Fetches the rest of the
  // result first if needed. exportFinished() reports the outcome.
  void exportCsv(const QString& path);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  bool canFetchMore(const QModelIndex& parent = {}) const override;
  void fetchMore(const QModelIndex& parent = {}) override;

  // Called on the UI thread with each page the lane read (internal).
  void deliverPage(const Page& page);

 signals:
  void stateChanged();
  void rowsFetched(qint64 rows);
  void exportFinished(const QString& path, const QString& error);

 private:
  void requestPage();
  void onPage(const Page& page);
  void closeCursor();
  void startExport();

  TraceSession* session_;
  std::shared_ptr<QueryCursor> cursor_;
  std::shared_ptr<ResultStore> store_;
  quint64 generation_ = 0;
  State state_ = State::kIdle;
  QString sql_;
  QStringList columns_;
  QString error_;
  int error_pos_ = -1;
  int rows_ = 0;
  qint64 target_rows_ = 0;
  qint64 auto_rows_ = 5'000'000;
  qint64 budget_ = 64ll << 20;
  QElapsedTimer timer_;
  qint64 first_page_ns_ = -1;
  qint64 done_ns_ = -1;
  QString pending_export_;
};

}  // namespace fathom::gui
