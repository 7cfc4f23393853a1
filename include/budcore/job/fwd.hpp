// Forward declarations for budcore::job, so headers that only pass jobs around stay light.
#pragma once

#include <cstdint>

namespace budcore::job {

enum class JobType : std::uint8_t;
enum class DeploymentType : std::uint8_t;
enum class JobSource : std::uint8_t;
enum class JobStatus : std::uint8_t;
enum class JobPriority : std::uint8_t;
enum class BreakerState : std::uint8_t;
enum class TransitionKind : std::uint8_t;

struct Job;
struct JobCheck;
struct StatusTransition;
struct TransitionRule;
struct BackoffPolicy;
struct CircuitBreakerConfig;
class CircuitBreaker;
struct RetryPolicy;
struct RetryDecision;

}  // namespace budcore::job
