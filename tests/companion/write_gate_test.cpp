// Every write the companion makes (Kubernetes create/replace/patch/apply/remove, Store
// put/delete/append) follows a call of its leadership gate on the line before, so a replica without
// the Lease writes nothing. A new write without the gate fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

TEST(CompanionWriteGateTest, EveryWriteIsGated) {
  std::ifstream in(BUDCORE_SOURCE_DIR "/src/companion/companion.cpp");
  ASSERT_TRUE(in);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::regex write(R"(\bclient\.(create|replace|patch|apply|remove)\(|\bstore\.(put|delete|append)_)");
  const std::regex gate(R"(BUDCORE_TRY\((m\.)?gate\(\)\);)");
  int writes = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!std::regex_search(lines[i], write)) continue;
    ++writes;
    ASSERT_GT(i, 0u);
    EXPECT_TRUE(std::regex_search(lines[i - 1], gate))
        << "src/companion/companion.cpp:" << i + 1 << " writes without the gate on the line before: " << lines[i];
  }
  EXPECT_GE(writes, 10) << "the pattern no longer finds the companion's writes";
}

}  // namespace
