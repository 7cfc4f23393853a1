package budcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func readSpec(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "specs", "jobs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidateGoodJob(t *testing.T) {
	out, err := ValidateJob(readSpec(t, "llm-endpoint.json"))
	if err != nil {
		t.Fatalf("valid job rejected: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	want := map[string]any{
		"name": "llama-70b-endpoint", "job_type": "service", "priority": "high",
		"gpu_count": 2.0, "status": "pending", "currency": "USD",
	}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("%s = %v, want %v", k, doc[k], v)
		}
	}
	again, err := ValidateJob(out)
	if err != nil || again != out {
		t.Errorf("normalizing twice changed the document: %v\n%s\n%s", err, out, again)
	}
}

func TestValidateBadJob(t *testing.T) {
	cases := []struct {
		doc, field, value string
	}{
		{`{"name":"x","job_type":"batch","deployment_type":"docker","gpu_count":-1}`, "gpu_count", "-1"},
		{`{"name":"x","job_type":"cron","deployment_type":"docker"}`, "job_type", "cron"},
		{`{"name":"x","job_type":"batch","deployment_type":"docker","gpu_cont":1}`, "gpu_cont", ""},
		{"{\"name\":\"\xff\"}", "json", ""},
	}
	for _, c := range cases {
		_, err := ValidateJob(c.doc)
		var be *Error
		if !errors.As(err, &be) {
			t.Fatalf("%s: want *Error, got %v", c.doc, err)
		}
		if !errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotFound) {
			t.Errorf("%s: errors.Is mismatch for code %v", c.doc, be.Code)
		}
		if be.Code != Invalid || be.Field != c.field {
			t.Errorf("%s: got code %d field %q, want %d %q", c.doc, be.Code, be.Field, Invalid, c.field)
		}
		if c.value != "" && be.Value != c.value {
			t.Errorf("%s: value %q, want %q", c.doc, be.Value, c.value)
		}
		if be.Message == "" {
			t.Errorf("%s: empty message", c.doc)
		}
	}
}

func TestErrorString(t *testing.T) {
	_, err := ValidateJob(`{"name":"x","job_type":"batch","deployment_type":"docker","gpu_count":-1}`)
	if got := err.Error(); len(got) < 11 || got[:11] != "gpu_count: " {
		t.Errorf("Error() = %q", got)
	}
	if Invalid.String() != "invalid input" {
		t.Errorf("Invalid.String() = %q", Invalid.String())
	}
}

func TestMalformedAndEmpty(t *testing.T) {
	for _, doc := range []string{"", "{", "[]", "null"} {
		if _, err := ValidateJob(doc); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: want ErrInvalid, got %v", doc, err)
		}
	}
}

