// DebugAnnotation -> args rows. A top-level annotation `foo` becomes key
// "debug.foo"; dictionaries add ".key" and arrays "[i]" to the key (the
// flat_key drops the indices), as upstream does.
//
// Nesting depth is set by the file (a 200 KB trace can nest 30,000 deep), so
// the walk keeps its own stack instead of recursing, and one key buffer that
// each level extends and trims. Upstream keeps every level; so does this. What
// it bounds is the total size of the keys one annotation writes (each leaf
// repeats its whole path, so a deep chain with a leaf per level writes
// depth^2 bytes): past LoadLimits::max_annotation_key_bytes the rest of the
// annotation is dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/import/args_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/sequence_state.h"

namespace fathom {

class DebugAnnotationParser {
 public:
  // `max_key_bytes`: LoadLimits::max_annotation_key_bytes.
  DebugAnnotationParser(const SequenceGeneration& gen, uint64_t max_key_bytes)
      : gen_(gen), max_key_bytes_(max_key_bytes) {}

  // Adds one top-level TrackEvent.debug_annotations entry. Returns false on
  // malformed input or when the key budget ran out (what was decoded before is
  // still added).
  bool Parse(proto::Bytes annotation, ArgsTracker::Builder* args);
  // Whether an annotation was cut short by the key budget since construction.
  bool truncated() const { return truncated_; }

 private:
  struct Frame;
  // Visits the next field (or child) of the top frame; returns false when the
  // frame is finished.
  bool StepAnnotation(Frame& f);
  bool StepNested(Frame& f);
  Frame OpenNested(proto::Bytes nested, ArgsTracker::Builder* args);
  // Writes a plain value now; a dict, array or nested value becomes a frame.
  std::optional<Frame> OpenAnnotation(proto::Bytes annotation, ArgsTracker::Builder* args);
  void AddScalar(const proto::Field& f, ArgsTracker::Builder* args);
  // Name of a DebugAnnotation (inline or interned), empty when missing.
  std::string NameOf(proto::Bytes annotation) const;
  // Charges one leaf's key against the budget; false once it is spent.
  bool ChargeKey();

  const SequenceGeneration& gen_;
  uint64_t max_key_bytes_;
  std::string key_;
  // The child the last step opened: a DebugAnnotation, or a NestedValue.
  proto::Bytes pending_bytes_{};
  bool pending_nested_ = false;
  uint64_t key_bytes_ = 0;  // written by the current annotation
  bool truncated_ = false;
  bool ok_ = true;
};

}  // namespace fathom
