package budcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestRenderShippedTemplate(t *testing.T) {
	reg, err := NewUsecaseRegistry(true)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	out, err := reg.Render("simple-rag-v1", `{"parameters": {"model_id": "m"}}`)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	var doc struct {
		Valid      bool `json:"valid"`
		Components []struct {
			ID        string            `json:"id"`
			DependsOn []string          `json:"depends_on"`
			Env       map[string]string `json:"env"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !doc.Valid || len(doc.Components) != 4 || doc.Components[3].ID != "orchestrator" {
		t.Fatalf("unexpected render: %s", out)
	}
	if got := doc.Components[3].Env["LLM_URL"]; got != "{{ steps.llm.outputs.url }}" {
		t.Errorf("LLM_URL = %q", got)
	}
	list, err := reg.List()
	if err != nil || !strings.Contains(list, `"enterprise-rag-v1"`) {
		t.Errorf("list: %v %s", err, list)
	}
	if _, err := reg.Show("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("show nope: %v", err)
	}
	comps, err := reg.Components()
	if err != nil || !strings.Contains(comps, `"tei-reranker"`) {
		t.Errorf("components: %v", err)
	}
}

func TestRenderReportsEveryProblem(t *testing.T) {
	reg, err := NewUsecaseRegistry(true)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	report, err := reg.Render("enterprise-rag-v1", `{"parameters": {"chunk_size": 1, "vector_db": "weaviate"}}`)
	var e *Error
	if !errors.As(err, &e) || e.Code != Invalid || e.Field != "parameters.cluster_id" {
		t.Fatalf("err = %v", err)
	}
	var doc struct {
		Errors []struct{ Code, Path string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(report), &doc); err != nil || len(doc.Errors) != 3 {
		t.Fatalf("report: %v %s", err, report)
	}
	if doc.Errors[2].Path != "parameters.chunk_size" {
		t.Errorf("errors = %+v", doc.Errors)
	}
}

func TestOwnComponentsAndTemplates(t *testing.T) {
	reg, err := NewUsecaseRegistry(false)
	if err != nil {
		t.Fatal(err)
	}
	api := `{"id": "api", "name": "API", "description": "", "category": "service", "version": "1",
	         "deployment_type": "docker", "image": "api", "outputs": ["url"]}`
	if err := reg.AddComponents(api); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddComponents(api); !errors.Is(err, ErrExists) {
		t.Errorf("second add: %v", err)
	}
	tmpl := "id: one\nname: One\ndescription: d\ncategory: demo\nversion: '1'\ncomplexity: simple\n" +
		"components: [{id: a, component_ref: api}]\n"
	if err := reg.AddTemplate(tmpl); err != nil {
		t.Fatal(err)
	}
	if out, err := reg.Render("one", ""); err != nil || !strings.Contains(out, `"component_ref":"api"`) {
		t.Errorf("render: %v %s", err, out)
	}
	root := filepath.Join("..", "..", "examples", "usecases")
	if err := reg.Load(filepath.Join(root, "components"), filepath.Join(root, "templates")); err != nil {
		t.Fatal(err)
	}
	// A path that cannot be read: the one error every surface gives for it.
	nope := filepath.Join(root, "nope")
	var e *Error
	if err := reg.Load(nope, ""); !errors.Is(err, ErrIO) || !errors.As(err, &e) || e.Field != "path" || e.Value != nope ||
		e.Message != "cannot open file '"+nope+"': No such file or directory" {
		t.Errorf("load nope: %#v", err)
	}
	reg.Close()
	reg.Close()
	if _, err := reg.List(); err == nil {
		t.Error("a closed registry still lists")
	}
}

func TestConcurrentRenders(t *testing.T) {
	reg, err := NewUsecaseRegistry(true)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, err := reg.Render("simple-agent-v1", fmt.Sprintf(`{"parameters": {"model_id": "m%d"}}`, i))
			if err == nil && !strings.Contains(out, fmt.Sprintf(`"model_id":"m%d"`, i)) {
				err = fmt.Errorf("render %d lost its parameter", i)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
