// Private helper of the serverless layer: a duration in seconds with its fraction, for the
// rates, waits and reports the queue, the autoscaler and the replay compute.
#pragma once

#include "budcore/core/time.hpp"

namespace budcore::serverless {

inline double seconds(core::Duration d) { return static_cast<double>(d.count_ns()) / 1e9; }

}  // namespace budcore::serverless
