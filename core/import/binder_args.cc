#include "core/import/binder_args.h"

#include <cstdio>

namespace fathom {
namespace {

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x", v);
  return buf;
}

}  // namespace

std::string BinderFlagsString(uint32_t flags) {
  if (flags == 0) return "0x00 No Flags Set";
  // Bits without a phrase (e.g. 0x02, 0x20) only show in the hex value.
  static constexpr struct {
    uint32_t bit;
    const char* text;
  } kNames[] = {
      {0x01, "this is a one-way call: async, no return; "},
      {0x04, "contents are the components root object; "},
      {0x08, "contents are a 32-bit status code; "},
      {0x10, "allow replies with file descriptors; "},
  };
  std::string out = Hex(flags) + " ";
  for (const auto& n : kNames)
    if (flags & n.bit) out += n.text;
  return out;
}

std::string BinderCodeString(uint32_t code) { return Hex(code) + " Java Layer Dependent"; }

void AddBinderTxnArgs(ArgsTracker::Builder* b, const BinderTxnFields& t) {
  b->AddInt("transaction id", t.debug_id)
      .AddInt("destination node", t.dest_node)
      .AddInt("destination process", t.dest_proc)
      .AddBool("reply transaction?", t.is_reply)
      .AddString("flags", BinderFlagsString(t.flags))
      .AddString("code", BinderCodeString(t.code))
      .AddUint("calling tid", t.calling_tid);
}

}  // namespace fathom
