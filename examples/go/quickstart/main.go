// Quick start in Go: an embedded platform in a directory, one job, the virtual clock run until
// idle, the job read back. Run: go run . (PKG_CONFIG_PATH and LD_LIBRARY_PATH at an installed budcore).
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/budcore/budcore/go/budcore"
)

const job = `{"name": "quickstart", "job_type": "batch", "deployment_type": "docker",
  "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600}`

// record is what this program reads of a job record ({"version", "idempotency_key", "job"}).
type record struct {
	Job struct{ ID, Status string } `json:"job"`
}

func main() {
	dir, err := os.MkdirTemp("", "budcore-quickstart-")
	check(err)
	p, err := budcore.OpenEmbedded(dir)
	check(err)
	defer p.Close()
	me := budcore.Caller{Tenant: "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"}
	var submitted, stored record
	out, err := p.Submit(me, job, "")
	check(err)
	check(json.Unmarshal([]byte(out), &submitted))
	_, err = p.Run(-1) // -1: until nothing is scheduled
	check(err)
	out, err = p.Get(me, submitted.Job.ID)
	check(err)
	check(json.Unmarshal([]byte(out), &stored))
	fmt.Printf("job %s: %s\n", stored.Job.ID, stored.Job.Status)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
