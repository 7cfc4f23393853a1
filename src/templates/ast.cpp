// The AST's own operations: freeing and measuring a tree without deep recursion.
#include <algorithm>
#include <utility>
#include <vector>

#include "templates/ast.hpp"

namespace budcore::templates::detail {

Expr::~Expr() {
  if (kids.empty() && kw_values.empty()) return;
  // Children whose subtrees still hold children go to a work list and are emptied there, so
  // no destructor below this one recurses.
  std::vector<ExprPtr> work;
  auto adopt = [&](Expr& e) {
    for (auto* list : {&e.kids, &e.kw_values}) {
      for (auto& k : *list)
        if (k && (!k->kids.empty() || !k->kw_values.empty())) work.push_back(std::move(k));
      list->clear();
    }
  };
  try {
    adopt(*this);
    while (!work.empty()) {
      ExprPtr e = std::move(work.back());
      work.pop_back();
      adopt(*e);
    }
  } catch (...) {
    // Out of memory for the work list: what is left is freed recursively, as before.
  }
}

int tree_height(const Expr& root, int limit) {
  std::vector<std::pair<const Expr*, int>> stack{{&root, 1}};
  int best = 0;
  while (!stack.empty()) {
    auto [e, h] = stack.back();
    stack.pop_back();
    best = std::max(best, h);
    if (best > limit) return best;
    for (const auto* list : {&e->kids, &e->kw_values})
      for (const auto& k : *list)
        if (k) stack.emplace_back(k.get(), h + 1);
  }
  return best;
}

}  // namespace budcore::templates::detail
