#include "core/import/inline_callstacks.h"

#include "core/import/profile_stack_tracker.h"
#include "perfetto/trace/profiling/profile_packet.pb.h"
#include "perfetto/trace/track_event/track_event.pb.h"

namespace fathom {

namespace {
using TeFrame = perfetto::protos::TrackEvent::Callstack::Frame;
using SsFrame = perfetto::protos::StackSample::Callstack::Frame;
// One decoder serves both messages: their field numbers agree.
static_assert(TeFrame::kFunctionNameFieldNumber == SsFrame::kFunctionNameFieldNumber);
static_assert(TeFrame::kSourceFileFieldNumber == SsFrame::kSourceFileFieldNumber);
static_assert(TeFrame::kLineNumberFieldNumber == SsFrame::kLineNumberFieldNumber);
static_assert(perfetto::protos::TrackEvent::Callstack::kFramesFieldNumber ==
              perfetto::protos::StackSample::Callstack::kFramesFieldNumber);
constexpr uint32_t kFrames = perfetto::protos::TrackEvent::Callstack::kFramesFieldNumber;
}  // namespace

std::optional<uint32_t> InlineCallstackInterner::Intern(proto::Bytes callstack) {
  // The mapping exists once any inline callstack was seen, even an empty one
  // (as upstream).
  if (!mapping_)
    mapping_ = stacks_->InternMapping(storage_->Intern(""), 0, 0, 0, -1, 0,
                                      storage_->Intern(mapping_name_));
  std::optional<uint32_t> callsite;
  proto::Decoder d(callstack);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {  // root first
    if (f.id != kFrames) continue;
    StringId name = kNullStringId, file = kNullStringId;
    std::optional<uint32_t> line;
    proto::Decoder fd(f.bytes);
    for (proto::Field g = fd.Next(); g.valid(); g = fd.Next()) {
      if (g.id == TeFrame::kFunctionNameFieldNumber) name = storage_->Intern(g.as_string());
      if (g.id == TeFrame::kSourceFileFieldNumber) file = storage_->Intern(g.as_string());
      if (g.id == TeFrame::kLineNumberFieldNumber) line = g.as_uint32();
    }
    callsite = stacks_->InternCallsite(callsite, Frame(name, file, line));
  }
  return callsite;
}

uint32_t InlineCallstackInterner::Frame(StringId name, StringId file,
                                        std::optional<uint32_t> line) {
  auto [it, inserted] =
      frames_.try_emplace({name, file, line ? static_cast<int64_t>(*line) : -1}, 0);
  if (!inserted) return it->second;
  auto& frames = storage_->profile.stack_profile_frame;
  it->second = frames.Insert(name, *mapping_, 0, kNullStringId);
  // A one-symbol set, numbered by its row as upstream numbers them.
  uint32_t set_id = storage_->profile.stack_profile_symbol.row_count();
  storage_->profile.stack_profile_symbol.Insert(set_id, name, file, line);
  frames.symbol_set_id.Set(it->second, set_id);
  return it->second;
}

}  // namespace fathom
