// Layouts of the kernel's ftrace ring buffer, read from tracefs at run time:
// events/header_page (page header), events/header_event (record header type codes) and
// events/GROUP/NAME/format (each event's fields). Offsets and sizes differ between kernels
// (e.g. sched_switch.prev_state is 8 bytes on 5.10, 4 on 4.4), so nothing is hard-coded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fathom::recorder {

struct PageHeaderLayout {
  uint32_t timestamp_offset = 0;
  uint32_t timestamp_size = 8;
  uint32_t commit_offset = 8;
  uint32_t commit_size = 8;  // 4 on 32-bit kernels
  uint32_t data_offset = 16;
  uint32_t data_size = 4080;
  uint32_t page_size() const { return data_offset + data_size; }
};

struct EventHeaderLayout {
  uint32_t padding = 29;
  uint32_t time_extend = 30;
  uint32_t time_stamp = 31;
  uint32_t data_max = 28;
};

struct FormatField {
  std::string name;
  std::string type;  // as declared, e.g. "char prev_comm[16]" minus the name: "char[16]"
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_signed = false;
  bool is_data_loc = false;    // __data_loc: u32 = (len << 16) | offset from record start
  bool is_char_array = false;  // fixed-size char[N] (a C string)
  bool is_pointer = false;     // a kernel pointer (e.g. const char *): not readable
};

struct EventFormat {
  std::string group;
  std::string name;
  uint32_t id = 0;
  std::vector<FormatField> common_fields;  // common_type, common_pid, ...
  std::vector<FormatField> fields;
  const FormatField* Find(std::string_view field_name) const;  // event or common field
};

Result<PageHeaderLayout> ParseHeaderPage(std::string_view text);
Result<EventHeaderLayout> ParseHeaderEvent(std::string_view text);
Result<EventFormat> ParseEventFormat(std::string_view text, std::string_view group);

}  // namespace fathom::recorder
