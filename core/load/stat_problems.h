// Every problem that an importer counts only as a stat of severity error becomes a load problem
// that says where it happened: the source and byte offset of the packet being tokenized, or of the
// sorted event being parsed (found through ByteOrigins), else the event's timestamp. Without this,
// a damaged trace said "ftrace_parse_errors: 3" and nothing more. Lines are capped per stat by
// LoadProblems, so a million bad events cost a few lines.
#pragma once

#include "core/storage/stats.h"

namespace fathom {

struct TraceContext;

class StatProblemReporter : public StatObserver {
 public:
  // Observes ctx's stats until destroyed.
  explicit StatProblemReporter(TraceContext* ctx);
  ~StatProblemReporter() override;
  StatProblemReporter(const StatProblemReporter&) = delete;
  StatProblemReporter& operator=(const StatProblemReporter&) = delete;

  void OnCounted(Stat s) override;

 private:
  TraceContext* ctx_;
};

}  // namespace fathom
