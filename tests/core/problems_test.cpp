// core/problems.hpp: a list of problems folded into one error, the inverse of all_problems().
#include "budcore/core/problems.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace budcore::core {
namespace {

std::vector<std::string> problem_fields(const Error& e) {
  std::vector<std::string> out;
  for (const auto& p : e.all_problems()) out.push_back(p.field);
  return out;
}

TEST(ProblemsTest, TheFirstCarriesTheRestInOrder) {
  Error e = first_with_others({Error::invalid("a", "1", "bad"), Error::invalid("b", "2", "worse"),
                               Error::make(ErrorCode::Unsupported, "no", "c")});
  EXPECT_EQ(e, Error::invalid("a", "1", "bad"));
  ASSERT_EQ(e.others.size(), 2u);
  EXPECT_EQ(e.others[0], Error::invalid("b", "2", "worse"));
  EXPECT_EQ(e.others[1].code, ErrorCode::Unsupported);
  EXPECT_EQ(problem_fields(e), (std::vector<std::string>{"a", "b", "c"}));

  // all_problems() undoes it.
  Error again = first_with_others(e.all_problems());
  EXPECT_EQ(again, e);
  EXPECT_EQ(again.all_problems(), e.all_problems());
}

TEST(ProblemsTest, OneProblemCarriesNothing) {
  Error e = first_with_others({Error::invalid("a", "1", "bad")});
  EXPECT_EQ(e, Error::invalid("a", "1", "bad"));
  EXPECT_TRUE(e.others.empty());
}

// What the first carried is not kept: the list given is the whole list.
TEST(ProblemsTest, TheFirstsOwnOthersAreReplaced) {
  Error first = Error::invalid("a", "1", "bad");
  first.others.push_back(Error::invalid("stale", "", "old"));
  Error e = first_with_others({first, Error::invalid("b", "2", "worse")});
  EXPECT_EQ(problem_fields(e), (std::vector<std::string>{"a", "b"}));
}

TEST(ProblemsTest, AnEmptyListIsAnInternalError) {
  Error e = first_with_others({});
  EXPECT_EQ(e.code, ErrorCode::Internal);
  EXPECT_FALSE(e.message.empty());
  EXPECT_TRUE(e.others.empty());
}

}  // namespace
}  // namespace budcore::core
