#include "core/import/heap_graph_native_size.h"

#include <optional>

namespace fathom {

namespace {

// The object that `owner`'s field `field` refers to, if any.
std::optional<uint32_t> Referent(const TraceStorage& s, uint32_t owner, StringId field) {
  const auto& refs = s.profile.heap_graph_reference;
  std::optional<uint32_t> set = s.profile.heap_graph_object.reference_set_id.Get(owner);
  if (!set) return std::nullopt;
  for (uint32_t r = *set; r < refs.row_count() && refs.reference_set_id[r] == *set; ++r)
    if (refs.field_name[r] == field) return refs.owned_id.Get(r);
  return std::nullopt;
}

}  // namespace

void AttributeNativeSizes(TraceStorage* s, const std::vector<uint32_t>& rows,
                          const std::unordered_map<uint32_t, int64_t>& registry_sizes) {
  if (registry_sizes.empty()) return;
  const StringId cleaner_class = s->Intern("sun.misc.Cleaner");
  const StringId next = s->Intern("sun.misc.Cleaner.next");
  const StringId thunk = s->Intern("sun.misc.Cleaner.thunk");
  const StringId referent = s->Intern("java.lang.ref.Reference.referent");
  const StringId registry = s->Intern("libcore.util.NativeAllocationRegistry$CleanerThunk.this$0");
  auto& objects = s->profile.heap_graph_object;
  const auto& classes = s->profile.heap_graph_class;
  for (uint32_t row : rows) {
    if (classes.name[objects.type_id[row]] != cleaner_class) continue;
    if (Referent(*s, row, next) == row) continue;  // already run and unlinked
    std::optional<uint32_t> owner = Referent(*s, row, referent);
    std::optional<uint32_t> cleaner_thunk = Referent(*s, row, thunk);
    if (!owner || !cleaner_thunk) continue;
    std::optional<uint32_t> reg = Referent(*s, *cleaner_thunk, registry);
    if (!reg) continue;
    auto size = registry_sizes.find(*reg);
    if (size == registry_sizes.end()) continue;
    objects.native_size.Set(*owner, objects.native_size[*owner] + size->second);
  }
}

}  // namespace fathom
