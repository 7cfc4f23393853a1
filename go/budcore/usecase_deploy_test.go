package budcore

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const deployParams = `{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}`

type deploymentDoc struct {
	ID         string `json:"id"`
	TemplateID string `json:"template_id"`
	Status     string `json:"status"`
	Components []struct {
		InstanceID string `json:"instance_id"`
		JobID      string `json:"job_id"`
		JobStatus  string `json:"job_status"`
	} `json:"components"`
}

func parseDeployment(t *testing.T, text string) deploymentDoc {
	t.Helper()
	var d deploymentDoc
	if err := json.Unmarshal([]byte(text), &d); err != nil || d.ID == "" {
		t.Fatalf("not a deployment record: %v\n%s", err, text)
	}
	return d
}

func TestDeployUsecaseReadListAndTeardown(t *testing.T) {
	p, err := OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: "00000000-0000-4000-8000-0000000000f7", Principal: "user:go"}
	out, err := p.DeployUsecase(me, "simple-rag-v1", deployParams)
	if err != nil {
		t.Fatal(err)
	}
	d := parseDeployment(t, out)
	if d.TemplateID != "simple-rag-v1" || len(d.Components) != 4 {
		t.Fatalf("unexpected record: %s", out)
	}
	if _, err := p.Run(3600); err != nil {
		t.Fatal(err)
	}
	out, err = p.Deployment(me, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if up := parseDeployment(t, out); up.Status != "running" {
		t.Fatalf("status %q, want running", up.Status)
	}
	list, err := p.Deployments(me)
	if err != nil || !strings.Contains(list, d.ID) {
		t.Fatalf("list %s, err %v", list, err)
	}
	other := Caller{Tenant: "00000000-0000-4000-8000-0000000000f8"}
	if _, err := p.Deployment(other, d.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another tenant: %v, want not found", err)
	}
	out, err = p.TeardownDeployment(me, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	down := parseDeployment(t, out)
	if down.Status != "deleted" {
		t.Fatalf("status %q, want deleted", down.Status)
	}
	for _, c := range down.Components {
		if c.JobStatus != "cancelled" {
			t.Errorf("%s: job %s, want cancelled", c.InstanceID, c.JobStatus)
		}
	}
	if out, err = p.TeardownDeployment(me, d.ID); err != nil || parseDeployment(t, out).Status != "deleted" {
		t.Fatalf("second teardown: %v %s", err, out)
	}
}

func TestDeployUsecaseBadInput(t *testing.T) {
	p, err := OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: "00000000-0000-4000-8000-0000000000f7"}
	_, err = p.DeployUsecase(me, "simple-rag-v1", `{"model_id": "m", "top_kk": 3}`)
	var be *Error
	if !errors.As(err, &be) || be.Code != Invalid || be.Field != "parameters.top_kk" {
		t.Fatalf("got %v, want Invalid at parameters.top_kk", err)
	}
	if _, err = p.DeployUsecase(me, "no-such-template", ""); !errors.As(err, &be) || be.Code != NotFound || be.Field != "template" {
		t.Fatalf("got %v, want NotFound at template", err)
	}
	if list, err := p.Deployments(me); err != nil || list != "[]" {
		t.Fatalf("list %s, err %v", list, err)
	}
}
