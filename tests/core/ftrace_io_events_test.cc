// Ftrace I/O and GPU events that become slices (FtraceIoEvents,
// AdrenoCmdbatchTracker, TrackCompressor) and the _trace_import_logs rows of
// importers. Every expected answer is what upstream's trace_processor_shell
// (v58.2) printed for the same trace.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/conformance/expected_output.h"

namespace fathom {
namespace {

// Loads `trace` (a Trace textproto, or JSON when `json`) and prints `sql`'s results as CSV.
std::string Answer(const std::string& trace, const std::string& sql, bool json = false) {
  std::string bytes = trace;
  if (!json) {
    perfetto::protos::Trace t;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(trace, &t)) << trace;
    bytes = t.SerializeAsString();
  }
  TraceProcessor tp;
  Status st = tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!st.ok()) return "<load failed: " + st.message() + ">";
  auto it = tp.Query(sql);
  std::string out;
  st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  if (!st.ok()) return "<query failed: " + st.message() + ">";
  return conformance::NormaliseDiffOutput(out);
}

std::string Expected(const std::string& csv) { return conformance::NormaliseDiffOutput(csv); }

// block_io: a done closes the innermost open request of its device (not the one of its sector);
// both events set `sector`, the done's value wins; each device has its own unnamed track with
// dimension block_device.
TEST(FtraceIoEvents, BlockIoDoneClosesTheDevicesInnermostRequest) {
  const std::string trace = R"(packet { ftrace_events {
  cpu: 1
  event { timestamp: 1000 pid: 10 block_io_start { dev: 45824 sector: 100 nr_sector: 8 bytes: 4096 ioprio: 1 rwbs: "R" comm: "a" cmd: "" } }
  event { timestamp: 1100 pid: 10 block_io_start { dev: 45824 sector: 200 nr_sector: 8 bytes: 4096 ioprio: 1 rwbs: "W" comm: "a" cmd: "" } }
  event { timestamp: 1200 pid: 10 block_io_start { dev: 45825 sector: 100 nr_sector: 8 bytes: 4096 ioprio: 1 rwbs: "R" comm: "a" cmd: "" } }
  event { timestamp: 1300 pid: 0 block_io_done { dev: 45824 sector: 100 } }
  event { timestamp: 1400 pid: 0 block_io_done { dev: 45824 sector: 200 } }
  event { timestamp: 1500 pid: 0 block_io_done { dev: 45824 sector: 999 } }
  event { timestamp: 1600 pid: 0 block_io_start { dev: 45824 sector: 300 } }
  event { timestamp: 1700 pid: 0 block_io_start { dev: 45824 sector: 300 } }
  event { timestamp: 1800 pid: 0 block_io_done { dev: 45824 sector: 300 } }
  event { timestamp: 1900 pid: 0 block_io_done { dev: 45825 sector: 100 } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, s.name, s.depth, t.type, t.name as track, extract_arg(t.dimension_arg_set_id, 'block_device') as dev, extract_arg(s.arg_set_id, 'sector') as sector from slice s join track t on s.track_id = t.id order by s.id;)";
  EXPECT_EQ(Answer(trace, sql),
            Expected(R"csv("ts","dur","name","depth","type","track","dev","sector"
1000,400,"block_io",0,"block_io","[NULL]",45824,200
1100,200,"block_io",1,"block_io","[NULL]",45824,100
1200,700,"block_io",0,"block_io","[NULL]",45825,100
1600,-1,"block_io",0,"block_io","[NULL]",45824,300
1700,100,"block_io",1,"block_io","[NULL]",45824,300
)csv"));
}

// android_fs: an end finds its start by (inode, offset) and closes the innermost open read of that
// thread's track; a second end of the same key finds nothing.
TEST(FtraceIoEvents, AndroidFsReadsNestPerThreadOnCompressedTracks) {
  const std::string trace = R"(packet { ftrace_events { cpu: 0
  event { timestamp: 1000 pid: 10 android_fs_dataread_start { bytes: 4096 pid: 10 ino: 1 offset: 0 cmdline: "a" i_size: 100 pathbuf: "/a" } }
  event { timestamp: 1100 pid: 11 android_fs_dataread_start { bytes: 4096 pid: 11 ino: 2 offset: 0 cmdline: "b" i_size: 100 pathbuf: "/b" } }
  event { timestamp: 1150 pid: 11 android_fs_dataread_start { bytes: 512 pid: 11 ino: 1 offset: 4096 cmdline: "b" i_size: 100 pathbuf: "/a2" } }
  event { timestamp: 1200 pid: 12 android_fs_dataread_end { bytes: 4096 ino: 1 offset: 0 } }
  event { timestamp: 1300 pid: 12 android_fs_dataread_end { bytes: 4000 ino: 2 offset: 0 } }
  event { timestamp: 1350 pid: 12 android_fs_dataread_end { bytes: 4000 ino: 9 offset: 0 } }
  event { timestamp: 1400 pid: 12 android_fs_dataread_end { bytes: 512 ino: 1 offset: 4096 } }
  event { timestamp: 1500 pid: 10 android_fs_dataread_start { bytes: 1 pid: 10 ino: 5 offset: 0 pathbuf: "/c" } }
  event { timestamp: 1600 pid: 10 android_fs_dataread_start { bytes: 2 pid: 10 ino: 5 offset: 0 pathbuf: "/d" } }
  event { timestamp: 1700 pid: 12 android_fs_dataread_end { bytes: 3 ino: 5 offset: 0 } }
  event { timestamp: 1800 pid: 12 android_fs_dataread_end { bytes: 3 ino: 5 offset: 0 } }
  event { timestamp: 1900 pid: 10 android_fs_dataread_start { bytes: 1 pid: 10 ino: 6 offset: 0 pathbuf: "/e" } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, s.depth, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') as idx, extract_arg(s.arg_set_id, 'file_path') as path, extract_arg(s.arg_set_id, 'offset_end') as off_end, extract_arg(s.arg_set_id, 'bytes_read_end') as bytes_end from slice s join track t on s.track_id = t.id where s.name = 'android_fs_data_read' order by s.id;)";
  EXPECT_EQ(Answer(trace, sql), Expected(R"csv("ts","dur","depth","idx","path","off_end","bytes_end"
1000,200,0,0,"/a",0,4096
1100,300,0,1,"/b",4096,512
1150,150,1,1,"/a2",0,4000
1500,-1,0,0,"/c","[NULL]","[NULL]"
1600,100,1,0,"/d",0,3
1900,-1,1,0,"/e","[NULL]","[NULL]"
)csv"));
}

// android_fs: the cookie is the event's pid (not the payload's); a thread without open reads takes
// the lowest-index free track.
TEST(FtraceIoEvents, AndroidFsTrackIsFreedWhenItsReadsEnd) {
  const std::string trace = R"(packet { ftrace_events { cpu: 0
  event { timestamp: 1000 pid: 10 android_fs_dataread_start { bytes: 1 pid: 20 ino: 1 offset: 0 pathbuf: "/A" } }
  event { timestamp: 1100 pid: 10 android_fs_dataread_start { bytes: 1 pid: 30 ino: 2 offset: 0 pathbuf: "/B" } }
  event { timestamp: 1200 pid: 12 android_fs_dataread_end { bytes: 1 ino: 1 offset: 0 } }
  event { timestamp: 1300 pid: 12 android_fs_dataread_end { bytes: 1 ino: 2 offset: 0 } }
  event { timestamp: 1400 pid: 40 android_fs_dataread_start { bytes: 1 pid: 40 ino: 3 offset: 0 pathbuf: "/C" } }
  event { timestamp: 1450 pid: 50 android_fs_dataread_start { bytes: 1 pid: 50 ino: 4 offset: 0 pathbuf: "/D" } }
  event { timestamp: 1500 pid: 12 android_fs_dataread_end { bytes: 1 ino: 3 offset: 0 } }
  event { timestamp: 1550 pid: 60 android_fs_dataread_start { bytes: 1 pid: 60 ino: 5 offset: 0 pathbuf: "/E" } }
  event { timestamp: 1600 pid: 12 android_fs_dataread_end { bytes: 1 ino: 4 offset: 0 } }
  event { timestamp: 1700 pid: 12 android_fs_dataread_end { bytes: 1 ino: 5 offset: 0 } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, s.depth, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') as idx, extract_arg(s.arg_set_id, 'file_path') as path, extract_arg(s.arg_set_id, 'offset_end') as off_end, extract_arg(s.arg_set_id, 'bytes_read_end') as bytes_end from slice s join track t on s.track_id = t.id where s.name = 'android_fs_data_read' order by s.id;)";
  EXPECT_EQ(Answer(trace, sql), Expected(R"csv("ts","dur","depth","idx","path","off_end","bytes_end"
1000,300,0,0,"/A",0,1
1100,100,1,0,"/B",0,1
1400,100,0,0,"/C",0,1
1450,150,0,1,"/D",0,1
1550,150,0,0,"/E",0,1
)csv"));
}

// Adreno: the context's first queued event names the process; each batch needs its own sync (used
// up by its retire).
TEST(FtraceIoEvents, AdrenoNameComesFromTheContextsFirstQueue) {
  const std::string trace = R"(packet { process_tree {
  processes { pid: 100 cmdline: "com.example.app" }
  threads { tid: 100 tgid: 100 }
  threads { tid: 101 tgid: 100 name: "worker" }
  processes { pid: 200 cmdline: "com.other" }
  threads { tid: 200 tgid: 200 }
} }
packet { trusted_packet_sequence_id: 1 ftrace_events {
  cpu: 0
  event { timestamp: 900000000 pid: 200 kgsl_adreno_cmdbatch_queued { id: 1 timestamp: 42 prio: 0 } }
  event { timestamp: 1000000000 pid: 101 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 42 ticks: 19200000 prio: 0 } }
  event { timestamp: 1100000000 pid: 101 kgsl_adreno_cmdbatch_queued { id: 1 timestamp: 43 prio: 0 } }
  event { timestamp: 1150000000 pid: 200 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 43 ticks: 19200000 prio: 0 } }
  event { timestamp: 3100000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 42 start: 38400000 retire: 48000000 prio: 3 } }
  event { timestamp: 3200000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 43 start: 57600000 retire: 67200000 prio: 3 } }
  event { timestamp: 3250000000 pid: 101 kgsl_adreno_cmdbatch_queued { id: 4 timestamp: 7 prio: 0 } }
  event { timestamp: 3260000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 4 timestamp: 7 ticks: 19200000 prio: 0 } }
  event { timestamp: 3270000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 4 timestamp: 8 ticks: 19200000 prio: 0 } }
  event { timestamp: 3300000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 4 timestamp: 7 start: 48000000 retire: 57600000 prio: 1 } }
  event { timestamp: 3310000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 4 timestamp: 8 start: 67200000 retire: 76800000 prio: 1 } }
  event { timestamp: 3320000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 4 timestamp: 8 start: 86400000 retire: 96000000 prio: 1 } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, t.name, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') as idx from slice s join track t on s.track_id = t.id where t.type = 'adreno_gpu_cmdbatch' order by s.id;)";
  EXPECT_EQ(Answer(trace, sql), Expected(R"csv("ts","dur","name","idx"
2000000000,500000000,"GPU com.other (Ctx=1, Prio=3)",0
3150000000,500000000,"GPU com.other (Ctx=1, Prio=3)",0
4760000000,500000000,"GPU com.example.app (Ctx=4, Prio=1)",0
5770000000,500000000,"GPU com.example.app (Ctx=4, Prio=1)",0
)csv"));
}

