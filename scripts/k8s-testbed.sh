#!/usr/bin/env bash
# A real Kubernetes control plane for tests: etcd, kube-apiserver and the Kueue controller, built
# from their published Go modules at pinned versions and started on loopback.
#
#   k8s-testbed.sh build              build (or find cached) binaries; prints their directory
#   k8s-testbed.sh start STATE_DIR    build if needed, start all three, write STATE_DIR/kubeconfig
#   k8s-testbed.sh start-multi STATE_DIR N
#                                     start as above plus N MultiKueue worker control planes
#   k8s-testbed.sh worker-kueue|worker-apiserver STATE_DIR I kill|start
#                                     kill (SIGKILL) or restart worker I's Kueue or apiserver
#   k8s-testbed.sh stop STATE_DIR     stop what start started and delete its data
#   k8s-testbed.sh status STATE_DIR   exit 0 when the test bed of STATE_DIR answers
#   k8s-testbed.sh kubectl            build kubectl of the same release (for benchmarks); prints its path
#
# Binaries are cached by version under ${XDG_CACHE_HOME:-$HOME/.cache}/budcore/k8s-testbed, with
# the Go module and build caches beside them (CI caches that one directory), so only the first
# run on a machine compiles (~15-25 min on 2 cores); later runs start in ~7 s.
#
# Environment: BUDCORE_K8S_CACHE (cache root), BUDCORE_K8S_SKIP_BUILD=1 (start fails instead of
# building when the binaries are missing), BUDCORE_K8S_METRICS_CERT_DIR (see kueue_metrics_certs),
# BUDCORE_K8S_WORKERS=N (start also starts N worker control planes, as start-multi does),
# BUDCORE_K8S_WORKER_LOST_TIMEOUT (the manager's MultiKueue workerLostTimeout; 30 s, not Kueue's
# 15 min, so that a test sees a lost worker's jobs requeued).
set -u
set -o pipefail

ETCD_VERSION=v3.5.35
K8S_VERSION=v1.36.3     # k8s.io/kubernetes; its staging modules are at v0.36.3
K8S_STAGING_VERSION=v0.36.3
KUEUE_VERSION=v0.19.2

cache=${BUDCORE_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/budcore/k8s-testbed}
etcd_dir=$cache/bin/etcd-$ETCD_VERSION
cp_dir=$cache/bin/apiserver-$K8S_VERSION-kueue-$KUEUE_VERSION

export GOMODCACHE=$cache/go/mod
export GOCACHE=$cache/go/build
export GOTOOLCHAIN=local
export CGO_ENABLED=0
export GOFLAGS=-buildvcs=false

die() {
  echo "k8s-testbed: $*" >&2
  exit 1
}
log() { echo "k8s-testbed: $*" >&2; }

have_binaries() {
  [[ -x $etcd_dir/etcd && -x $cp_dir/kube-apiserver && -x $cp_dir/kueue && -f $cp_dir/crds.yaml ]]
}

# ---------------------------------------------------------------------------------------------
# Build

# etcd's server module carries replace directives, so `go install` refuses it: build it as a
# tool of a throwaway wrapper module instead.
build_etcd() {
  [[ -x $etcd_dir/etcd ]] && return 0
  local w=$cache/src/etcd-$ETCD_VERSION t0=$SECONDS
  log "building etcd $ETCD_VERSION (about 1.5 min)"
  rm -rf "$w" && mkdir -p "$w" "$etcd_dir" || return 1
  (
    cd "$w" &&
      go mod init budcore.local/testbed/etcd >/dev/null 2>&1 &&
      go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION" &&
      go mod tidy &&
      go build -trimpath -ldflags "-s -w" -o "$etcd_dir/etcd.tmp" go.etcd.io/etcd/server/v3
  ) || return 1
  mv "$etcd_dir/etcd.tmp" "$etcd_dir/etcd"
  log "etcd built in $((SECONDS - t0)) s"
}