// Errors are thread-local in C; many goroutines failing and succeeding at once must each see
// their own error.
func TestConcurrentCalls(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			gpus := i
			if i%2 == 0 {
				gpus = -i - 1
			}
			doc := fmt.Sprintf(`{"name":"job-%d","job_type":"batch","deployment_type":"docker","gpu_count":%d}`, i, gpus)
			for n := 0; n < 100; n++ {
				_, err := ValidateJob(doc)
				if i%2 == 1 && err != nil {
					t.Errorf("job-%d: unexpected %v", i, err)
					return
				}
				if i%2 == 0 {
					var be *Error
					if !errors.As(err, &be) || be.Value != fmt.Sprint(gpus) {
						t.Errorf("job-%d: got %v", i, err)
						return
					}
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestVersion(t *testing.T) {
	ma, mi, pa := VersionNumbers()
	if v := Version(); v != fmt.Sprintf("%d.%d.%d", ma, mi, pa) || ma != 0 || mi != 1 {
		t.Errorf("Version() = %q, numbers %d.%d.%d", v, ma, mi, pa)
	}
}

func TestValidateJobAllReportsEveryProblem(t *testing.T) {
	bad := `{"name": "Bad_Name", "job_type": "batch", "deployment_type": "docker",
	  "tenant_id": "00000000-0000-4000-8000-000000000001", "gpu_count": -1, "retry_count": 5, "max_retries": 1}`
	_, err := ValidateJobAll(bad)
	var p *Problems
	if !errors.As(err, &p) {
		t.Fatalf("want *Problems, got %v", err)
	}
	var fields []string
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	if strings.Join(fields, ",") != "name,gpu_count,retry_count" || !errors.Is(err, ErrInvalid) {
		t.Fatalf("problems: %v (%v)", fields, err)
	}
	var first *Error
	if !errors.As(err, &first) || first.Field != "name" || first.Value != "Bad_Name" {
		t.Fatalf("first: %+v", first)
	}
	// Fields that do not decode are listed too, beside the rules the others break; the first
	// problem is ValidateJob's error.
	mixed := `{"name": "ok", "deployment_type": "DOCKER", "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"}`
	_, err = ValidateJobAll(mixed)
	if !errors.As(err, &p) {
		t.Fatalf("mixed: want *Problems, got %v", err)
	}
	fields = nil
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	if strings.Join(fields, ",") != "job_type,priority,gpu_count,cpu_cores" || p.Errors[1].Value != "ultra" {
		t.Fatalf("mixed: %v (%v)", fields, err)
	}
	if _, one := ValidateJob(mixed); one == nil || one.Error() != p.Errors[0].Error() {
		t.Fatalf("mixed: first %v, ValidateJob %v", p.Errors[0], one)
	}
	// Text that is not JSON: its one problem.
	if _, err := ValidateJobAll(`{"name": `); !errors.As(err, &p) || len(p.Errors) != 1 {
		t.Fatalf("unparsable: %v", err)
	}
	good := `{"name": "ok", "job_type": "batch", "deployment_type": "docker", "tenant_id": "00000000-0000-4000-8000-000000000001"}`
	all, err := ValidateJobAll(good)
	one, err1 := ValidateJob(good)
	if err != nil || err1 != nil || all != one {
		t.Fatalf("a good job: %v %v\n%s\n%s", err, err1, all, one)
	}
}

// The error itself carries every problem of the document: the first as before, the others
// after it, each with field, value and why; a submit that refuses the document stores nothing.
func TestErrorCarriesEveryProblem(t *testing.T) {
	mixed := `{"name": "ok", "job_type": "batch", "deployment_type": "DOCKER", "spec": {"image": "x/y"},
	  "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"}`
	_, err := ValidateJob(mixed)
	var e *Error
	if !errors.As(err, &e) || e.Field != "priority" || e.Value != "ultra" {
		t.Fatalf("first: %v", err)
	}
	var got []string
	for _, p := range e.Problems() {
		got = append(got, p.Field+"="+p.Value+": "+p.Message)
	}
	want := []string{"priority=ultra: " + e.Message, "gpu_count=-1: must not be negative", "cpu_cores=-2: must not be negative"}
	if strings.Join(got, "|") != strings.Join(want, "|") || e.Problems()[0].Others != nil {
		t.Fatalf("problems: %q", got)
	}
	if _, err := ValidateJob(`{"name": "ok", "job_type": "batch", "deployment_type": "docker", "gpu_count": -1}`); !errors.As(err, &e) || len(e.Others) != 0 {
		t.Fatalf("one problem: %v", err)
	}

	store, err := OpenStore("sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tenant := "22222222-2222-4222-8222-222222222222"
	if _, err := store.JobSubmit(tenant, mixed, ""); !errors.As(err, &e) || len(e.Problems()) != 3 || e.Others[1].Field != "cpu_cores" {
		t.Fatalf("submit: %v", err)
	}
	if page, err := store.JobList(tenant, ""); err != nil || !strings.Contains(page, `"items":[]`) {
		t.Fatalf("stored: %s %v", page, err)
	}
}
