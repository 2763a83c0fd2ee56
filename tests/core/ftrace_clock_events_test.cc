// clock_set_rate / clock_enable / clock_disable ftrace events: one global
// counter per clock and kind, the clock as its linux_device dimension.
// Input: tests/core/ftrace/clock_events.textproto (encoded by protoc at build
// time); expected rows from trace_processor_shell v58.2 on the same trace.
#include <gtest/gtest.h>

#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

TEST(FtraceClockEvents, CountersAsUpstream) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/clock_events.pb").ok());
  auto it = tp.Query(
      "select t.id, t.name, t.type, a.key, a.display_value, c.ts, c.value from counter_track t "
      "left join args a on a.arg_set_id = t.dimension_arg_set_id "
      "join counter c on c.track_id = t.id order by c.ts");
  std::string out;
  ASSERT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &out).ok());
  EXPECT_EQ(out,
            "\"id\",\"name\",\"type\",\"key\",\"display_value\",\"ts\",\"value\"\n"
            "0,\"dom Frequency\",\"clock_frequency\",\"linux_device\",\"dom\",100,400.000000\n"
            "1,\"dom State\",\"clock_state\",\"linux_device\",\"dom\",200,1.000000\n"
            "1,\"dom State\",\"clock_state\",\"linux_device\",\"dom\",300,0.000000\n");
}

}  // namespace
}  // namespace fathom
