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
#include <string_view>
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
  // What Finalize needs of an object row that a packet defined.
  struct DefinedObject {
    uint32_t row;
    uint64_t type_id;
    bool has_self_size;
    int heap_type;  // HeapGraphObject.HeapType
  };
  // References whose field names come from the owner's class (the object
  // listed no field ids): named when the dump ends.
  struct ClassFieldRefs {
    uint64_t type_id;
    uint32_t first_ref;
    uint32_t count;
  };
  // Rows are made as packets are parsed (as upstream numbers them): objects
  // when first seen as owner or referent, classes when an object first
  // names their type id, references with their owner.
  struct Dump {
    bool active = false;
    uint32_t upid = 0;
    int64_t ts = 0;
    std::optional<uint64_t> prev_index;
    int current_heap_type = 0;
    std::optional<int64_t> heap_size;
    std::unordered_map<uint64_t, uint32_t> object_rows;  // object id -> row
    std::vector<uint32_t> rows;                          // in creation order
    std::vector<DefinedObject> defined;
    std::unordered_map<uint64_t, uint32_t> class_rows;     // type id -> row
    std::vector<std::pair<uint32_t, uint32_t>> edges;      // (owner row, owned row)
    std::unordered_map<uint32_t, int64_t> registry_sizes;  // see AttributeNativeSizes
    // Explicit field id -> references waiting for its name.
    std::unordered_map<uint64_t, std::vector<uint32_t>> refs_by_field;
    std::vector<ClassFieldRefs> class_field_refs;
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

  uint32_t ObjectRow(Dump& dump, uint64_t id);
  uint32_t ClassRow(Dump& dump, uint64_t type_id);
  void AddObject(Dump& dump, const Object& o);
  void NameReference(uint32_t ref, std::string_view field);
  void InternFieldName(Dump& dump, uint64_t iid, std::string_view name);
  void FinalizeClasses(Dump& dump);
  void NameClassFieldRefs(Dump& dump);
  void MarkReachable(Dump& dump);
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
