#include "core/trace_processor.h"

#include "core/import/chunk_reader.h"
#include "core/import/metadata_parser.h"
#include "core/import/system_parser.h"
#include "core/import/trace_context.h"
#include "core/load/expansion_guard.h"
#include "core/load/trace_loader.h"
#include "core/load/trace_uuid.h"
#include "core/sql/functions/clock_functions.h"

namespace fathom {

TraceProcessor::TraceProcessor() : ctx_(new TraceContext()) {
  sql_.reset(new SqlEngine(ctx_->storage.get()));
  Status st = sql_->Init();
  // The clock conversions read the import's clock snapshots, which only the
  // import context holds.
  if (st.ok()) st = RegisterClockFunctions(sql_->db(), ctx_->clock_tracker.get());
  (void)st;  // these only fail if SQLite itself is broken; queries report it.
}

TraceProcessor::~TraceProcessor() = default;

TraceStorage& TraceProcessor::storage() { return *ctx_->storage; }
const TraceStorage& TraceProcessor::storage() const { return *ctx_->storage; }

void TraceProcessor::Interrupt() {
  if (sql_) sql_->Interrupt();
}

std::unique_ptr<QueryIterator> TraceProcessor::Query(std::string sql) {
  return sql_->Query(std::move(sql));
}

Status TraceProcessor::LoadFile(const std::string& path, const ProgressCallback& progress) {
  auto reader = OpenTraceFile(path);
  if (!reader.ok()) return reader.status();
  auto guarded = GuardExpansion(std::move(*reader), limits_);
  if (auto uuid = DerivedTraceUuidOfFile(path))
    ctx_->system_parser->metadata().SetDerivedUuid(*uuid);
  return Load(guarded.get(), path, progress);
}

Status TraceProcessor::LoadBuffer(const uint8_t* data, size_t size, const std::string& name) {
  auto reader = GuardExpansion(MakeMemoryReader(data, size), limits_);
  ctx_->system_parser->metadata().SetDerivedUuid(DerivedTraceUuid(data, size));
  return Load(reader.get(), name, {});
}

Status TraceProcessor::Load(ChunkReader* reader, const std::string& name,
                            const ProgressCallback& progress) {
  report_ = LoadReport();
  ctx_->options = options_;
  TraceLoader loader(ctx_.get(), tuning_, limits_, &report_);
  return loader.Load(reader, name, progress);
}

}  // namespace fathom
