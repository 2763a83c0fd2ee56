// Dominator sets by their dataflow definition, O(n^3): the slow, obviously
// right reference the heap-graph dominator tree is tested against.
#pragma once

#include <vector>

namespace fathom::testing {

// Vertices 0..n-1 with successor lists; vertex n is a virtual root above
// `roots`. dom[v][d]: d dominates v (only meaningful where reach[v]).
struct NaiveDominators {
  std::vector<bool> reach;             // n + 1 entries
  std::vector<std::vector<bool>> dom;  // (n + 1) x (n + 1)
};

inline NaiveDominators ComputeNaiveDominators(int n, const std::vector<std::vector<int>>& succ,
                                              const std::vector<int>& roots) {
  std::vector<std::vector<int>> preds(n + 1);
  for (int v = 0; v < n; ++v)
    for (int w : succ[v]) preds[w].push_back(v);
  for (int r : roots) preds[r].push_back(n);
  NaiveDominators out;
  out.reach.assign(n + 1, false);
  std::vector<int> stack = {n};
  out.reach[n] = true;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int w : v == n ? roots : succ[v])
      if (!out.reach[w]) out.reach[w] = true, stack.push_back(w);
  }
  auto& dom = out.dom;
  dom.assign(n + 1, std::vector<bool>(n + 1, true));
  dom[n].assign(n + 1, false);
  dom[n][n] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (int v = 0; v < n; ++v) {
      if (!out.reach[v]) continue;
      std::vector<bool> d(n + 1, true);
      for (int p : preds[v])
        if (out.reach[p])
          for (int k = 0; k <= n; ++k) d[k] = d[k] && dom[p][k];
      d[v] = true;
      if (d != dom[v]) dom[v] = d, changed = true;
    }
  }
  return out;
}

}  // namespace fathom::testing
