#include "clock_snapshot.h"

#include <time.h>

#include <utility>

#include "gen/perfetto_fields.h"
#include "proto_writer.h"

namespace fathom::device {

uint64_t ClockNowNs(int posix_clock) {
  timespec ts;
  clock_gettime(posix_clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string ClockSnapshotPacket(uint32_t sequence_id) {
  using C = pf::ClockSnapshot;
  ProtoWriter p;
  p.Varint(pf::TracePacket::kTimestampFieldNumber, ClockNowNs(CLOCK_BOOTTIME));
  p.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, sequence_id);
  size_t s = p.BeginNested(pf::TracePacket::kClockSnapshotFieldNumber);
  for (auto [id, clock] :
       {std::pair{kClockBoottime, CLOCK_BOOTTIME}, std::pair{kClockMonotonic, CLOCK_MONOTONIC},
        std::pair{kClockMonotonicCoarse, CLOCK_MONOTONIC_COARSE},
        std::pair{kClockRealtime, CLOCK_REALTIME}}) {
    size_t c = p.BeginNested(C::kClocksFieldNumber);
    p.Varint(C::Clock::kClockIdFieldNumber, id);
    p.Varint(C::Clock::kTimestampFieldNumber, ClockNowNs(clock));
    p.EndNested(c);
  }
  p.Varint(C::kPrimaryTraceClockFieldNumber, kClockBoottime);
  p.EndNested(s);
  return p.data();
}

}  // namespace fathom::device
