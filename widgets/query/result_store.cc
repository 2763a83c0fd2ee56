#include "widgets/query/result_store.h"

#include <QDir>
#include <QMutexLocker>
#include <algorithm>
#include <cstring>

namespace fathom::gui {
namespace {

template <typename T>
void Put(QByteArray* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
T Take(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

PageBuilder::PageBuilder() { cells_.reserve(64 * 1024); }

void PageBuilder::AddRow(const QueryIterator& it, int columns) {
  offsets_.push_back(static_cast<uint32_t>(cells_.size()));
  for (int c = 0; c < columns; ++c) {
    const SqlValue v = it.Get(c);
    switch (v.type) {
      case SqlValue::kNull:
        cells_.append(char(CellType::kNull));
        break;
      case SqlValue::kInt:
        cells_.append(char(CellType::kInt));
        Put<int64_t>(&cells_, v.i);
        break;
      case SqlValue::kDouble:
        cells_.append(char(CellType::kDouble));
        Put<double>(&cells_, v.d);
        break;
      case SqlValue::kString:
        cells_.append(char(CellType::kString));
        Put<uint32_t>(&cells_, static_cast<uint32_t>(v.s.size()));
        cells_.append(v.s.data(), static_cast<qsizetype>(v.s.size()));
        break;
      case SqlValue::kBlob:
        cells_.append(char(CellType::kBlob));
        break;
    }
  }
}

QByteArray PageBuilder::Finish() {
  QByteArray blob;
  const auto n = static_cast<uint32_t>(offsets_.size());
  blob.reserve(static_cast<qsizetype>(4 + 4 * n) + cells_.size());
  Put<uint32_t>(&blob, n);
  for (uint32_t o : offsets_) Put<uint32_t>(&blob, o);
  blob.append(cells_);
  offsets_.clear();
  cells_.clear();
  return blob;
}

int PageView::rows() const {
  return blob_.size() < 4 ? 0 : static_cast<int>(Take<uint32_t>(blob_.constData()));
}

CellType PageView::Cell(int row, int col, int64_t* i, double* d, QByteArray* s) const {
  const char* base = blob_.constData();
  const uint32_t n = Take<uint32_t>(base);
  const char* p = base + 4 + 4 * size_t(n) + Take<uint32_t>(base + 4 + 4 * size_t(row));
  for (int c = 0;; ++c) {
    const auto t = static_cast<CellType>(*p++);
    size_t len = 0;
    if (t == CellType::kInt || t == CellType::kDouble) len = 8;
    if (t == CellType::kString) len = 4 + Take<uint32_t>(p);
    if (c == col) {
      if (t == CellType::kInt) *i = Take<int64_t>(p);
      if (t == CellType::kDouble) *d = Take<double>(p);
      if (t == CellType::kString && s) *s = QByteArray(p + 4, qsizetype(len - 4));
      return t;
    }
    p += len;
  }
}

ResultStore::ResultStore(qint64 memory_budget) : budget_(memory_budget) {}
ResultStore::~ResultStore() = default;

void ResultStore::append(QByteArray blob, int rows) {
  QMutexLocker lock(&mu_);
  Page p;
  p.first_row = rows_;
  p.rows = rows;
  p.size = blob.size();
  p.blob = std::move(blob);
  p.last_use = ++clock_;
  resident_ += p.size;
  rows_ += rows;
  pages_.push_back(std::move(p));
  evictLocked(&pages_.back());
}

qint64 ResultStore::rows() const {
  QMutexLocker lock(&mu_);
  return rows_;
}

int ResultStore::pageOf(qint64 row) const {
  auto it = std::upper_bound(pages_.begin(), pages_.end(), row,
                             [](qint64 r, const Page& p) { return r < p.first_row; });
  return static_cast<int>(it - pages_.begin()) - 1;
}

bool ResultStore::ensureResident(Page& p) {
  p.last_use = ++clock_;
  if (!p.blob.isEmpty()) return true;
  if (!spill_ || p.spill_offset < 0 || !spill_->seek(p.spill_offset)) return false;
  p.blob = spill_->read(p.size);
  if (p.blob.size() != p.size) {
    p.blob.clear();
    return false;
  }
  resident_ += p.size;
  evictLocked(&p);
  return true;
}

void ResultStore::evictLocked(const Page* keep) {
  while (resident_ > budget_) {
    Page* victim = nullptr;
    for (Page& p : pages_) {
      if (&p == keep || p.blob.isEmpty()) continue;
      if (!victim || p.last_use < victim->last_use) victim = &p;
    }
    if (!victim) return;
    if (victim->spill_offset < 0) {
      if (!spill_) {
        spill_ = std::make_unique<QTemporaryFile>(QDir::tempPath() +
                                                  QStringLiteral("/fathom-query-XXXXXX.spill"));
        if (!spill_->open()) {
          spill_.reset();
          return;  // no disk: keep the rows in memory rather than lose them
        }
      }
      const qint64 at = spill_->size();
      if (!spill_->seek(at) || spill_->write(victim->blob) != victim->size) return;
      victim->spill_offset = at;
      spilled_ += victim->size;
    }
    victim->blob = QByteArray();
    resident_ -= victim->size;
  }
}

QVariant ResultStore::value(qint64 row, int col) {
  QMutexLocker lock(&mu_);
  if (row < 0 || row >= rows_ || col < 0 || col >= columns_) return {};
  Page& p = pages_[size_t(pageOf(row))];
  if (!ensureResident(p)) return QStringLiteral("<unreadable spill file>");
  int64_t i = 0;
  double d = 0;
  QByteArray s;
  switch (PageView(p.blob).Cell(int(row - p.first_row), col, &i, &d, &s)) {
    case CellType::kNull:
      return {};
    case CellType::kInt:
      return QVariant::fromValue<qlonglong>(i);
    case CellType::kDouble:
      return d;
    case CellType::kString:
      return QString::fromUtf8(s);
    case CellType::kBlob:
      return QByteArray("<raw bytes>");
  }
  return {};
}

CellType ResultStore::type(qint64 row, int col) {
  QMutexLocker lock(&mu_);
  if (row < 0 || row >= rows_ || col < 0 || col >= columns_) return CellType::kNull;
  Page& p = pages_[size_t(pageOf(row))];
  if (!ensureResident(p)) return CellType::kNull;
  int64_t i;
  double d;
  return PageView(p.blob).Cell(int(row - p.first_row), col, &i, &d, nullptr);
}

bool ResultStore::forEachPage(const std::function<bool(const QByteArray&)>& fn) {
  QMutexLocker lock(&mu_);
  const size_t n = pages_.size();
  lock.unlock();
  for (size_t k = 0; k < n; ++k) {
    // Take a reference-counted copy so the UI may evict it meanwhile.
    lock.relock();
    if (!ensureResident(pages_[k])) return false;
    const QByteArray blob = pages_[k].blob;
    lock.unlock();
    if (!fn(blob)) return false;
  }
  return true;
}

qint64 ResultStore::residentBytes() const {
  QMutexLocker lock(&mu_);
  return resident_;
}

qint64 ResultStore::spilledBytes() const {
  QMutexLocker lock(&mu_);
  return spilled_;
}

void ResultStore::setMemoryBudget(qint64 bytes) {
  QMutexLocker lock(&mu_);
  budget_ = bytes;
  evictLocked(nullptr);
}

}  // namespace fathom::gui
