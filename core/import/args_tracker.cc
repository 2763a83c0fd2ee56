#include "core/import/args_tracker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace fathom {
namespace {
enum ValueType : uint8_t { kInt, kUint, kString, kReal, kPointer, kBool, kJson };
const char* const kTypeNames[] = {"int", "uint", "string", "real", "pointer", "bool", "json"};

std::string FlatKey(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '[') {
      size_t close = key.find(']', i);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    out.push_back(key[i]);
  }
  return out;
}
}  // namespace

ArgsTracker::ArgsTracker(TraceStorage* storage) : storage_(storage) {
  for (int i = 0; i < 7; ++i) type_names_[i] = storage->Intern(kTypeNames[i]);
  bool_names_[0] = storage->Intern("false");
  bool_names_[1] = storage->Intern("true");
}

ArgsTracker::Builder& ArgsTracker::Builder::Add(std::string_view key, Arg arg) {
  TraceStorage* s = tracker_->storage_;
  arg.key = s->Intern(key);
  arg.flat_key = key.find('[') == std::string_view::npos ? arg.key : s->Intern(FlatKey(key));
  args_.push_back(arg);
  return *this;
}

ArgsTracker::Builder& ArgsTracker::Builder::AddInt(std::string_view key, int64_t v) {
  return Add(key, Arg{0, 0, kInt, v});
}
ArgsTracker::Builder& ArgsTracker::Builder::AddUint(std::string_view key, uint64_t v) {
  return Add(key, Arg{0, 0, kUint, static_cast<int64_t>(v)});
}
ArgsTracker::Builder& ArgsTracker::Builder::AddBool(std::string_view key, bool v) {
  return Add(key, Arg{0, 0, kBool, v ? 1 : 0});
}
ArgsTracker::Builder& ArgsTracker::Builder::AddReal(std::string_view key, double v) {
  Arg a{0, 0, kReal};
  a.d = v;
  return Add(key, a);
}
ArgsTracker::Builder& ArgsTracker::Builder::AddString(std::string_view key, std::string_view v) {
  return AddString(key, tracker_->storage_->Intern(v));
}
ArgsTracker::Builder& ArgsTracker::Builder::AddString(std::string_view key, StringId v) {
  Arg a{0, 0, kString};
  a.s = v;
  return Add(key, a);
}
ArgsTracker::Builder& ArgsTracker::Builder::AddPointer(std::string_view key, uint64_t v) {
  return Add(key, Arg{0, 0, kPointer, static_cast<int64_t>(v)});
}
ArgsTracker::Builder& ArgsTracker::Builder::AddJson(std::string_view key, std::string_view v) {
  Arg a{0, 0, kJson};
  a.s = tracker_->storage_->Intern(v);
  return Add(key, a);
}

ArgsTracker::Builder& ArgsTracker::Builder::Append(Builder&& other) {
  // A key both sets have takes the later value in its first place, as
  // upstream's args tracker updates an arg added twice (e.g. a slice's end
  // event repeating an arg of its begin).
  for (const Arg& arg : other.args_) {
    auto same =
        std::find_if(args_.begin(), args_.end(), [&](const Arg& a) { return a.key == arg.key; });
    if (same != args_.end()) {
      *same = arg;
    } else {
      args_.push_back(arg);
    }
  }
  other.args_.clear();
  return *this;
}

std::optional<uint32_t> ArgsTracker::Builder::Commit() {
  if (args_.empty()) return std::nullopt;
  uint32_t set = tracker_->NewSetId();
  WriteRows(set);
  return set;
}

std::optional<uint32_t> ArgsTracker::Builder::CommitMerged(std::optional<uint32_t> base) {
  if (!base) return Commit();
  if (args_.empty()) return base;
  TraceStorage* s = tracker_->storage_;
  ArgsTable& t = s->args;
  uint32_t set = tracker_->NewSetId();
  // arg_set_id is sorted: binary search the base set's rows.
  // Only written rows: `base` is never a deferred (raw ftrace) set, and
  // reading all rows here would write the deferred ones mid-import.
  const auto& ids = t.arg_set_id.written();
  auto first = std::lower_bound(ids.begin(), ids.end(), *base);
  auto begin_row = static_cast<uint32_t>(first - ids.begin());
  auto end_row = static_cast<uint32_t>(std::upper_bound(first, ids.end(), *base) - ids.begin());
  // Indices, not iterators: inserting below reallocates the columns.
  for (uint32_t i = begin_row; i < end_row; ++i) {
    t.Insert(set, t.flat_key[i], t.key[i], t.int_value.Get(i), t.string_value[i],
             t.real_value.Get(i), t.value_type[i], t.display_value[i]);
  }
  WriteRows(set);
  return set;
}

void ArgsTracker::Builder::WriteRows(uint32_t set) {
  TraceStorage* s = tracker_->storage_;
  char buf[64];
  for (const Arg& a : args_) {
    std::optional<int64_t> iv;
    std::optional<double> rv;
    StringId sv = kNullStringId, display = kNullStringId;
    switch (a.type) {
      case kBool:
        iv = a.i;
        display = tracker_->bool_names_[a.i ? 1 : 0];
        break;
      case kInt:
        iv = a.i;
        snprintf(buf, sizeof buf, "%" PRId64, a.i);
        display = s->Intern(buf);
        break;
      case kUint:
        iv = a.i;
        snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(a.i));
        display = s->Intern(buf);
        break;
      case kPointer:
        iv = a.i;
        snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<uint64_t>(a.i));
        display = s->Intern(buf);
        break;
      case kReal:
        rv = a.d;
        snprintf(buf, sizeof buf, "%g", a.d);
        display = s->Intern(buf);
        break;
      case kString:
      case kJson:
        sv = a.s;
        display = a.s;
        break;
    }
    s->args.Insert(set, a.flat_key, a.key, iv, sv, rv, tracker_->type_names_[a.type], display);
  }
  args_.clear();
}

}  // namespace fathom
