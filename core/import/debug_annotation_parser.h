// DebugAnnotation -> args rows. A top-level annotation `foo` becomes key
// "debug.foo"; dictionaries add ".key" and arrays "[i]" to the key (the
// flat_key drops the indices), as upstream does.
#pragma once

#include <string>

#include "core/import/args_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/sequence_state.h"

namespace fathom {

class DebugAnnotationParser {
 public:
  explicit DebugAnnotationParser(const SequenceGeneration& gen) : gen_(gen) {}

  // Adds one top-level TrackEvent.debug_annotations entry. Returns false on
  // malformed input (what could be decoded is still added).
  bool Parse(proto::Bytes annotation, ArgsTracker::Builder* args);

 private:
  bool ParseValue(proto::Bytes annotation, const std::string& key, ArgsTracker::Builder* args);
  bool ParseNestedValue(proto::Bytes nested, const std::string& key, ArgsTracker::Builder* args);
  // Name of a DebugAnnotation (inline or interned), empty when missing.
  std::string NameOf(proto::Bytes annotation) const;

  const SequenceGeneration& gen_;
};

}  // namespace fathom
