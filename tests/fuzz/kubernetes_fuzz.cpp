// libFuzzer: what the Kubernetes backend parses. The first byte picks the parser:
//   0: a kubeconfig (parse_kubeconfig) — never crashes; an error has a message; a success has a server
//   1: a Workload and a Job object (JSON, split at the first NUL) -> observe_job
//   2: a job document -> render_job; rendered objects re-render identically (idempotent names)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/job/job.hpp"
#include "budcore/kubernetes/config.hpp"
#include "budcore/kubernetes/render.hpp"
#include "budcore/kubernetes/status.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto cfg = kubernetes::parse_kubeconfig(text, "/nonexistent");
      if (!cfg && cfg.error().message.empty()) std::abort();
      if (cfg && cfg->server.empty()) std::abort();
      break;
    }
    case 1: {
      auto nul = text.find('\0');
      auto wl = core::parse_json(text.substr(0, nul));
      auto job = nul == std::string_view::npos ? core::Result<core::Value>(core::Value()) : core::parse_json(text.substr(nul + 1));
      if (!wl || !job) break;
      auto o = kubernetes::observe_job(job->is_map() ? &*job : nullptr, wl->is_map() ? &*wl : nullptr);
      if (o.message.empty() && o.status != job::JobStatus::Completed) std::abort();
      break;
    }
    default: {
      auto j = job::Job::from_json(text);
      if (!j) break;
      auto r = kubernetes::render_job(*j);
      if (!r) {
        if (r.error().message.empty()) std::abort();
        break;
      }
      auto again = kubernetes::render_job(*j);
      if (!again || again->objects.size() != r->objects.size()) std::abort();
      for (std::size_t i = 0; i < r->objects.size(); ++i)
        if (core::to_json(again->objects[i]) != core::to_json(r->objects[i]) || !kubernetes::find_drift(r->objects[i], r->objects[i]).empty())
          std::abort();
    }
  }
  return 0;
}
