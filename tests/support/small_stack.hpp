// Runs a test body on a thread with a small stack (1 MiB by default): the size services often
// give their worker threads, and the one the limits must hold on (docs/limits.md).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>

#if defined(__SANITIZE_THREAD__)
#define BUDCORE_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BUDCORE_TEST_TSAN 1
#endif
#endif

namespace budcore::test {

// ThreadSanitizer keeps about 750 KiB of every thread's stack for itself, above the thread's
// first frame: a 1 MiB thread leaves its code a quarter of that. Under TSan the thread gets
// this much more, so that the code under test has the stack the test names.
#ifdef BUDCORE_TEST_TSAN
inline constexpr std::size_t kSanitizerStackOverhead = std::size_t{1} << 20;
#else
inline constexpr std::size_t kSanitizerStackOverhead = 0;
#endif

inline void on_small_stack(const std::function<void()>& fn, std::size_t stack_bytes = std::size_t{1} << 20) {
  stack_bytes += kSanitizerStackOverhead;
  struct Call {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  auto trampoline = [](void* p) -> void* {
    auto* c = static_cast<Call*>(p);
    try {
      (*c->fn)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_t t;
  int rc = pthread_create(&t, &attr, trampoline, &call);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start a small-stack thread");
  pthread_join(t, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace budcore::test
