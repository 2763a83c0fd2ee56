// Reader: the heap dump sub-records that describe classes and objects.
#include <algorithm>
#include <cstring>

#include "core/import/hprof/hprof_format.h"
#include "core/import/hprof/hprof_reader.h"

namespace fathom::hprof {
namespace {

uint64_t ReadBE(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

// Sequential big-endian reader over one sub-record; `more` is set when the
// bytes end before the record does.
struct In {
  const uint8_t* p;
  const uint8_t* end;
  uint32_t ids;
  bool more = false;
  uint64_t U(size_t n) {
    if (static_cast<size_t>(end - p) < n) {
      more = true;
      p = end;
      return 0;
    }
    uint64_t v = ReadBE(p, n);
    p += n;
    return v;
  }
  uint64_t Id() { return U(ids); }
};

}  // namespace

Reader::Step Reader::ReadClassDump(const uint8_t* p, size_t n, size_t* used) {
  const uint32_t ids = dump_->id_size;
  In in{p + 1, p + n, ids};
  uint64_t class_id = in.Id();
  in.U(4);
  uint64_t super_id = in.Id();
  for (int i = 0; i < 5; ++i) in.Id();  // loader, signers, domain, 2 reserved
  uint32_t instance_size = static_cast<uint32_t>(in.U(4));
  uint64_t constants = in.U(2);
  for (uint64_t i = 0; i < constants && !in.more; ++i) {
    in.U(2);
    size_t sz = TypeSize(static_cast<uint8_t>(in.U(1)), ids);
    if (sz == 0 && !in.more) return Step::kBad;
    in.U(sz);
  }
  struct Static {
    uint64_t name;
    uint8_t type;
    uint64_t value;
  };
  std::vector<Static> statics(static_cast<size_t>(in.U(2)));
  for (Static& s : statics) {
    s.name = in.Id();
    s.type = static_cast<uint8_t>(in.U(1));
    size_t sz = TypeSize(s.type, ids);
    if (sz == 0 && !in.more) return Step::kBad;
    s.value = in.U(sz);
  }
  std::vector<FieldDef> fields(static_cast<size_t>(in.U(2)));
  for (FieldDef& f : fields) {
    f.name_id = in.Id();
    f.type = static_cast<uint8_t>(in.U(1));
    if (TypeSize(f.type, ids) == 0 && !in.more) return Step::kBad;
  }
  if (in.more) return Step::kMore;
  *used = in.p - p;
  auto it = dump_->classes.find(class_id);
  if (it == dump_->classes.end()) {  // no LOAD_CLASS names it: no row can be made
    ++dump_->class_errors;
    return Step::kDone;
  }
  ClassDef& cls = it->second;
  cls.dumped = true;
  cls.super_id = super_id;
  cls.instance_size = instance_size;
  cls.fields = std::move(fields);
  cls.static_bytes = 0;
  ObjectRec o{class_id, class_id, 0, dump_->refs.size(), 0, heap_, ObjectKind::kClass, 0};
  for (const Static& s : statics) {
    cls.static_bytes += static_cast<uint32_t>(TypeSize(s.type, ids));
    if (s.type != kObject || s.value == 0) continue;
    dump_->refs.push_back({s.value, Label(cls.name + "." + StringOf(s.name))});
    ++o.ref_count;
  }
  dump_->objects.push_back(o);
  return Step::kDone;
}

const Reader::Layout* Reader::LayoutOf(uint64_t class_id) {
  auto cached = layouts_.find(class_id);
  if (cached != layouts_.end()) return &cached->second;
  // Instance data holds the class's own fields first, then its superclass's.
  Layout layout;
  uint32_t offset = 0;
  size_t depth = 0;
  for (uint64_t c = class_id; c != 0; ++depth) {
    auto it = dump_->classes.find(c);
    if (it == dump_->classes.end() || !it->second.dumped || depth > 1000) return nullptr;
    const ClassDef& cls = it->second;
    const bool activity = cls.name == "android.app.Activity";
    const bool string = cls.name == "java.lang.String";
    const bool bitmap = cls.name == "android.graphics.Bitmap";
    layout.bitmap |= bitmap;
    for (const FieldDef& f : cls.fields) {
      if (f.type == kObject)
        layout.fields.push_back({offset, Label(cls.name + "." + StringOf(f.name_id))});
      if (activity && f.type == kBoolean &&
          (StringOf(f.name_id) == "mDestroyed" || StringOf(f.name_id) == "mFinished"))
        layout.finished_flags.push_back(offset);
      if (string && f.type == kByte && StringOf(f.name_id) == "coder") layout.coder = offset;
      if (bitmap && f.type == kInt && StringOf(f.name_id) == "mWidth") layout.width = offset;
      if (bitmap && f.type == kInt && StringOf(f.name_id) == "mHeight") layout.height = offset;
      if (bitmap && f.type == kLong && StringOf(f.name_id) == "mNativePtr")
        layout.native_ptr = offset;
      offset += static_cast<uint32_t>(TypeSize(f.type, dump_->id_size));
    }
    c = cls.super_id;
  }
  return &layouts_.emplace(class_id, std::move(layout)).first->second;
}

void Reader::ReadContentFields(size_t index, const Layout& layout, const uint8_t* data,
                               size_t size) {
  for (uint32_t off : layout.finished_flags) {
    if (off < size && data[off] != 0) {
      dump_->finished_activities.push_back(index);
      break;
    }
  }
  if (layout.coder >= 0 && uint64_t(layout.coder) < size && data[layout.coder] == 1)
    dump_->utf16_strings.push_back(index);
  if (layout.bitmap) {
    auto field = [&](int64_t off, size_t bytes) -> uint64_t {
      return off >= 0 && uint64_t(off) + bytes <= size ? ReadBE(data + off, bytes) : 0;
    };
    dump_->bitmaps.push_back({index, int32_t(uint32_t(field(layout.width, 4))),
                              int32_t(uint32_t(field(layout.height, 4))),
                              int64_t(field(layout.native_ptr, 8))});
  }
}

void Reader::AddInstanceRefs(size_t index, ObjectRec& o, const Layout& layout, const uint8_t* data,
                             size_t size) {
  const uint32_t ids = dump_->id_size;
  if (read_contents_) ReadContentFields(index, layout, data, size);
  o.first_ref = dump_->refs.size();
  for (const ObjectField& f : layout.fields) {
    if (f.offset + ids > size) break;
    uint64_t target = ReadBE(data + f.offset, ids);
    if (target == 0) continue;
    dump_->refs.push_back({target, f.label});
    ++o.ref_count;
  }
}

Reader::Step Reader::ReadInstance(const uint8_t* p, size_t n, size_t* used) {
  const uint32_t ids = dump_->id_size;
  In in{p + 1, p + n, ids};
  uint64_t id = in.Id();
  in.U(4);
  uint64_t class_id = in.Id();
  uint64_t len = in.U(4);
  if (in.more || static_cast<uint64_t>(in.end - in.p) < len) return Step::kMore;
  ObjectRec o{id, class_id, len, dump_->refs.size(), 0, heap_, ObjectKind::kInstance, 0};
  if (const Layout* layout = LayoutOf(class_id)) {
    AddInstanceRefs(dump_->objects.size(), o, *layout, in.p, static_cast<size_t>(len));
  } else {  // decoded once every class is known
    dump_->pending_data[dump_->objects.size()].assign(in.p, in.p + len);
  }
  dump_->objects.push_back(o);
  ++dump_->instance_count;
  *used = in.p + len - p;
  return Step::kDone;
}

Reader::Step Reader::ReadObjectArray(const uint8_t* p, size_t n, size_t* used) {
  const uint32_t ids = dump_->id_size;
  In in{p + 1, p + n, ids};
  uint64_t id = in.Id();
  in.U(4);
  uint64_t count = in.U(4);
  uint64_t class_id = in.Id();
  if (in.more) return Step::kMore;
  dump_->objects.push_back(
      {id, class_id, count, dump_->refs.size(), 0, heap_, ObjectKind::kObjectArray, 0});
  ++dump_->object_array_count;
  array_object_ = dump_->objects.size() - 1;
  array_left_ = count;  // the elements follow (ReadArrayElements)
  array_next_ = 0;
  *used = in.p - p;
  return Step::kDone;
}

size_t Reader::ReadArrayElements(const uint8_t* p, size_t n) {
  const uint32_t ids = dump_->id_size;
  uint64_t whole = std::min<uint64_t>(array_left_, n / ids);
  ObjectRec& o = dump_->objects[array_object_];
  for (uint64_t i = 0; i < whole; ++i, ++array_next_) {
    uint64_t target = ReadBE(p + i * ids, ids);
    if (target == 0) continue;
    dump_->refs.push_back({target, static_cast<uint32_t>(array_next_) | kArrayIndexBit});
    ++o.ref_count;
  }
  array_left_ -= whole;
  return static_cast<size_t>(whole * ids);
}

Reader::Step Reader::ReadPrimitiveArray(const uint8_t* p, size_t n, size_t* used, bool has_data) {
  const uint32_t ids = dump_->id_size;
  In in{p + 1, p + n, ids};
  uint64_t id = in.Id();
  in.U(4);
  uint64_t count = in.U(4);
  uint8_t type = static_cast<uint8_t>(in.U(1));
  if (in.more) return Step::kMore;
  size_t elem = TypeSize(type, ids);
  if (elem == 0 || type == kObject) {
    error_ = "primitive array of unknown element type " + std::to_string(type);
    return Step::kBad;
  }
  dump_->objects.push_back(
      {id, 0, count, dump_->refs.size(), 0, heap_, ObjectKind::kPrimitiveArray, type});
  ++dump_->primitive_array_count;
  *used = in.p - p;
  if (!has_data) return Step::kDone;
  skip_ = count * elem;  // contents are skipped as they stream by
  if (!read_contents_) return Step::kDone;
  // or, for the heap explorer, hashed (not kept); the element type seeds the hash.
  hasher_.Reset(type);
  hashing_ = true;
  dump_->content_hashes.push_back({dump_->objects.size() - 1, 0, unit_offset_ + *used});
  if (skip_ == 0) {
    dump_->content_hashes.back().hash = hasher_.Finish();
    hashing_ = false;
  }
  return Step::kDone;
}

void Reader::ResolvePending() {
  for (auto& [index, data] : dump_->pending_data) {
    ObjectRec& o = dump_->objects[index];
    if (const Layout* layout = LayoutOf(o.class_id))
      AddInstanceRefs(index, o, *layout, data.data(), data.size());
  }
  dump_->pending_data.clear();
}

}  // namespace fathom::hprof
