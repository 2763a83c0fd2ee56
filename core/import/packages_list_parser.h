// PackagesList packets (android.packages_list): the package_list table.
#pragma once

#include <unordered_set>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class PackagesListParser {
 public:
  explicit PackagesListParser(TraceContext* ctx) : ctx_(ctx) {}
  // Appends the packet's packages. A name already in the table is skipped, as
  // upstream keeps one row per package name (the first seen), even when a
  // later packet gives it another uid.
  void Parse(proto::Bytes payload);

 private:
  TraceContext* ctx_;
  std::unordered_set<StringId> seen_;
};

}  // namespace fathom
