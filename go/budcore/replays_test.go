package budcore

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func testData(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "tests", "data", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func csvRows(t *testing.T, text string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var be *Error
	if !errors.As(err, &be) || be.Code != Invalid || be.Field != field {
		t.Fatalf("got %v, want an invalid-input error on %q", err, field)
	}
}

type gpuReplayDoc struct {
	Nodes, GPUs, Tasks int
	Seed               uint64
	Results            []struct {
		Policy string
		Points []struct {
			ArrivedLoad      float64 `json:"arrived_load"`
			UnallocatedShare float64 `json:"unallocated_share"`
			Arrived, Failed  int64
		}
	}
}

func TestGPUDefrag(t *testing.T) {
	problem := testData(t, "gpu/defrag_gang.json")
	out, err := GPUDefrag(problem)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Plan struct {
			Kind  string  `json:"kind"`
			Node  string  `json:"node"`
			Cost  float64 `json:"cost_gpu_seconds"`
			Moves []struct {
				Workload string `json:"workload"`
				To       string `json:"to"`
			} `json:"moves"`
		} `json:"plan"`
		Applied bool `json:"applied"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// w1 and w2 off n0: 1 GPU x (100 + 60) + 1 GPU x (500 + 60) = 720 GPU-seconds.
	if doc.Plan.Kind != "move" || doc.Plan.Node != "n0" || doc.Plan.Cost != 720 || doc.Applied ||
		len(doc.Plan.Moves) != 2 || doc.Plan.Moves[0].Workload != "w1" || doc.Plan.Moves[1].To != "n1" {
		t.Fatalf("plan: %s", out)
	}
	_, err = GPUDefrag(strings.Replace(problem, `"gpus": [1]`, `"gpus": [7]`, 1))
	var e *Error
	if !errors.As(err, &e) || e.Field != "workloads[1].gpus[0]" {
		t.Fatalf("error: %v", err)
	}
}

func TestGPUPlaceMIG(t *testing.T) {
	// One 1g.5gb of seven in use at slice 0: a 3g.20gb goes at slice 4, giving up three.
	problem := `{"nodes": [{"name": "n0", "model": "A100-40GB", "gpus": 1, "mig": [["1g.5gb@0", "1g.5gb@1", "1g.5gb@2",` +
		` "1g.5gb@3", "1g.5gb@4", "1g.5gb@5", "1g.5gb@6"]]}], "workloads": [{"name": "w", "node": "n0", "mig": [[0, 0]]}],` +
		` "request": {"mig_profile": "3g.20gb"}}`
	out, err := GPUPlaceMIG(problem)
	if err != nil || !strings.Contains(out, `"instance":4`) || !strings.Contains(out, `"dropped":3`) {
		t.Fatalf("place: %v %s", err, out)
	}
	_, err = GPUPlaceMIG(`{"nodes": [{"name": "n0", "model": "T4", "gpus": 1}], "request": {"num_gpu": 1}}`)
	var e *Error
	if !errors.As(err, &e) || e.Field != "request.mig_profile" {
		t.Fatalf("error: %v", err)
	}
}

func TestGPUReplay(t *testing.T) {
	nodes, pods := testData(t, "gpu/nodes.csv"), testData(t, "gpu/pods.csv")
	gpus := 0
	for _, r := range csvRows(t, nodes) {
		n, err := strconv.Atoi(r[3])
		if err != nil {
			t.Fatal(err)
		}
		gpus += n
	}
	opts := `{"policies": ["binpack", "fgd"], "seed": 9, "max_load": 0.6, "step": 0.2}`
	out, err := GPUReplay(nodes, pods, opts)
	if err != nil {
		t.Fatal(err)
	}
	var doc gpuReplayDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Nodes != len(csvRows(t, nodes)) || doc.GPUs != gpus || doc.Tasks != len(csvRows(t, pods)) || doc.Seed != 9 {
		t.Fatalf("counts: %s", out)
	}
	if len(doc.Results) != 2 || doc.Results[0].Policy != "binpack" || doc.Results[1].Policy != "fgd" {
		t.Fatalf("policies: %s", out)
	}
	for _, r := range doc.Results {
		if len(r.Points) != 3 {
			t.Fatalf("%s: %d points, want 3 (0.6 / 0.2)", r.Policy, len(r.Points))
		}
		for i, p := range r.Points {
			if p.UnallocatedShare < 0 || p.UnallocatedShare > 1 || p.ArrivedLoad < 0.2*float64(i+1)-1e-9 {
				t.Fatalf("%s: point %d: %+v", r.Policy, i, p)
			}
			// The seed draws one task sequence for every policy.
			if p.Arrived != doc.Results[0].Points[i].Arrived {
				t.Fatalf("%s: arrived %d, %s arrived %d", r.Policy, p.Arrived, doc.Results[0].Policy, doc.Results[0].Points[i].Arrived)
			}
		}
	}
	again, err := GPUReplay(nodes, pods, opts)
	if err != nil || again != out {
		t.Fatalf("the same seed gave another replay: %v", err)
	}
}

func TestGPUReplayErrors(t *testing.T) {
	nodes, pods := testData(t, "gpu/nodes.csv"), testData(t, "gpu/pods.csv")
	_, err := GPUReplay(nodes, pods, `{"policies": "fgd,nope"}`)
	wantField(t, err, "options.policies")
	_, err = GPUReplay(nodes, pods, `{"seed": "one"}`)
	wantField(t, err, "options.seed")
	_, err = GPUReplay(testData(t, "gpu/nodes_negative_gpus.csv"), pods, "")
	wantField(t, err, "nodes_csv:2.gpu")
}

func TestServerlessSimulate(t *testing.T) {
	endpoint, trace := testData(t, "serverless/endpoint.yaml"), testData(t, "serverless/trace_small.csv")
	out, err := ServerlessSimulate(endpoint, trace, `{"policies": ["predictive", "queue_depth"]}`)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Reports []struct {
			Endpoint, Policy              string
			Requests, Admitted, Completed int
			Timeouts, Failed              int
			Refusals                      map[string]int
			Wait                          struct{ P50, P95, Max float64 } `json:"wait_seconds"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Reports) != 2 || doc.Reports[0].Policy != "predictive" || doc.Reports[1].Policy != "queue_depth" {
		t.Fatalf("policies: %s", out)
	}
	for _, r := range doc.Reports {
		refused := 0
		for _, n := range r.Refusals {
			refused += n
		}
		if r.Endpoint != "chat" || r.Requests != len(csvRows(t, trace)) || r.Admitted+refused != r.Requests ||
			r.Completed+r.Timeouts+r.Failed > r.Admitted || r.Wait.P50 > r.Wait.P95 || r.Wait.P95 > r.Wait.Max {
			t.Fatalf("%s: %+v", r.Policy, r)
		}
	}
}

func TestServerlessSimulateErrors(t *testing.T) {
	endpoint, trace := testData(t, "serverless/endpoint.yaml"), testData(t, "serverless/trace_small.csv")
	_, err := ServerlessSimulate(endpoint, trace, `{"policies": "nope"}`)
	wantField(t, err, "options.policies")
	_, err = ServerlessSimulate(endpoint, trace, `{"polices": "kpa"}`)
	wantField(t, err, "options.polices")
	_, err = ServerlessSimulate(strings.Replace(endpoint, "concurrency_per_worker: 4", "concurrency_per_worker: 0", 1), trace, "")
	wantField(t, err, "concurrency_per_worker")
}
