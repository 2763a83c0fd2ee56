#include "core/import/perf_sample_sessions.h"

#include <cstdio>
#include <string>

#include "core/import/profiler_sample_tracker.h"
#include "core/import/sequence_state.h"
#include "core/import/trace_context.h"
#include "perfetto/common/perf_events.pb.h"
#include "perfetto/trace/profiling/profile_packet.pb.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {

using perfetto::protos::FollowerEvent;
using perfetto::protos::PerfEvents;
using perfetto::protos::PerfSampleDefaults;
using perfetto::protos::TracePacketDefaults;

namespace {

// Linux perf's event names, as upstream names the counter tracks.
const char* CounterName(uint64_t counter) {
  static const char* kNames[] = {"unknown",
                                 "cpu-clock",
                                 "page-faults",
                                 "task-clock",
                                 "context-switches",
                                 "cpu-migrations",
                                 "minor-faults",
                                 "major-faults",
                                 "alignment-faults",
                                 "emulation-faults",
                                 "cpu-cycles",
                                 "instructions",
                                 "cache-references",
                                 "cache-misses",
                                 "branch-instructions",
                                 "branch-misses",
                                 "bus-cycles",
                                 "stalled-cycles-frontend",
                                 "stalled-cycles-backend",
                                 "ref-cycles",
                                 "dummy"};
  return counter < std::size(kNames) ? kNames[counter] : "unknown";
}

// What one timebase count measures; raw events have no known unit.
const char* CounterUnit(uint64_t counter) {
  switch (counter) {
    case PerfEvents::SW_CPU_CLOCK:
    case PerfEvents::SW_TASK_CLOCK:
      return "ns";
    case PerfEvents::HW_CPU_CYCLES:
    case PerfEvents::HW_BUS_CYCLES:
    case PerfEvents::HW_REF_CPU_CYCLES:
      return "cycles";
    case PerfEvents::HW_INSTRUCTIONS:
      return "instructions";
    default:
      return "count";
  }
}

std::string RawEventName(proto::Bytes raw) {
  uint64_t v[4] = {0, 0, 0, 0};  // type, config, config1, config2
  proto::Decoder d(raw);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id >= PerfEvents::RawEvent::kTypeFieldNumber &&
        f.id <= PerfEvents::RawEvent::kConfig2FieldNumber)
      v[f.id - 1] = f.as_uint64();
  char buf[96];
  std::snprintf(buf, sizeof(buf), "raw.0x%llx.0x%llx.0x%llx.0x%llx",
                static_cast<unsigned long long>(v[0]), static_cast<unsigned long long>(v[1]),
                static_cast<unsigned long long>(v[2]), static_cast<unsigned long long>(v[3]));
  return buf;
}

std::string TracepointName(proto::Bytes tp) {
  proto::Decoder d(tp);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == PerfEvents::Tracepoint::kNameFieldNumber) return std::string(f.as_string());
  return "";
}

// An event (timebase or follower): its explicit name, else the name of what
// it counts. `unit` is null for raw events.
struct EventInfo {
  std::string name = CounterName(PerfEvents::SW_CPU_CLOCK);
  const char* unit = CounterUnit(PerfEvents::SW_CPU_CLOCK);
};

EventInfo DecodeEvent(proto::Bytes event, uint32_t name_field, uint32_t counter_field,
                      uint32_t tracepoint_field, uint32_t raw_field) {
  EventInfo info{CounterName(0), CounterUnit(0)};
  std::string explicit_name;
  proto::Decoder d(event);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == name_field) {
      explicit_name = std::string(f.as_string());
    } else if (f.id == counter_field) {
      info.name = CounterName(f.as_uint64());
      info.unit = CounterUnit(f.as_uint64());
    } else if (f.id == tracepoint_field) {
      info.name = TracepointName(f.bytes);
      info.unit = "count";
    } else if (f.id == raw_field) {
      info.name = RawEventName(f.bytes);
      info.unit = nullptr;
    }
  }
  if (!explicit_name.empty()) info.name = explicit_name;
  return info;
}

}  // namespace

PerfSampleSessions::Stream& PerfSampleSessions::StreamOf(const SequenceGeneration& gen) {
  auto [it, inserted] = streams_.try_emplace(gen.sequence_id);
  Stream& stream = it->second;
  if (!inserted) return stream;
  TraceStorage* s = ctx_->storage.get();
  // Without a configured timebase traced_perf samples on cpu-clock.
  EventInfo timebase;
  std::vector<StringId> followers;
  if (gen.trace_packet_defaults) {
    proto::Decoder d(*gen.trace_packet_defaults);
    for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
      if (f.id != TracePacketDefaults::kPerfSampleDefaultsFieldNumber) continue;
      proto::Decoder pd(f.bytes);
      for (proto::Field g = pd.Next(); g.valid(); g = pd.Next()) {
        if (g.id == PerfSampleDefaults::kTimebaseFieldNumber) {
          timebase = DecodeEvent(g.bytes, PerfEvents::Timebase::kNameFieldNumber,
                                 PerfEvents::Timebase::kCounterFieldNumber,
                                 PerfEvents::Timebase::kTracepointFieldNumber,
                                 PerfEvents::Timebase::kRawEventFieldNumber);
        } else if (g.id == PerfSampleDefaults::kFollowersFieldNumber) {
          EventInfo e = DecodeEvent(
              g.bytes, FollowerEvent::kNameFieldNumber, FollowerEvent::kCounterFieldNumber,
              FollowerEvent::kTracepointFieldNumber, FollowerEvent::kRawEventFieldNumber);
          followers.push_back(s->Intern(e.name));
        }
      }
    }
  }
  stream.session = samples_->NewSession(s->Intern("linux.perf"),
                                        timebase.unit ? s->Intern(timebase.unit) : kNullStringId);
  stream.names.push_back(s->Intern(timebase.name));
  stream.names.insert(stream.names.end(), followers.begin(), followers.end());
  return stream;
}

uint32_t PerfSampleSessions::Session(const SequenceGeneration& gen) {
  return StreamOf(gen).session;
}

std::vector<std::pair<uint32_t, double>> PerfSampleSessions::CounterValues(
    const SequenceGeneration& gen, uint32_t cpu, std::optional<uint64_t> timebase_count,
    const std::vector<uint64_t>& followers) {
  Stream& stream = StreamOf(gen);
  auto [it, inserted] = stream.tracks.try_emplace(cpu);
  if (inserted) {
    StringId type = ctx_->storage->Intern("perf_cpu_counter");
    for (size_t i = 0; i < stream.names.size(); ++i) {
      auto dims = ctx_->args_tracker->NewSet();
      dims.AddInt("cpu", cpu).AddInt("perf_session_id", stream.session);
      dims.AddString("name", stream.names[i]);
      auto source = ctx_->args_tracker->NewSet();
      source.AddBool("is_timebase", i == 0);
      it->second.push_back(samples_->NewCounterTrack(stream.names[i], type, kNullStringId, cpu,
                                                     std::move(dims), std::move(source)));
    }
  }
  const std::vector<uint32_t>& tracks = it->second;
  std::vector<std::pair<uint32_t, double>> values;
  if (timebase_count) values.emplace_back(tracks[0], static_cast<double>(*timebase_count));
  for (size_t i = 0; i < followers.size() && i + 1 < tracks.size(); ++i)
    values.emplace_back(tracks[i + 1], static_cast<double>(followers[i]));
  return values;
}

}  // namespace fathom
