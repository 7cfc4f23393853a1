// The Kueue companion's configuration check, decisions and controller for Python (budcore.kueue
// wraps them): the same documents the C ABI writes, from companion_json.hpp and runner.hpp.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "bindings.hpp"
#include "budcore/companion/companion_json.hpp"
#include "budcore/companion/runner.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

// A configuration given as text (YAML or JSON) or as a dict; file names in it are relative to
// base_dir.
companion::CompanionConfig config_of(const JsonDocArg& config, const std::string& base_dir) {
  core::Value doc = py::isinstance<py::str>(config) ? unwrap(core::parse_document(config.cast<std::string>()))
                                                    : to_value(config, "config");
  return unwrap(companion::CompanionConfig::from_value(doc, base_dir));
}

// The controller (companion::Runner). run() drives it on a thread of its own while this one
// waits with the GIL released, waking to hand events to Python and to let Python handle
// signals: Ctrl-C stops the controller and raises KeyboardInterrupt once it has returned.
class PyCompanion {
 public:
  explicit PyCompanion(std::unique_ptr<companion::Runner> r) : runner_(std::move(r)) {}

  companion::Runner& runner() {
    if (!runner_) throw PyError(core::Error::make(core::ErrorCode::Invalid, "the companion is closed", "companion"));
    return *runner_;
  }

  JsonDict sync_once() {
    companion::Runner& r = runner();
    core::Result<companion::Pass> pass = core::Error::make(core::ErrorCode::Internal, "not run");
    {
      py::gil_scoped_release release;
      pass = r.sync_once();
    }
    return hinted<JsonDict>(to_python(companion::to_value(unwrap(std::move(pass)))));
  }

  // Called with each event dict; returning False stops run().
  using OnEvent = Hinted<"collections.abc.Callable[[dict[str, budcore.types.JsonValue]], bool] | None">;

  void run(const OnEvent& on_event) {
    companion::Runner& r = runner();
    Events events;
    std::thread controller([&] {
      r.run([&](const companion::Written& w) {
              core::Value v = companion::to_value(w);
              v.mutable_map().set("event", "decision");
              events.push(std::move(v));
            },
            [&](const core::Error& e) { events.push(core::Map{{"event", "retrying"}, {"error", core::to_value(e)}}); });
      events.finish();
    });
    // Whatever ends the wait (a stop, the callback, a signal, an exception), the controller
    // thread is joined before this returns.
    auto stop_and_join = [&] {
      r.stop();
      py::gil_scoped_release release;
      controller.join();
    };
    try {
      for (;;) {
        std::deque<core::Value> batch;
        bool finished;
        {
          py::gil_scoped_release release;
          finished = events.wait(batch);
        }
        bool keep_going = true;
        for (auto& e : batch)
          if (keep_going && !on_event.is_none()) keep_going = on_event(to_python(e)).cast<bool>();
        if (!keep_going) {
          stop_and_join();
          return;
        }
        if (finished) break;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      }
    } catch (...) {
      if (controller.joinable()) stop_and_join();
      throw;
    }
    py::gil_scoped_release release;
    controller.join();
  }

  void stop() {
    if (runner_) runner_->stop();
  }
  void close() { runner_.reset(); }
  bool closed() const { return !runner_; }

 private:
  // Events from the controller's threads, taken in batches by the waiting Python thread.
  struct Events {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<core::Value> queue;
    bool done = false;
    void push(core::Value v) {
      std::lock_guard lock(mu);
      queue.push_back(std::move(v));
      cv.notify_one();
    }
    void finish() {
      std::lock_guard lock(mu);
      done = true;
      cv.notify_one();
    }
    // Up to 100 ms for events; true once the controller has returned and all were taken.
    bool wait(std::deque<core::Value>& out) {
      std::unique_lock lock(mu);
      cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return done || !queue.empty(); });
      out.swap(queue);
      return done && out.empty();
    }
  };
  std::unique_ptr<companion::Runner> runner_;
};

}  // namespace

void bind_kueue(py::module_& m) {
  py::class_<PyCompanion>(m, "KueueCompanionHandle", "The C++ companion controller; use budcore.kueue.Companion.")
      .def("sync_once", &PyCompanion::sync_once,
           "One pass: returns {leader, identity?, admission_checks, written, retrying}.")
      .def("run", &PyCompanion::run, py::arg("on_event") = py::none(),
           "Runs until stop() (another thread), on_event returning False, or a signal (Ctrl-C raises).")
      .def("stop", &PyCompanion::stop, "Asks a running run() to return; safe from any thread.")
      .def("close", &PyCompanion::close, "Closes the controller's client and store; later calls raise.")
      .def_property_readonly("closed", &PyCompanion::closed, "True after close().");
  m.def(
      "kueue_companion_open",
      [](const JsonDocArg& config, const std::string& kubeconfig, const std::string& store, const std::string& base_dir) {
        auto cfg = config_of(config, base_dir);
        companion::RunnerOptions o;
        o.kubeconfig = kubeconfig;
        o.store = store;
        std::unique_ptr<companion::Runner> r;
        {
          py::gil_scoped_release release;
          r = unwrap(companion::Runner::open(std::move(cfg), std::move(o)));
        }
        return PyCompanion(std::move(r));
      },
      py::arg("config"), py::arg("kubeconfig") = "", py::arg("store") = "", py::arg("base_dir") = ".",
      "Opens the companion controller: configuration (text or dict), kubeconfig file and store URI "
      "('' for the configuration's or the defaults). ValidationError names a bad input.");
  m.def(
      "kueue_companion_summary",
      [](const JsonDocArg& config, const std::string& base_dir) {
        return hinted<JsonDict>(to_python(companion::config_summary(config_of(config, base_dir))));
      },
      py::arg("config"), py::arg("base_dir") = ".",
      "Validates a companion configuration (text or dict) and returns its summary: controllers, "
      "cluster_queues, tenants, budgets, currency. ValidationError names the field.");
  m.def(
      "kueue_companion_decide",
      [](const JsonDocArg& config, const JsonDictArg& request, const std::string& base_dir) {
        auto cfg = config_of(config, base_dir);
        auto doc = companion::decide_request(cfg, to_value(request, "request"));
        if (!doc) throw PyError(std::move(doc).error().at("request"));
        return hinted<JsonDict>(to_python(*doc));
      },
      py::arg("config"), py::arg("request"), py::arg("base_dir") = ".",
      "The budget and window checks for one Workload: request {'workload', 'owner_annotations'?, "
      "'spent'?, 'now'}; returns {'tenant_id'?, 'price' | 'price_error', 'budget', 'window'}.");
}

}  // namespace budcore::bindings
