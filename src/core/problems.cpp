#include "budcore/core/problems.hpp"

#include <iterator>
#include <utility>

namespace budcore::core {

Error first_with_others(std::vector<Error> problems) {
  if (problems.empty()) return Error::make(ErrorCode::Internal, "a failed check listed no problem");
  Error first = std::move(problems.front());
  first.others.assign(std::make_move_iterator(problems.begin() + 1), std::make_move_iterator(problems.end()));
  return first;
}

}  // namespace budcore::core
