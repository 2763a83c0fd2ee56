#include "core/load/parse_sorted.h"

#include "core/import/ftrace_parser.h"
#include "core/import/packet_parser.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/sorted_batches.h"
#include "core/import/system_parser.h"
#include "core/import/systrace_text_tokenizer.h"

namespace fathom {

Status ParseSorted(TraceContext* ctx, Sorter* sorter, TokenizerSet* tokenizers,
                   const LoadTuning& tuning, const ProgressCallback& progress, LoadProgress* prog) {
  prog->phase = LoadProgress::kSorting;
  prog->events_total = sorter->size();
  prog->events = 0;
  ctx->storage->ReserveForImport(
      sorter->count(SortKind::kFtraceEvent), sorter->count(SortKind::kCompactSwitch),
      sorter->count(SortKind::kCompactWaking), sorter->count(SortKind::kTracePacket));
  bool cancelled = false;
  uint64_t parsed = 0;
  ProtoTokenizer* proto_tokenizer = tokenizers->proto();
  JsonTraceParser* json_parser = tokenizers->json_parser();
  auto parse = [&](const SortEntry& e) {
    if (cancelled) return;
    ctx->cursor.event = e.data;
    ctx->cursor.event_ts = e.ts;
    switch (e.kind) {
      case SortKind::kFtraceEvent:
        if (e.aux == kGenericTextEventAux || e.aux == kTextEventAux) {  // systrace text
          ParseTextEvent(ctx, e.ts, e.cpu, e.data, e.size);
          break;
        }
        ctx->ftrace_parser->ParseFtraceEvent(
            e.ts, e.cpu, proto::Bytes{e.data, e.size},
            proto_tokenizer ? &proto_tokenizer->generation(e.aux) : nullptr);
        break;
      case SortKind::kCompactSwitch:
        ctx->ftrace_parser->ParseCompactSwitch(e.ts, e.cpu, CompactSwitchOf(e));
        break;
      case SortKind::kCompactWaking:
        ctx->ftrace_parser->ParseCompactWaking(e.ts, e.cpu, CompactWakingOf(e));
        break;
      case SortKind::kTracePacket:
        ctx->packet_parser->ParsePacket(e.ts, proto::Bytes{e.data, e.size},
                                        proto_tokenizer->generation(e.aux));
        break;
      case SortKind::kJsonEvent:
        json_parser->ParseEvent(e.ts, proto::Bytes{e.data, e.size}, e.aux);
        break;
      case SortKind::kAndroidLogEvent:
        ctx->system_parser->ParseAndroidLogEvent(e.ts, proto::Bytes{e.data, e.size});
        break;
    }
    if ((++parsed & 0xfffff) == 0 && progress) {
      prog->events = parsed;
      if (!progress(*prog)) cancelled = true;
    }
  };
  // For a small trace the threads would cost more than they save.
  if (tuning.threads && sorter->size() >= tuning.threaded_merge_min_events) {
    ctx->ftrace_parser->StartTableWorker();
    DrainSortedOnWorker(*sorter, parse);
    ctx->ftrace_parser->StopTableWorker();
  } else {
    sorter->DrainSorted(parse);
  }
  ctx->cursor.event = nullptr;
  ctx->cursor.event_ts.reset();
  if (cancelled) return ErrorStatus("load cancelled");
  json_parser->Flush();  // the events of the last timestamp
  ctx->OnImportFinished();
  prog->phase = LoadProgress::kDone;
  prog->events = parsed;
  if (progress) progress(*prog);
  return Status::Ok();
}

}  // namespace fathom
