// cluster.backend: kubernetes — the KueueCluster a PlatformConfig names: the client from the
// kubeconfig, the quota applied to Kueue (and waited for) when asked.
#include "budcore/kubernetes/cluster.hpp"
#include "budcore/kubernetes/config.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

core::Result<std::unique_ptr<backend::ClusterBackend>> open_kubernetes_cluster(const PlatformConfig& config,
                                                                               const core::Clock& clock) {
  namespace k8s = kubernetes;
  const KubernetesClusterConfig& kc = config.kubernetes;
  auto where = [](core::Error e) {
    if (e.field.empty()) e.field = "cluster.kubernetes";
    e.message = "opening the Kubernetes cluster failed: " + e.message;
    return e;
  };
  auto cluster_config = kc.kubeconfig.empty() ? k8s::default_config(kc.context) : k8s::load_kubeconfig(kc.kubeconfig, kc.context);
  if (!cluster_config) return where(std::move(cluster_config).error());
  auto client = k8s::Client::open(std::move(*cluster_config));
  if (!client) return where(std::move(client).error());
  if (kc.apply_quota) {
    if (auto applied = k8s::apply_quota(**client, config.cluster.quota); !applied) return where(std::move(applied).error());
    if (auto active = k8s::wait_quota_active(**client, config.cluster.quota); !active) return where(active.error());
  }
  k8s::KueueClusterOptions options;
  options.render.layout = config.cluster.layout;
  options.render.flavors = config.cluster.quota.resource_flavors;
  options.render.model_image = kc.model_image;
  options.create_tenant_queues = kc.create_tenant_queues;
  auto cluster = k8s::KueueCluster::create(std::move(*client), std::move(options), clock);
  if (!cluster) return where(std::move(cluster).error());
  return std::unique_ptr<backend::ClusterBackend>(std::move(*cluster));
}

}  // namespace budcore::platform
