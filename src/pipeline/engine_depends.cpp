// Parser and evaluator of `depends` expressions (a small recursive-descent parser).
#include "pipeline/engine_depends.hpp"

#include <algorithm>
#include <cctype>

#include "budcore/core/limits.hpp"

namespace budcore::pipeline::detail {

enum class ResultKind : std::uint8_t { Bare, Succeeded, Failed, Errored, Skipped, Omitted, AnySucceeded, AllFailed };

struct DependsExpr::Node {
  enum class Op : std::uint8_t { Leaf, Not, And, Or } op = Op::Leaf;
  std::string name;
  ResultKind result = ResultKind::Bare;
  int height = 1;  // longest path to a leaf, this node included
  std::shared_ptr<const Node> left, right;
};

namespace {

using NodePtr = std::shared_ptr<const DependsExpr::Node>;

bool parse_result(std::string_view s, ResultKind& out) {
  static const std::pair<std::string_view, ResultKind> kNames[] = {
      {"Succeeded", ResultKind::Succeeded}, {"Failed", ResultKind::Failed},   {"Errored", ResultKind::Errored},
      {"Skipped", ResultKind::Skipped},     {"Omitted", ResultKind::Omitted}, {"AnySucceeded", ResultKind::AnySucceeded},
      {"AllFailed", ResultKind::AllFailed}};
  for (const auto& [n, k] : kNames) {
    if (n == s) {
      out = k;
      return true;
    }
  }
  return false;
}

// An expression over a step's direct upstream steps needs no deep nesting; parsing, evaluating
// and freeing recurse over it, so it is bounded (`a || b || ...` chains and `((((` included).
constexpr int kMaxDependsDepth = 100;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  core::Result<NodePtr> parse_all(std::vector<std::string>& names, std::vector<std::string>& failure_names) {
    names_ = &names;
    failure_names_ = &failure_names;
    auto root = parse_or();
    if (!root) return root;
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text");
    return root;
  }