# kube-apiserver and Kueue from one wrapper module, so their shared Kubernetes libraries compile
# once (Kueue v0.19.2 asks for the 1.36.0 libraries; MVS gives it 1.36.3, a patch release).
build_control_plane() {
  [[ -x $cp_dir/kube-apiserver && -x $cp_dir/kueue && -f $cp_dir/crds.yaml ]] && return 0
  local w=$cache/src/apiserver-$K8S_VERSION-kueue-$KUEUE_VERSION t0=$SECONDS
  log "building kube-apiserver $K8S_VERSION and kueue $KUEUE_VERSION (about 8-20 min)"
  rm -rf "$w" && mkdir -p "$w" "$cp_dir" || return 1
  (
    set -e
    cd "$w"
    go mod init budcore.local/testbed/controlplane >/dev/null 2>&1
    # k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with local
    # paths; replaces only count in the main module, so repeat them here with real versions.
    gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
    [[ -f $gomod ]] || { echo "no go.mod for k8s.io/kubernetes@$K8S_VERSION" >&2; exit 1; }
    staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$gomod")
    [[ -n $staging ]] || { echo "no staging replaces in $gomod" >&2; exit 1; }
    args=()
    for m in $staging; do args+=("-replace=$m=$m@$K8S_STAGING_VERSION"); done
    go mod edit "${args[@]}"
    godebug=$(sed -n 's/^godebug[[:space:]]\{1,\}\(default=.*\)$/\1/p' "$gomod")
    [[ -n $godebug ]] && go mod edit "-godebug=$godebug"
    # The checksum database has no entry for one Kueue dependency (a 404); Kueue's own go.sum
    # vouches for it, so verification stays on.
    go mod download "sigs.k8s.io/kueue@$KUEUE_VERSION"
    cat "$GOMODCACHE/sigs.k8s.io/kueue@$KUEUE_VERSION/go.sum" >>go.sum
    go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "sigs.k8s.io/kueue/cmd/kueue@$KUEUE_VERSION"
    go mod tidy
    # Kueue refuses an apiserver whose version is not stamped.
    minor=${K8S_VERSION#v1.}
    minor=${minor%%.*}
    ver="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
    flags=(-trimpath -tags=selinux,notest -pgo=off)
    go build "${flags[@]}" -ldflags "-s -w $ver" -o "$cp_dir/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
    log "kube-apiserver built after $((SECONDS - t0)) s"
    go build "${flags[@]}" -ldflags "-s -w $ver -X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" \
      -o "$cp_dir/kueue.tmp" sigs.k8s.io/kueue/cmd/kueue
    crds=("$GOMODCACHE/sigs.k8s.io/kueue@$KUEUE_VERSION"/config/components/crd/bases/*.yaml)
    for f in "${crds[@]}"; do
      cat "$f"
      echo "---"
    done >"$cp_dir/crds.yaml.tmp"
    mv "$cp_dir/crds.yaml.tmp" "$cp_dir/crds.yaml"
    mv "$cp_dir/kube-apiserver.tmp" "$cp_dir/kube-apiserver"
    mv "$cp_dir/kueue.tmp" "$cp_dir/kueue"
  ) || return 1
  log "kube-apiserver and kueue built in $((SECONDS - t0)) s"
}

build() {
  have_binaries && return 0
  command -v go >/dev/null || die "the Go toolchain (go) is not on PATH; scripts/install-deps.sh installs it"
  mkdir -p "$cache" || die "cannot create $cache"
  # One builder at a time per cache; others wait for its result.
  exec 9>"$cache/build.lock"
  flock 9 || die "cannot lock $cache/build.lock"
  have_binaries && return 0
  local t0=$SECONDS
  build_etcd || die "building etcd failed (see above)"
  build_control_plane || die "building kube-apiserver/kueue failed (see above)"
  log "cold build took $((SECONDS - t0)) s"
  echo "$(date -u +%FT%TZ) cold build $((SECONDS - t0)) s on $(nproc) cores" >>"$cache/build-times.log"
  exec 9>&-
}

# kubectl at the apiserver's version, from the same wrapper module (mostly cached packages).
build_kubectl() {
  local out=$cp_dir/kubectl
  [[ -x $out ]] && { echo "$out"; return 0; }
  build || return 1
  local w=$cache/src/apiserver-$K8S_VERSION-kueue-$KUEUE_VERSION
  (
    set -e
    cd "$w"
    go get -tool "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION" >/dev/null 2>&1 || true
    minor=${K8S_VERSION#v1.}
    minor=${minor%%.*}
    go build -trimpath -tags=selinux,notest -pgo=off \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor" \
      -o "$out.tmp" k8s.io/kubernetes/cmd/kubectl
    mv "$out.tmp" "$out"
  ) >&2 || return 1
  echo "$out"
}

# ---------------------------------------------------------------------------------------------
# Start / stop

# Free loopback ports, all distinct: ask the kernel for them while holding every socket.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# Waits until `curl ARGS` succeeds or PID dies; $1 = seconds, $2 = pid, $3 = what, rest = curl args.
wait_for() {
  local limit=$1 pid=$2 what=$3
  shift 3
  local deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    if curl -fsS -o /dev/null --max-time 2 "$@" 2>/dev/null; then return 0; fi
    kill -0 "$pid" 2>/dev/null || { log "$what exited during start-up"; return 1; }
    sleep 0.2
  done
  log "$what did not become ready within $limit s"
  return 1
}

certs() {
  local d=$1
  (
    set -e
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=budcore-testbed-ca" 2>/dev/null
    # The apiserver's serving certificate: loopback only.
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 3650 -extfile apiserver.ext 2>/dev/null
    # A client certificate in system:masters, for the client-certificate kubeconfig tests.
    openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj "/O=system:masters/CN=budcore-cert-admin" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 3650 -extfile client.ext 2>/dev/null
    # A second, unrelated CA: a kubeconfig trusting it must fail TLS verification.
    openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.crt -days 3650 -subj "/CN=budcore-other-ca" 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    mkdir -p webhook
    openssl req -x509 -newkey rsa:2048 -nodes -keyout webhook/tls.key -out webhook/tls.crt -days 3650 \
      -subj "/CN=kueue-webhook" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
  )
}

# Kueue v0.19.2 reads its metrics certificate from a fixed path and exits when it is missing,
# even with metrics off: put a self-signed pair there once (needs write access to /etc/kueue).
kueue_metrics_certs() {
  local d=${BUDCORE_K8S_METRICS_CERT_DIR:-/etc/kueue/metrics/certs}
  [[ -f $d/tls.crt && -f $d/tls.key ]] && return 0
  mkdir -p "$d" 2>/dev/null &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/tls.key" -out "$d/tls.crt" -days 3650 \
      -subj "/CN=kueue-metrics" 2>/dev/null && return 0
  log "cannot write Kueue's metrics certificate to $d (Kueue $KUEUE_VERSION requires that fixed path; run once as root)"
  return 1
}

kubeconfig() {  # server ca-file token > file
  local ca
  ca=$(base64 -w0 <"$2")
  cat <<KC
apiVersion: v1
kind: Config
clusters:
- name: testbed
  cluster:
    server: $1
    certificate-authority-data: $ca
users:
- name: admin
  user:
    token: $3
contexts:
- name: testbed
  context:
    cluster: testbed
    user: admin
    namespace: default
current-context: testbed
KC
}

# Kueue first (it writes through the apiserver), etcd last.
stop_plane() {
  local pd=$1 name pid
  for name in kueue kube-apiserver etcd; do
    [[ -f $pd/$name.pid ]] || continue
    pid=$(cat "$pd/$name.pid")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
  done
}

stop_all() {
  local state=$1
  [[ -f $state/dir ]] || return 0
  local dir
  dir=$(cat "$state/dir")
  local pd
  for pd in "$dir"/worker-* "$dir"; do
    [[ -d $pd ]] && stop_plane "$pd"
  done
  rm -f "$state/dir" "$state/kubeconfig" "$state/env"
  rm -rf "$state"/worker-*
  [[ $dir == /tmp/budcore-k8s-* ]] && rm -rf "$dir"
  return 0
}

# etcd, kube-apiserver and Kueue on free ports, with their data, logs and pids in $2 and the
# certificates and tokens of $dir; $3: lines added to Kueue's configuration. Sets server and
# p_etcd; on failure stops everything of state $1 and exits.
start_plane() {
  local state=$1 pd=$2 extra=$3
  mkdir -p "$pd" || die "cannot create $pd"
  local p_peer p_etcd_metrics p_api p_webhook p_health
  read -r p_etcd p_peer p_etcd_metrics p_api p_webhook p_health <<<"$(free_ports 6)"
  server=https://127.0.0.1:$p_api

  "$etcd_dir/etcd" --name testbed --data-dir "$pd/etcd" \
    --listen-client-urls "http://127.0.0.1:$p_etcd" --advertise-client-urls "http://127.0.0.1:$p_etcd" \
    --listen-peer-urls "http://127.0.0.1:$p_peer" --initial-advertise-peer-urls "http://127.0.0.1:$p_peer" \
    --initial-cluster "testbed=http://127.0.0.1:$p_peer" --listen-metrics-urls "http://127.0.0.1:$p_etcd_metrics" \
    --unsafe-no-fsync --log-level warn >"$pd/etcd.log" 2>&1 &
  echo $! >"$pd/etcd.pid"
  wait_for 30 "$(cat "$pd/etcd.pid")" etcd "http://127.0.0.1:$p_etcd/health" ||
    { tail -n 20 "$pd/etcd.log" >&2; stop_all "$state"; exit 1; }

  start_apiserver "$pd" "$p_etcd" "$p_api" || { stop_all "$state"; exit 1; }

  # Kueue's CRDs, by server-side apply (the Workload CRD is too large for client-side apply).
  local crds=() name
  csplit -s -z -f "$pd/crd-" -b "%02d.yaml" "$cp_dir/crds.yaml" '/^---$/' '{*}' || { stop_all "$state"; die "csplit failed"; }
  for f in "$pd"/crd-*.yaml; do
    sed -i '/^---$/d' "$f"
    name=$(sed -n '/^metadata:/,/^[a-z]/s/^  name: \(.*\)$/\1/p' "$f" | head -n 1)
    [[ -n $name ]] || continue
    crds+=("$name")
    api PATCH "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name?fieldManager=budcore-testbed&force=true" \
      -H "Content-Type: application/apply-patch+yaml" --data-binary "@$f" -o /dev/null ||
      { stop_all "$state"; die "applying CRD $name failed"; }
  done
  local deadline=$((SECONDS + 60)) pending
  while :; do
    pending=0
    for name in "${crds[@]}"; do
      api GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name" 2>/dev/null |
        python3 -c 'import json,sys; c=json.load(sys.stdin); sys.exit(0 if any(x["type"]=="Established" and x["status"]=="True" for x in c.get("status",{}).get("conditions",[])) else 1)' ||
        pending=$((pending + 1))
    done
    ((pending == 0)) && break
    ((SECONDS < deadline)) || { stop_all "$state"; die "$pending CRDs not Established after 60 s"; }
    sleep 0.2
  done
  api POST /api/v1/namespaces -H "Content-Type: application/json" \
    --data '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kueue-system"}}' -o /dev/null ||
    { stop_all "$state"; die "creating namespace kueue-system failed"; }

  kubeconfig "$server" "$dir/ca.crt" "$token" >"$pd/kubeconfig"
  cat >"$pd/kueue.yaml" <<KQ
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $p_webhook
  certDir: $dir/webhook
metrics:
  bindAddress: "0"
health:
  healthProbeBindAddress: 127.0.0.1:$p_health
integrations:
  frameworks: ["batch/job"]
featureGates:
  VisibilityOnDemand: false
KQ
  [[ -n $extra ]] && printf '%s\n' "$extra" >>"$pd/kueue.yaml"
  start_kueue "$pd" || { stop_all "$state"; exit 1; }
}

# kube-apiserver of the control plane in $1 on the etcd of port $2, serving on port $3 with the
# certificates and tokens of $dir, until it is ready.
start_apiserver() {
  local pd=$1 p_etcd=$2 p_api=$3 server token
  server=https://127.0.0.1:$p_api
  token=$(head -n 1 "$dir/tokens.csv" | cut -d, -f1)
  # configmaps bypass the watch cache, so a compacted etcd answers an old watch with 410 Gone
  # (the watch-resume tests); everything else is served as usual.
  "$cp_dir/kube-apiserver" --etcd-servers "http://127.0.0.1:$p_etcd" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$p_api" \
    --tls-cert-file "$dir/apiserver.crt" --tls-private-key-file "$dir/apiserver.key" \
    --client-ca-file "$dir/ca.crt" --token-auth-file "$dir/tokens.csv" --authorization-mode RBAC \
    --service-cluster-ip-range 10.0.0.0/24 --allow-privileged=true \
    --disable-admission-plugins ServiceAccount \
    --service-account-issuer "$server/" --service-account-key-file "$dir/sa.pub" \
    --service-account-signing-key-file "$dir/sa.key" --cert-dir "$pd/apiserver-certs" \
    --enable-priority-and-fairness=false --profiling=false --endpoint-reconciler-type none \
    --watch-cache-sizes configmaps#0 >>"$pd/kube-apiserver.log" 2>&1 &
  echo $! >"$pd/kube-apiserver.pid"
  wait_for 60 "$(cat "$pd/kube-apiserver.pid")" kube-apiserver --cacert "$dir/ca.crt" \
    -H "Authorization: Bearer $token" "$server/readyz" ||
    { tail -n 30 "$pd/kube-apiserver.log" >&2; return 1; }
}

# Kueue of the control plane in $1 (its kueue.yaml and kubeconfig there), until it is ready.
start_kueue() {
  local pd=$1 health
  health=$(sed -n 's/^  healthProbeBindAddress: //p' "$pd/kueue.yaml")
  "$cp_dir/kueue" --config "$pd/kueue.yaml" --kubeconfig "$pd/kubeconfig" >>"$pd/kueue.log" 2>&1 &
  echo $! >"$pd/kueue.pid"
  wait_for 60 "$(cat "$pd/kueue.pid")" kueue "http://$health/readyz" || { tail -n 30 "$pd/kueue.log" >&2; return 1; }
}

api() {  # METHOD PATH [curl args...]: a call to the test bed's apiserver as admin
  local m=$1 p=$2
  shift 2
  curl -fsS --max-time 30 --cacert "$dir/ca.crt" -H "Authorization: Bearer $token" -X "$m" "$server$p" "$@"
}

# ---------------------------------------------------------------------------------------------
# MultiKueue workers: more control planes on the same machine, registered with the manager's
# Kueue (the control plane of STATE_DIR/kubeconfig) as MultiKueueClusters.

# The manager's Kueue configuration for N workers (nothing without workers).
manager_config() {
  (($1 > 0)) || return 0
  cat <<MK
multiKueue:
  gcInterval: 30s
  origin: budcore-testbed
  workerLostTimeout: ${BUDCORE_K8S_WORKER_LOST_TIMEOUT:-30s}
MK
}

# Worker I: a control plane of its own in $dir/worker-I; its kubeconfig and env go to
# STATE_DIR/worker-I (env: BUDCORE_K8S_SERVER, _ETCD_URL, _DIR).
start_worker() {
  local state=$1 i=$2
  local m_server=$server m_etcd=$p_etcd pd=$dir/worker-$i out=$state/worker-$i
  start_plane "$state" "$pd" ""
  mkdir -p "$out" || die "cannot create $out"
  cp "$pd/kubeconfig" "$out/kubeconfig"
  printf 'BUDCORE_K8S_SERVER=%s\nBUDCORE_K8S_ETCD_URL=http://127.0.0.1:%s\nBUDCORE_K8S_DIR=%s\n' \
    "$server" "$p_etcd" "$pd" >"$out/env"
  log "worker-$i ready: $server (kubeconfig $out/kubeconfig)"
  server=$m_server
  p_etcd=$m_etcd
}

# On the manager: per worker a Secret with its kubeconfig (inline CA and token, as Kueue
# requires) and a MultiKueueCluster; one MultiKueueConfig "testbed-workers" listing them all.
# Waits until Kueue reports every worker Active.
register_workers() {
  local state=$1 n=$2 i names=()
  for ((i = 1; i <= n; i++)); do
    names+=("\"worker-$i\"")
    api POST /api/v1/namespaces/kueue-system/secrets -H "Content-Type: application/json" -o /dev/null --data \
      "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"testbed-worker-$i\"},\"data\":{\"kubeconfig\":\"$(base64 -w0 <"$dir/worker-$i/kubeconfig")\"}}" ||
      { stop_all "$state"; die "creating the Secret of worker-$i failed"; }
    api POST /apis/kueue.x-k8s.io/v1beta2/multikueueclusters -H "Content-Type: application/json" -o /dev/null --data \
      "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"MultiKueueCluster\",\"metadata\":{\"name\":\"worker-$i\"},\"spec\":{\"clusterSource\":{\"kubeConfig\":{\"locationType\":\"Secret\",\"location\":\"testbed-worker-$i\"}}}}" ||
      { stop_all "$state"; die "creating MultiKueueCluster worker-$i failed"; }
  done
  local list
  list=$(IFS=,; echo "${names[*]}")
  api POST /apis/kueue.x-k8s.io/v1beta2/multikueueconfigs -H "Content-Type: application/json" -o /dev/null --data \
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"MultiKueueConfig\",\"metadata\":{\"name\":\"testbed-workers\"},\"spec\":{\"clusters\":[$list]}}" ||
    { stop_all "$state"; die "creating MultiKueueConfig testbed-workers failed"; }
  local deadline=$((SECONDS + 60))
  for ((i = 1; i <= n; i++)); do
    until api GET "/apis/kueue.x-k8s.io/v1beta2/multikueueclusters/worker-$i" 2>/dev/null |
      python3 -c 'import json,sys; c=json.load(sys.stdin); sys.exit(0 if any(x["type"]=="Active" and x["status"]=="True" for x in c.get("status",{}).get("conditions",[])) else 1)'; do
      ((SECONDS < deadline)) || { stop_all "$state"; die "MultiKueueCluster worker-$i not Active after 60 s (see $dir/kueue.log)"; }
      sleep 0.5
    done
  done
}

# Kills (SIGKILL, as a crash) or starts again the Kueue or the kube-apiserver of worker I: what
# a manager reports when a worker's Kueue dies mid-run, or the worker is lost.
worker_process() {
  local state=$1 i=$2 name=$3 what=$4 pd pid
  [[ -f $state/dir ]] || die "no test bed in $state"
  dir=$(cat "$state/dir")
  pd=$dir/worker-$i
  [[ -f $pd/kueue.yaml ]] || die "no worker-$i in $state"
  case $what in
    kill)
      pid=$(cat "$pd/$name.pid")
      kill -9 "$pid" 2>/dev/null
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
      ;;
    start)
      kill -0 "$(cat "$pd/$name.pid")" 2>/dev/null && return 0
      if [[ $name == kueue ]]; then
        start_kueue "$pd"
      else
        local env=$state/worker-$i/env
        start_apiserver "$pd" "$(sed -n 's/^BUDCORE_K8S_ETCD_URL=.*://p' "$env")" "$(sed -n 's/^BUDCORE_K8S_SERVER=.*://p' "$env")"
      fi || die "$name of worker-$i did not start (see $pd/$name.log)"
      ;;
    *) die "kill or start, not '$what'" ;;
  esac
}

start() {
  local state=$1 workers=${2:-${BUDCORE_K8S_WORKERS:-0}}
  [[ $workers =~ ^[0-9]+$ ]] || die "the number of workers must be a number, not '$workers'"
  mkdir -p "$state" || die "cannot create $state"
  stop_all "$state"
  if ! have_binaries; then
    [[ ${BUDCORE_K8S_SKIP_BUILD:-} == 1 ]] && die "binaries missing under $cache/bin and BUDCORE_K8S_SKIP_BUILD=1"
    build
  fi
  for tool in openssl curl python3 base64; do
    command -v "$tool" >/dev/null || die "$tool is needed (scripts/install-deps.sh installs it)"
  done
  kueue_metrics_certs || exit 1
  local t0=$SECONDS
  dir=$(mktemp -d /tmp/budcore-k8s-XXXXXX) || die "mktemp failed"
  echo "$dir" >"$state/dir"
  certs "$dir" || { stop_all "$state"; die "openssl failed"; }
  token=$(openssl rand -hex 24)
  local noperm_token
  noperm_token=$(openssl rand -hex 24)
  # admin bypasses RBAC (system:masters); "budcore-noperm" has no role at all (403 tests).
  printf '%s,admin,admin-uid,system:masters\n%s,budcore-noperm,noperm-uid\n' "$token" "$noperm_token" >"$dir/tokens.csv"
  start_plane "$state" "$dir" "$(manager_config "$workers")"
  local i
  for ((i = 1; i <= workers; i++)); do
    start_worker "$state" "$i"
  done
  ((workers > 0)) && register_workers "$state" "$workers"

  cp "$dir/kubeconfig" "$state/kubeconfig.tmp" && mv "$state/kubeconfig.tmp" "$state/kubeconfig"
  cat >"$state/env.tmp" <<ENV
BUDCORE_K8S_SERVER=$server
BUDCORE_K8S_CA_FILE=$dir/ca.crt
BUDCORE_K8S_OTHER_CA_FILE=$dir/other-ca.crt
BUDCORE_K8S_TOKEN=$token
BUDCORE_K8S_NOPERM_TOKEN=$noperm_token
BUDCORE_K8S_CLIENT_CERT=$dir/client.crt
BUDCORE_K8S_CLIENT_KEY=$dir/client.key
BUDCORE_K8S_ETCD_URL=http://127.0.0.1:$p_etcd
BUDCORE_K8S_DIR=$dir
ENV
  ((workers > 0)) && echo "BUDCORE_K8S_WORKERS=$workers" >>"$state/env.tmp"
  mv "$state/env.tmp" "$state/env"
  log "ready in $((SECONDS - t0)) s: $server (kubeconfig $state/kubeconfig, logs in $dir)"
}

status() {
  local state=$1
  [[ -f $state/env ]] || return 1
  # shellcheck disable=SC1091
  source "$state/env"
  curl -fsS -o /dev/null --max-time 5 --cacert "$BUDCORE_K8S_CA_FILE" \
    -H "Authorization: Bearer $BUDCORE_K8S_TOKEN" "$BUDCORE_K8S_SERVER/readyz"
}

state_arg() {
  [[ -n ${2:-} ]] || { echo "usage: $0 $1 STATE_DIR" >&2; exit 2; }
}

case "${1:-}" in
  build)
    build
    echo "$cache/bin"
    ;;
  start)
    state_arg "$@"
    start "$2"
    ;;
  start-multi)
    [[ -n ${2:-} && ${3:-} =~ ^[0-9]+$ ]] || { echo "usage: $0 start-multi STATE_DIR N" >&2; exit 2; }
    start "$2" "$3"
    ;;
  worker-kueue | worker-apiserver)
    [[ -n ${2:-} && ${3:-} =~ ^[0-9]+$ && -n ${4:-} ]] || { echo "usage: $0 $1 STATE_DIR I kill|start" >&2; exit 2; }
    name=kueue
    [[ $1 == worker-apiserver ]] && name=kube-apiserver
    worker_process "$2" "$3" "$name" "$4"
    ;;
  stop)
    state_arg "$@"
    stop_all "$2"
    ;;
  status)
    state_arg "$@"
    status "$2"
    ;;
  kubectl)
    build_kubectl
    ;;
  *)
    echo "usage: $0 build | start STATE_DIR | start-multi STATE_DIR N | worker-kueue|worker-apiserver STATE_DIR I kill|start | stop STATE_DIR | status STATE_DIR | kubectl" >&2
    exit 2
    ;;
esac
