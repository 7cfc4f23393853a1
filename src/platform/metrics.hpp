// The Platform's metrics: counters and histograms named as docs/platform.md "Metrics" lists
// them (job lifecycle, pipelines, scheduling), rendered in Prometheus text
// exposition format. Gauges (queue usage, pending workloads) are computed at render time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::platform {

class Metrics {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  void count(std::string_view name, const Labels& labels, double by = 1);
  void observe(std::string_view name, const Labels& labels, double value);
  // A gauge sample for this render only.
  void gauge(std::string_view name, const Labels& labels, double value);
  void clear_gauges();
  // A sample whose total or value is kept elsewhere: set as the counter's total or the gauge's
  // value, by the type the description table gives `name`; false (dropped) for a name not in it.
  bool report(std::string_view name, const Labels& labels, double value);

  // HELP/TYPE lines come from the built-in table of metric descriptions. Calls the collector
  // first, which may add gauges of its own.
  std::string render();
  // Adds gauges computed at render time outside the render's caller (the GPU pools).
  void set_collector(std::function<void(Metrics&)> collector) { collector_ = std::move(collector); }

 private:
  struct Histogram {
    std::vector<std::uint64_t> buckets;  // cumulative at render, per bound here
    double sum = 0;
    std::uint64_t count = 0;
  };
  static std::string key(const Labels& labels);
  std::map<std::string, std::map<std::string, double>> counters_;      // name -> labels -> value
  std::map<std::string, std::map<std::string, Histogram>> histograms_;
  std::map<std::string, std::map<std::string, double>> gauges_;
  std::function<void(Metrics&)> collector_;
};

}  // namespace budcore::platform

#pragma GCC visibility pop