 private:
  core::Error fail(std::string_view why) const {
    return core::Error::invalid("depends", std::string(text_),
                                std::string(why) + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip_space();
    if (text_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  core::Error too_deep() const {
    return fail("expression nested deeper than " + std::to_string(kMaxDependsDepth) + " levels");
  }
  core::Result<NodePtr> parse_or() {
    core::DepthGuard guard(depth_, kMaxDependsDepth);
    if (!guard.ok()) return too_deep();
    BUDCORE_TRY_ASSIGN(NodePtr left, parse_and());
    while (eat("||")) {
      BUDCORE_TRY_ASSIGN(NodePtr right, parse_and());
      left = binary(DependsExpr::Node::Op::Or, left, right);
      if (left->height > kMaxDependsDepth) return too_deep();
    }
    return left;
  }
  core::Result<NodePtr> parse_and() {
    BUDCORE_TRY_ASSIGN(NodePtr left, parse_not());
    while (eat("&&")) {
      BUDCORE_TRY_ASSIGN(NodePtr right, parse_not());
      left = binary(DependsExpr::Node::Op::And, left, right);
      if (left->height > kMaxDependsDepth) return too_deep();
    }
    return left;
  }
  core::Result<NodePtr> parse_not() {
    core::DepthGuard guard(depth_, kMaxDependsDepth);
    if (!guard.ok()) return too_deep();
    if (eat("!")) {
      BUDCORE_TRY_ASSIGN(NodePtr inner, parse_not());
      auto n = std::make_shared<DependsExpr::Node>();
      n->op = DependsExpr::Node::Op::Not;
      n->height = inner->height + 1;
      if (n->height > kMaxDependsDepth) return too_deep();
      n->left = inner;
      return NodePtr(n);
    }
    if (eat("(")) {
      BUDCORE_TRY_ASSIGN(NodePtr inner, parse_or());
      if (!eat(")")) return fail("expected ')'");
      return inner;
    }
    return parse_leaf();
  }
  core::Result<NodePtr> parse_leaf() {
    skip_space();
    std::size_t start = pos_;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; };
    while (pos_ < text_.size() && word(text_[pos_])) ++pos_;
    if (start == pos_) return fail("expected a step name");
    std::string_view token = text_.substr(start, pos_ - start);
    auto n = std::make_shared<DependsExpr::Node>();
    std::size_t dot = token.rfind('.');
    ResultKind kind = ResultKind::Bare;
    if (dot != std::string_view::npos && parse_result(token.substr(dot + 1), kind)) {
      n->name = std::string(token.substr(0, dot));
      n->result = kind;
    } else {
      n->name = std::string(token);
    }
    if (n->name.empty()) return fail("expected a step name");
    if (std::find(names_->begin(), names_->end(), n->name) == names_->end()) names_->push_back(n->name);
    if (kind != ResultKind::Bare && kind != ResultKind::Succeeded && kind != ResultKind::Skipped &&
        std::find(failure_names_->begin(), failure_names_->end(), n->name) == failure_names_->end()) {
      failure_names_->push_back(n->name);
    }
    return NodePtr(n);
  }
  static NodePtr binary(DependsExpr::Node::Op op, NodePtr l, NodePtr r) {
    auto n = std::make_shared<DependsExpr::Node>();
    n->op = op;
    n->height = std::max(l->height, r->height) + 1;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::string>* names_ = nullptr;
  std::vector<std::string>* failure_names_ = nullptr;
};

bool eval(const DependsExpr::Node& n, const std::function<UpstreamResult(std::string_view)>& lookup) {
  using Op = DependsExpr::Node::Op;
  switch (n.op) {
    case Op::Not: return !eval(*n.left, lookup);
    case Op::And: return eval(*n.left, lookup) && eval(*n.right, lookup);
    case Op::Or: return eval(*n.left, lookup) || eval(*n.right, lookup);
    case Op::Leaf: break;
  }
  UpstreamResult r = lookup(n.name);
  switch (n.result) {
    case ResultKind::Bare: return r.state == StepState::Succeeded || r.state == StepState::Skipped;
    case ResultKind::Succeeded: return r.state == StepState::Succeeded;
    case ResultKind::Failed: return r.state == StepState::Failed || r.state == StepState::Cancelled;
    case ResultKind::Errored: return r.state == StepState::Errored;
    case ResultKind::Skipped: return r.state == StepState::Skipped;
    case ResultKind::Omitted: return r.state == StepState::Omitted;
    case ResultKind::AnySucceeded: return r.children_succeeded > 0;
    case ResultKind::AllFailed: return r.children > 0 && r.children_failed == r.children;
  }
  return false;
}

}  // namespace

core::Result<DependsExpr> DependsExpr::parse(std::string_view text) {
  DependsExpr e;
  Parser p(text);
  BUDCORE_TRY_ASSIGN(e.root_, p.parse_all(e.names_, e.failure_names_));
  return e;
}

bool DependsExpr::handles_failure_of(std::string_view name) const {
  return std::find(failure_names_.begin(), failure_names_.end(), name) != failure_names_.end();
}

bool DependsExpr::evaluate(const std::function<UpstreamResult(std::string_view)>& lookup) const {
  return root_ && eval(*root_, lookup);
}

core::Result<TriggerRule> parse_trigger_rule(std::string_view text) {
  if (text == "all_success") return TriggerRule::AllSuccess;
  if (text == "all_done") return TriggerRule::AllDone;
  if (text == "one_success") return TriggerRule::OneSuccess;
  if (text == "one_failed") return TriggerRule::OneFailed;
  if (text == "none_failed") return TriggerRule::NoneFailed;
  return core::Error::invalid("trigger_rule", std::string(text),
                              "must be one of all_success, all_done, one_success, one_failed, none_failed");
}

}  // namespace budcore::pipeline::detail