// Adreno: ticks convert at 19.2 MHz truncated; an unknown process leaves the name out; a retire
// before its start makes no slice.
TEST(FtraceIoEvents, AdrenoTicksTruncateAndBadRetiresAreDropped) {
  const std::string trace = R"(packet { trusted_packet_sequence_id: 1 ftrace_events {
  cpu: 0
  event { timestamp: 900000000 pid: 555 kgsl_adreno_cmdbatch_queued { id: 1 timestamp: 42 prio: 0 } }
  event { timestamp: 1000000000 pid: 101 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 42 ticks: 19200007 prio: 0 } }
  event { timestamp: 3100000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 42 start: 38400011 retire: 48000013 prio: 3 } }
  event { timestamp: 3200000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 43 ticks: 19200007 prio: 0 } }
  event { timestamp: 3300000000 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 43 start: 96000000 retire: 86400000 prio: 3 } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, t.name, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') as idx from slice s join track t on s.track_id = t.id where t.type = 'adreno_gpu_cmdbatch' order by s.id;)";
  EXPECT_EQ(Answer(trace, sql), Expected(R"csv("ts","dur","name","idx"
2000000208,500000104,"GPU (Ctx=1, Prio=3)",0
)csv"));
}

// Adreno: a batch goes to the lowest-index track whose slices ended by its start; slices are made
// in order of start.
TEST(FtraceIoEvents, AdrenoCompressedTracksFreeAtSliceEnd) {
  const std::string trace = R"(packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 0
event { timestamp: 1000000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 1 ticks: 0 prio: 0 } }
event { timestamp: 1000000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 2 ticks: 0 prio: 0 } }
event { timestamp: 1000000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 3 ticks: 0 prio: 0 } }
event { timestamp: 1000000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 4 ticks: 0 prio: 0 } }
event { timestamp: 1000000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 5 ticks: 0 prio: 0 } }
event { timestamp: 1000000000 pid: 0 kgsl_adreno_cmdbatch_sync { id: 1 timestamp: 6 ticks: 0 prio: 0 } }
event { timestamp: 5000000001 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 1 start: 19200000 retire: 38400000 prio: 0 } }
event { timestamp: 5000000002 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 2 start: 28800000 retire: 48000000 prio: 0 } }
event { timestamp: 5000000003 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 3 start: 38400000 retire: 57600000 prio: 0 } }
event { timestamp: 5000000004 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 4 start: 48000000 retire: 48000000 prio: 0 } }
event { timestamp: 5000000005 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 5 start: 48000000 retire: 51840000 prio: 0 } }
event { timestamp: 5000000006 pid: 0 kgsl_adreno_cmdbatch_retired { id: 1 timestamp: 6 start: 48000000 retire: 48000000 prio: 0 } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, t.name, extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') as idx from slice s join track t on s.track_id = t.id where t.type = 'adreno_gpu_cmdbatch' order by s.id;)";
  EXPECT_EQ(Answer(trace, sql), Expected(R"csv("ts","dur","name","idx"
2000000000,1000000000,"GPU (Ctx=1, Prio=0)",0
2500000000,1000000000,"GPU (Ctx=1, Prio=0)",1
3000000000,1000000000,"GPU (Ctx=1, Prio=0)",0
3500000000,0,"GPU (Ctx=1, Prio=0)",1
3500000000,200000000,"GPU (Ctx=1, Prio=0)",1
3500000000,0,"GPU (Ctx=1, Prio=0)",2
)csv"));
}

// napi_gro: entry/exit nest per CPU, named by the device, category napi_gro; an exit with nothing
// open is ignored.
TEST(FtraceIoEvents, NapiGroSlicesPerCpu) {
  const std::string trace = R"(packet { ftrace_events { cpu: 2
  event { timestamp: 500 pid: 1 napi_gro_receive_exit { ret: 9 } }
  event { timestamp: 1000 pid: 1 napi_gro_receive_entry { name: "rmnet0" len: 100 } }
  event { timestamp: 1010 pid: 1 napi_gro_receive_entry { name: "wlan0" len: 7 } }
  event { timestamp: 1020 pid: 1 napi_gro_receive_exit { ret: 1 } }
  event { timestamp: 1030 pid: 1 napi_gro_receive_exit { ret: 2 } }
}}
packet { ftrace_events { cpu: 3
  event { timestamp: 1005 pid: 1 napi_gro_receive_entry { name: "rmnet1" len: 5 } }
}})";
  const std::string sql =
      R"(select s.ts, s.dur, s.name, s.cat, s.depth, t.name as track, t.type, extract_arg(s.arg_set_id, 'len') as len, extract_arg(s.arg_set_id, 'ret') as ret from slice s join track t on s.track_id = t.id order by s.id;)";
  EXPECT_EQ(Answer(trace, sql),
            Expected(R"csv("ts","dur","name","cat","depth","track","type","len","ret"
1000,30,"rmnet0","napi_gro",0,"Napi Gro Cpu 2","cpu_napi_gro",100,2
1005,-1,"rmnet1","napi_gro",0,"Napi Gro Cpu 3","cpu_napi_gro",5,"[NULL]"
1010,10,"wlan0","napi_gro",1,"Napi Gro Cpu 2","cpu_napi_gro",7,1
)csv"));
}

