// chrome_mojo_event_info args: the method is an interned native symbol,
// named once the import ends from ModuleSymbols (usually appended to the
// trace), else left as its mapping row and rel_pc. Expected rows come from
// upstream's trace processor (v58.2).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

constexpr char kEvents[] = R"pb(
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 0
    incremental_state_cleared: true
    interned_data {
      mapping_paths { iid: 1 str: "liblib.so" }
      build_ids { iid: 2 str: "build-id" }
      mappings { iid: 1 path_string_ids: 1 build_id: 2 }
      unsymbolized_source_locations { iid: 1 mapping_id: 1 rel_pc: 123 }
      unsymbolized_source_locations { iid: 2 mapping_id: 1 rel_pc: 234 }
      unsymbolized_source_locations { iid: 3 mapping_id: 1 rel_pc: 345 }
      unsymbolized_source_locations { iid: 4 mapping_id: 1 rel_pc: 456 }
      unsymbolized_source_locations { iid: 5 mapping_id: 7 rel_pc: 999 }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 0
    track_descriptor {
      uuid: 10
      thread { pid: 123 tid: 345 }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 10
    track_event {
      track_uuid: 10
      type: 3
      name: "e1"
      chrome_mojo_event_info { mojo_interface_method_iid: 1 ipc_hash: 77 is_reply: true }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 11
    track_event {
      track_uuid: 10
      type: 3
      name: "e2"
      chrome_mojo_event_info { mojo_interface_method_iid: 2 payload_size: 5 }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 12
    track_event {
      track_uuid: 10
      type: 3
      name: "e3"
      chrome_mojo_event_info { mojo_interface_method_iid: 3 watcher_notify_interface_tag: "w" }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 13
    track_event {
      track_uuid: 10
      type: 3
      name: "e4"
      chrome_mojo_event_info { mojo_interface_method_iid: 4 data_num_bytes: 6 }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 14
    track_event {
      track_uuid: 10
      type: 3
      name: "e5"
      chrome_mojo_event_info { mojo_interface_tag: "itag" mojo_interface_method_iid: 5 }
    }
  }
  packet {
    trusted_packet_sequence_id: 1
    timestamp: 15
    track_event {
      track_uuid: 10
      type: 3
      name: "e6"
      chrome_mojo_event_info { mojo_interface_method_iid: 42 }
    }
  }
)pb";

constexpr char kSymbols[] = R"pb(
  packet {
    module_symbols {
      path: "/liblib.so"
      build_id: "build-id"
      address_symbols {
        address: 123
        lines { function_name: "storage::mojom::Directory::OpenFile_Sym::IPCStableHash" }
      }
      address_symbols {
        address: 234
        lines { function_name: "storage::mojom::File::Close_Sym::IPCStableHash()" }
      }
      address_symbols {
        address: 345
        lines { function_name: "Foo()" }
      }
      address_symbols {
        address: 456
        lines { function_name: "X_Sym::IPCStableHash" }
      }
    }
  }
)pb";

// "slice,key,display;" per mojo arg of the trace's slices.
std::string MojoArgs(const std::string& text) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  std::string bytes = trace.SerializeAsString();
  TraceProcessor tp;
  EXPECT_TRUE(tp.LoadBuffer(fathom::testing::AsBytes(bytes), bytes.size()).ok());
  auto it = tp.Query(
      "select s.name, a.key, a.display_value from slice s join args a using(arg_set_id) "
      "where a.key glob 'chrome_mojo*' order by s.name, a.key");
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  std::string rows;
  while (it->NextRow()) {
    rows += std::string(it->Get(0).s) + "," + std::string(it->Get(1).s) + "," +
            std::string(it->Get(2).s) + ";";
  }
  return rows;
}

constexpr char kPrefix[] = "chrome_mojo_event_info.";

TEST(MojoEventArgs, SymbolsNameMethodAndInterface) {
  std::string p = kPrefix;
  EXPECT_EQ(MojoArgs(std::string(kEvents) + kSymbols),
            "e1," + p + "ipc_hash,77;e1," + p + "is_reply,true;" + "e1," + p +
                "mojo_interface_tag,storage.mojom.Directory;" + "e1," + p +
                "mojo_method_name,storage::mojom::Directory::OpenFile;" + "e2," + p +
                "mojo_interface_tag,storage.mojom.File;" + "e2," + p +
                "mojo_method_name,storage::mojom::File::Close;" + "e2," + p + "payload_size,5;" +
                "e3," + p + "mojo_interface_tag,Foo();e3," + p + "mojo_method_name,Foo;" + "e3," +
                p + "watcher_notify_interface_tag,w;" + "e4," + p + "data_num_bytes,6;" + "e4," +
                p + "mojo_interface_tag,X_Sym::IPCStableHash;" + "e4," + p + "mojo_method_name,X;" +
                "e5," + p + "mojo_interface_method_iid,5;e5," + p + "mojo_interface_tag,itag;" +
                "e6," + p + "mojo_interface_method_iid,42;");
}

TEST(MojoEventArgs, UnsymbolizedMethodKeepsMappingAndRelPc) {
  std::string rows = MojoArgs(kEvents);
  std::string n = std::string(kPrefix) + "mojo_interface_method.native_symbol.";
  for (const char* e : {"e1,", "e2,", "e3,", "e4,"})
    EXPECT_NE(rows.find(e + n + "mapping_id,0;"), std::string::npos) << e << " in " << rows;
  EXPECT_NE(rows.find("e1," + n + "rel_pc,123;"), std::string::npos) << rows;
  EXPECT_NE(rows.find("e4," + n + "rel_pc,456;"), std::string::npos) << rows;
  EXPECT_NE(rows.find("e6," + std::string(kPrefix) + "mojo_interface_method_iid,42;"),
            std::string::npos)
      << rows;
}

}  // namespace
}  // namespace fathom
