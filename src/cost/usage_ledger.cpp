// The UsageLedger's one out-of-line member, so its vtable has one home.
#include "budcore/cost/usage_ledger.hpp"

namespace budcore::cost {

UsageLedger::~UsageLedger() = default;

}  // namespace budcore::cost