// A JSON X event that partially overlaps a slice of its thread is moved to
// an overflow track; the log row names it and the innermost slice it
// straddles.
TEST(TraceImportLogs, JsonSpillNamesTheInnermostConflictingSlice) {
  const std::string trace = R"({"traceEvents": [
 {"ph": "X", "ts": 100, "dur": 100, "pid": 1, "tid": 1, "name": "outer"},
 {"ph": "X", "ts": 120, "dur": 50, "pid": 1, "tid": 1, "name": "mid"},
 {"ph": "X", "ts": 150, "dur": 100, "pid": 1, "tid": 1, "name": "inner"},
 {"ph": "X", "ts": 160, "dur": 10, "pid": 1, "tid": 2, "name": "other"}
]})";
  const std::string sql =
      R"(select l.id, l.trace_id, l.ts, l.byte_offset, l.severity, l.name, a.key, a.display_value from _trace_import_logs l join args a using(arg_set_id) order by l.id, a.id;)";
  EXPECT_EQ(
      Answer(trace, sql, true),
      Expected(R"csv("id","trace_id","ts","byte_offset","severity","name","key","display_value"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","event_name","inner"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","event_phase","X"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","overlap_start","150000"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","overlap_end","170000"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","conflicting_slice_name","mid"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","conflicting_slice_ts","120000"
0,0,150000,"[NULL]","error","slice_spill_overlapping_complete_event","conflicting_slice_dur","50000"
)csv"));
}

// The android.aflags data source's error is logged with its text as arg.
TEST(TraceImportLogs, AndroidAflagsError) {
  const std::string trace = R"(packet {
  trusted_packet_sequence_id: 1
  timestamp: 2000
  android_aflags { error: "Failed to read aflags" }
})";
  const std::string sql =
      R"(select l.id, l.trace_id, l.ts, l.byte_offset, l.severity, l.name, a.key, a.display_value from _trace_import_logs l join args a using(arg_set_id) order by l.id, a.id;)";
  EXPECT_EQ(
      Answer(trace, sql),
      Expected(R"csv("id","trace_id","ts","byte_offset","severity","name","key","display_value"
0,0,2000,"[NULL]","error","android_aflags_errors","error","Failed to read aflags"
)csv"));
}

}  // namespace
}  // namespace fathom
