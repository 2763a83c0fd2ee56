#include "core/import/f2fs_iostat_parser.h"

#include <string>
#include <string_view>

#include "core/import/track_tracker.h"

namespace fathom {
namespace {

struct Stat {
  uint32_t field;
  std::string_view name;
};

// F2fsIostatFtraceEvent: field number -> counter name (dev is field 9).
constexpr uint32_t kIostatDev = 9;
constexpr Stat kIostat[] = {
    {8, "write_app_total"},   {3, "write_app_direct"}, {1, "write_app_buffered"},
    {5, "write_app_mapped"},  {14, "write_fs_data"},   {22, "write_fs_node"},
    {20, "write_fs_meta"},    {17, "write_gc_data"},   {18, "write_gc_node"},
    {11, "write_cp_data"},    {13, "write_cp_node"},   {12, "write_cp_meta"},
    {7, "read_app_total"},    {4, "read_app_direct"},  {2, "read_app_buffered"},
    {6, "read_app_mapped"},   {16, "read_fs_data"},    {19, "read_fs_gdata"},
    {10, "read_fs_cdata"},    {23, "read_fs_node"},    {21, "read_fs_meta"},
    {15, "other_fs_discard"},
};

// F2fsIostatLatencyFtraceEvent (dev is field 10): {d,n,m}_{rd,wr_s,wr_as}_
// {avg,cnt,peak} are data/node/meta reads, sync and async writes.
constexpr uint32_t kLatencyDev = 10;
constexpr Stat kLatency[] = {
    {1, "read_data_avg"},         {2, "read_data_cnt"},         {3, "read_data_peak"},
    {4, "write_async_data_avg"},  {5, "write_async_data_cnt"},  {6, "write_async_data_peak"},
    {7, "write_sync_data_avg"},   {8, "write_sync_data_cnt"},   {9, "write_sync_data_peak"},
    {11, "read_meta_avg"},        {12, "read_meta_cnt"},        {13, "read_meta_peak"},
    {14, "write_async_meta_avg"}, {15, "write_async_meta_cnt"}, {16, "write_async_meta_peak"},
    {17, "write_sync_meta_avg"},  {18, "write_sync_meta_cnt"},  {19, "write_sync_meta_peak"},
    {20, "read_node_avg"},        {21, "read_node_cnt"},        {22, "read_node_peak"},
    {23, "write_async_node_avg"}, {24, "write_async_node_cnt"}, {25, "write_async_node_peak"},
    {26, "write_sync_node_avg"},  {27, "write_sync_node_cnt"},  {28, "write_sync_node_peak"},
};

template <size_t N>
void PushStats(TraceContext* ctx, int64_t ts, proto::Bytes payload, std::string_view event,
               uint32_t dev_field, const Stat (&stats)[N]) {
  proto::FlatMessage<32> m(payload);
  // The kernel's 32-bit dev_t as userspace splits it: 12-bit major, 20-bit minor.
  auto dev = m[dev_field].as_uint64();
  uint64_t major = (dev >> 8) & 0xfff;
  uint64_t minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  std::string prefix =
      std::string(event) + ".[" + std::to_string(major) + ":" + std::to_string(minor) + "].";
  TraceStorage* s = ctx->storage.get();
  for (const Stat& stat : stats) {
    // Typed by the event, as upstream classifies these tracks.
    uint32_t track = ctx->track_tracker->InternGlobalCounterTrack(
        s->Intern(prefix + std::string(stat.name)), s->Intern(event));
    ctx->track_tracker->PushCounter(ts, static_cast<double>(m[stat.field].as_uint64()), track);
  }
}

}  // namespace

void ParseF2fsIostat(TraceContext* ctx, int64_t ts, proto::Bytes payload) {
  PushStats(ctx, ts, payload, "f2fs_iostat", kIostatDev, kIostat);
}

void ParseF2fsIostatLatency(TraceContext* ctx, int64_t ts, proto::Bytes payload) {
  PushStats(ctx, ts, payload, "f2fs_iostat_latency", kLatencyDev, kLatency);
}

}  // namespace fathom
