// Builds the uncompressed pprof (perftools.profiles.Profile) that
// EXPERIMENTAL_PROFILE returns from Stack blobs (stack_blob.h), with the
// numbering upstream's answers show:
//  - string_table entries are written the moment a string is first seen,
//    so they interleave with the sample_type entries; "" is index 0 and an
//    empty string is never written again;
//  - mapping ids count from 1, function ids from 2, location ids from 1, each
//    in first-seen order, walking every stack leaf first;
//  - a frame named "" has no function (function_id 0);
//  - samples with the same location list are summed; a stack without entries
//    adds no sample, an entry that sets no field adds no location (so a
//    sample may have none).
// Frames of stack_profile_* rows carry their mapping (start, end,
// exact_offset, name, build_id) and rel_pc as the address; the frame's name
// is both the function's name and system_name. Mappings, functions,
// locations and samples are written in id (first-seen) order; upstream
// writes the last three in its hash tables' order, which is not reproduced.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/sql/functions/stack_blob.h"
#include "core/storage/trace_storage.h"

namespace fathom {

class StackPprofBuilder {
 public:
  // sample_types: (type, unit) per value column.
  StackPprofBuilder(const TraceStorage* storage,
                    const std::vector<std::pair<std::string, std::string>>& sample_types);

  // The error is "Failed to add callstack" for an entry naming no row.
  Status AddSample(const std::vector<StackEntry>& stack, const std::vector<int64_t>& values);

  // The serialized profile; the builder is spent after it.
  std::string Finish();

 private:
  using FunctionKey = std::pair<int64_t, int64_t>;               // name, system_name
  using LocationKey = std::tuple<uint64_t, uint64_t, uint64_t>;  // mapping, address, function
  struct Sample {
    std::vector<uint64_t> locations;
    std::vector<uint64_t> values;
  };

  int64_t InternString(std::string_view s);
  uint64_t InternMapping(uint32_t row);
  uint64_t InternFunction(int64_t name, int64_t system_name);
  // A named frame's location has no address field; a stack_profile frame's
  // always has one, 0 included. (Their keys never meet: mapping ids start at 1.)
  uint64_t InternLocation(uint64_t mapping, std::optional<uint64_t> address, uint64_t function);
  uint64_t NameLocation(std::string_view name);
  bool FrameLocation(uint64_t frame, uint64_t* location);
  bool AddCallsite(uint64_t callsite, std::vector<uint64_t>* locations);

  const TraceStorage* storage_;
  std::string out_;  // string_table and sample_type entries, in write order
  std::unordered_map<std::string, int64_t> strings_;
  std::map<uint32_t, uint64_t> mapping_ids_;
  std::vector<std::string> mappings_;  // serialized, in id order
  std::map<FunctionKey, uint64_t> function_ids_;
  std::vector<std::string> functions_;
  std::map<LocationKey, uint64_t> location_ids_;
  std::vector<std::string> locations_;
  std::map<std::vector<uint64_t>, size_t> sample_index_;
  std::vector<Sample> samples_;
};

}  // namespace fathom
