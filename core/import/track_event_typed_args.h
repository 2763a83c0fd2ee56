// Args of the typed Chrome messages a TrackEvent may carry whose names are
// hashed by the producer: chrome_histogram_sample, chrome_user_event, the
// chrome_hashed_performance_mark extension, and chrome_mojo_event_info (whose
// method is an interned native symbol, see native_symbol_args.h). Each field becomes an arg keyed
// "<message>.<field>", and the name behind a hash joins them when the trace's
// interned data or translation table knows it (as upstream).
#pragma once

#include "core/import/args_tracker.h"
#include "core/import/proto_decoder.h"

namespace fathom {

struct SequenceGeneration;
class TranslationTable;
class StackProfileTracker;

// True when `field_id` of TrackEvent is one of the messages handled here.
bool IsTypedArgsField(uint32_t field_id);

// Adds the args of one such field (`field_id`, payload `msg`) to `args`.
// False when `msg` is not valid protobuf.
bool AddTypedArgs(uint32_t field_id, proto::Bytes msg, const SequenceGeneration& gen,
                  const TranslationTable& translation, StackProfileTracker* stacks,
                  ArgsTracker::Builder* args);

}  // namespace fathom
