// AndroidGameInterventionList packets (android.game_interventions): the
// android_game_intervention_list table, and the data source's parse/read
// errors as stats, as upstream counts them.
#pragma once

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

void ParseGameInterventionList(TraceContext* ctx, proto::Bytes payload);

}  // namespace fathom
