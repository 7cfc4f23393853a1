// A file that cannot be read gives one error shape on every surface (issue #18): every loader
// reads through core::read_input, so the library says Io "cannot open file 'P': <reason>" with
// the field that named the file and P as the value, and the CLI reports that same message as
// invalid input (exit 2) with `path` = the argument or option that named the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/kubernetes/config.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "budcore/usecase/registry.hpp"
#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::core::Error;
using budcore::core::ErrorCode;
using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using nlohmann::json;

const std::string kMissing = "/nonexistent-budcore-dir/missing.yaml";
const std::string kMessage = "cannot open file '" + kMissing + "': No such file or directory";

template <typename R>
Error error_of(const R& r) {
  EXPECT_FALSE(r);
  return r ? Error{} : r.error();
}

TEST(MissingFileTest, EveryLoaderGivesTheSameError) {
  namespace cost = budcore::cost;
  struct Case {
    const char* loader;
    std::function<Error()> load;
    std::string field;
  };
  budcore::usecase::ComponentRegistry registry;
  const std::vector<Case> cases = {
      {"core::read_input", [] { return error_of(budcore::core::read_input(kMissing)); }, "path"},
      {"core::load_document_file", [] { return error_of(budcore::core::load_document_file(kMissing)); }, "path"},
      {"cost::PriceBook::load_file", [] { return error_of(cost::PriceBook::load_file(kMissing)); }, "prices"},
      {"cost::BudgetSet::load_file", [] { return error_of(cost::BudgetSet::load_file(kMissing)); }, "budgets"},
      {"quota::import_kueue_path", [] { return error_of(budcore::quota::import_kueue_path(kMissing)); }, "path"},
      {"usecase::load_template_file", [] { return error_of(budcore::usecase::load_template_file(kMissing)); }, "path"},
      {"usecase::load_usecase_document", [] { return error_of(budcore::usecase::load_usecase_document(kMissing)); },
       "path"},
      {"usecase::load_components", [&] { return error_of(budcore::usecase::load_components(kMissing, registry)); },
       "path"},
      {"kubernetes::load_kubeconfig", [] { return error_of(budcore::kubernetes::load_kubeconfig(kMissing)); },
       "kubeconfig"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.loader);
    Error e = c.load();
    EXPECT_EQ(e.code, ErrorCode::Io) << e.describe();
    EXPECT_EQ(e.message, kMessage);
    EXPECT_EQ(e.field, c.field);
    EXPECT_EQ(e.value, kMissing);
  }
}

class MissingFileCliTest : public budcore::test::detail::CliFixture {
 protected:
  MissingFileCliTest() : CliFixture("budcore_missing_file_") {}
};

TEST_F(MissingFileCliTest, EveryCommandReportsTheSameInvalidInput) {
  const fs::path good_prices = dir_ / "prices.yaml";
  std::ofstream(good_prices) << "currency: USD\ngpu_hour:\n  t4: {on_demand: \"0.35\"}\n";
  const std::string m = quote(kMissing);
  struct Case {
    std::string args;
    std::string path;
    std::string code = "invalid";  // the cost commands use contract 5's code for the same thing
  };
  const std::vector<Case> cases = {
      {"job validate " + m, "FILE"},
      {"pipeline plan " + m, "FILE"},
      {"pipeline run " + m, "FILE"},
      {"pipeline schedule " + m + " --until 1h", "FILE"},
      {"quota simulate " + m, "FILE"},
      {"quota import " + m, "FILE"},
      {"quota export " + m, "FILE"},
      {"schedule estimate " + m, "FILE"},
      {"schedule view " + m + " --html " + quote((dir_ / "v.html").string()), "FILE"},
      {"schedule replay " + m, "CONFIG"},
      {"template eval --batch " + m, "--batch"},
      {"cost estimate --prices " + m + " x", "--prices", "invalid_value"},
      {"cost estimate --prices " + quote(good_prices.string()) + " " + m, "SPEC", "invalid_value"},
      {"cost meter --prices " + quote(good_prices.string()) + " " + m, "INTERVAL", "invalid_value"},
      {"cost report --usage " + m, "--usage", "invalid_value"},
      {"platform simulate " + m, "SCENARIO"},
      {"kubernetes render " + m, "FILE"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    CliRun r = budcore::test::detail::run_cli(c.args, dir_ / "err.txt");
    EXPECT_EQ(r.exit_code, 2);
    json err = json::parse(r.err, nullptr, false);
    ASSERT_FALSE(err.is_discarded()) << r.err;
    EXPECT_EQ(err["error"], (json{{"code", c.code}, {"message", kMessage}, {"path", c.path}, {"value", kMissing}}));
  }
}

}  // namespace
