#include "core/import/track_compressor.h"

namespace fathom {

uint32_t TrackCompressor::NewSlot(const Factory& create) {
  uint32_t idx = static_cast<uint32_t>(slots_.size());
  slots_.push_back({create(idx)});
  return idx;
}

uint32_t TrackCompressor::BeginTrack(int64_t cookie, const Factory& create) {
  std::optional<uint32_t> free;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.open > 0 && slot.cookie == cookie) {
      ++slot.open;
      return slot.track;
    }
    if (slot.open == 0 && !free) free = i;
  }
  uint32_t idx = free ? *free : NewSlot(create);
  slots_[idx].cookie = cookie;
  slots_[idx].open = 1;
  return slots_[idx].track;
}

std::optional<uint32_t> TrackCompressor::EndTrack(int64_t cookie) {
  for (Slot& slot : slots_) {
    if (slot.open > 0 && slot.cookie == cookie) {
      --slot.open;
      return slot.track;
    }
  }
  return std::nullopt;
}

TrackCompressor::Slot& TrackCompressor::UnnestableSlot(int64_t cookie, const Factory& create) {
  std::optional<uint32_t> own, free;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    const Slot& slot = slots_[i];
    if (slot.cookie == cookie && (!own || slot.open > 0)) own = i;
    if (slot.open == 0 && !free) free = i;
  }
  uint32_t idx = own ? *own : free ? *free : NewSlot(create);
  slots_[idx].cookie = cookie;
  return slots_[idx];
}

uint32_t TrackCompressor::BeginUnnestable(int64_t cookie, const Factory& create) {
  Slot& slot = UnnestableSlot(cookie, create);
  slot.open = 1;
  return slot.track;
}

uint32_t TrackCompressor::EndUnnestable(int64_t cookie, const Factory& create) {
  Slot& slot = UnnestableSlot(cookie, create);
  slot.open = 0;
  return slot.track;
}

uint32_t TrackCompressor::BeginNestable(int64_t cookie, const Factory& create) {
  Slot& slot = UnnestableSlot(cookie, create);
  ++slot.open;
  return slot.track;
}

uint32_t TrackCompressor::EndNestable(int64_t cookie, const Factory& create) {
  Slot& slot = UnnestableSlot(cookie, create);
  if (slot.open > 0) --slot.open;
  return slot.track;
}

uint32_t TrackCompressor::CompleteTrack(int64_t ts, int64_t dur, const Factory& create) {
  uint32_t idx = 0;
  while (idx < slots_.size() && slots_[idx].end > ts) ++idx;
  if (idx == slots_.size()) NewSlot(create);
  slots_[idx].end = ts + dur;
  return slots_[idx].track;
}

}  // namespace fathom
