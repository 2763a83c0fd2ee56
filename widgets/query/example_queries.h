// Example queries for the Query page's Examples menu. Each names the shared
// test trace it is written for; tests/widgets/query runs every one of them
// against that trace and requires it to succeed (and return rows).
#pragma once

#include <vector>

namespace fathom::gui {

struct ExampleQuery {
  const char* title;
  const char* sql;
  const char* trace;  // file name in ../shared/testdata it is tested on
};

const std::vector<ExampleQuery>& ExampleQueries();

}  // namespace fathom::gui
