// Imports ART Java heap graphs (HeapGraph packets, one dump split over many
// packets per sequence until continued=false) into heap_graph_object /
// class / reference / heap_graph, computes reachability and root distances,
// and applies DeobfuscationMapping to class and field names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/import/proto_decoder.h"

namespace fathom {

struct TraceContext;

class HeapGraphParser {
 public:
  explicit HeapGraphParser(TraceContext* ctx) : ctx_(ctx) {}

  void ParseHeapGraph(uint32_t sequence_id, int64_t ts, proto::Bytes payload);
  void ParseDeobfuscationMapping(proto::Bytes payload);
  // Drops (and counts) unfinished dumps, applies deobfuscation.
  void OnImportFinished();

 private:
  struct Object {
    uint64_t id;
    uint64_t type_id;
    uint64_t self_size;
    int64_t native_size;
    int heap_type;                       // HeapGraphObject.HeapType
    std::vector<uint64_t> field_ids;     // explicit reference_field_id
    std::vector<uint64_t> referred_ids;  // reference_object_id (0 = null)
    std::vector<uint64_t> runtime_internal_ids;
  };
  struct Type {
    std::string name;
    uint64_t location_id = 0;
    uint64_t object_size = 0;
    uint64_t superclass_id = 0;
    uint64_t classloader_id = 0;
    int kind = 0;
    std::vector<uint64_t> field_ids;
  };
  struct Dump {
    bool active = false;
    uint32_t upid = 0;
    int64_t ts = 0;
    std::optional<uint64_t> prev_index;
    int current_heap_type = 0;
    std::optional<int64_t> heap_size;
    std::vector<Object> objects;
    std::vector<std::pair<int, std::vector<uint64_t>>> roots;  // (root type, object ids)
    std::map<uint64_t, Type> types;
    std::unordered_map<uint64_t, std::string> field_names, location_names;
  };
  struct ClassMapping {
    std::string deobfuscated;
    // obfuscated -> every deobfuscated name it stands for, in mapping order
    // (R8 merges methods of several classes, or inlines several methods,
    // into one obfuscated name).
    std::map<std::string, std::vector<std::string>> members;
  };

  void Finalize(Dump& dump);
  void ApplyDeobfuscation();
  // "Class.member" of a package (any when nullopt) -> its deobfuscated name.
  using MemberDeobfuscator = std::function<std::optional<std::string>(
      std::string_view, const std::optional<std::string>&)>;
  void DeobfuscateFrames(const MemberDeobfuscator& deobfuscate_member);

  TraceContext* ctx_;
  std::unordered_map<uint32_t, Dump> dumps_;  // by sequence
  // package -> obfuscated class name -> mapping
  std::map<std::string, std::map<std::string, ClassMapping>> deobfuscation_;
  // Named packages in the order their mappings came (last seen last): of
  // several that fit a frame, the last one names it, as upstream.
  std::vector<std::string> deobfuscation_order_;
};

}  // namespace fathom
