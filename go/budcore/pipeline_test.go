package budcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// prep (TRANSFORM) -> score (FUNCTION "score", one retry) -> report (TRANSFORM).
const scored = `{"pipeline": {"id": "p", "name": "scored", "parameters": {"base": 10}},
 "steps": [
  {"id": "prep", "name": "prep", "step_type": "TRANSFORM", "depends_on": [],
   "config": {"outputs": {"n": "{{ params.base }}"}}},
  {"id": "score", "name": "score", "step_type": "FUNCTION", "depends_on": ["prep"], "retry": 1,
   "config": {"function": "score", "args": {"n": "{{ steps.prep.outputs.n }}"}}},
  {"id": "report", "name": "report", "step_type": "TRANSFORM", "depends_on": ["score"],
   "config": {"outputs": {"total": "{{ steps.score.outputs.total }}"}}}]}`

type runReport struct {
	Status      string                    `json:"status"`
	Done        bool                      `json:"done"`
	Outputs     map[string]map[string]any `json:"outputs"`
	Messages    map[string]string         `json:"messages"`
	Transitions []struct {
		Step, To, Message string
		Attempt           int
	} `json:"transitions"`
}

func decodeRun(t *testing.T, text string) runReport {
	t.Helper()
	var r runReport
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, text)
	}
	return r
}

func double(args string, _ int, _ string) (string, error) {
	var a struct{ N float64 }
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", err
	}
	return fmt.Sprintf(`{"total": %v}`, 2*a.N), nil
}

func TestPlanRAGPipeline(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "examples", "specs", "rag-pipeline.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := PlanPipeline(string(doc))
	if err != nil {
		t.Fatalf("valid pipeline rejected: %v\n%s", err, out)
	}
	var plan struct {
		Valid     bool
		Order     []string
		Levels    [][]string
		JobSteps  []string `json:"job_steps"`
		CritSecs  float64  `json:"critical_path_seconds"`
		CritSteps []string `json:"critical_path"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	if !plan.Valid || len(plan.Order) == 0 || len(plan.Levels) == 0 || len(plan.CritSteps) == 0 {
		t.Errorf("plan = %+v", plan)
	}
	if plan.Levels[0][0] != "step-1" || plan.JobSteps[0] != "step-2" {
		t.Errorf("levels %v, job steps %v", plan.Levels, plan.JobSteps)
	}
}

func TestPlanInvalidPipelineListsEveryProblem(t *testing.T) {
	doc := `{"pipeline": {"id": "p", "name": "p"}, "steps": [
	  {"id": "a", "name": "a", "step_type": "JOB", "depends_on": ["b"], "config": {}},
	  {"id": "b", "name": "b", "step_type": "JOB", "depends_on": ["a", "ghost"], "config": {}}]}`
	report, err := PlanPipeline(doc)
	var be *Error
	if !errors.As(err, &be) || be.Code != Invalid || be.Field == "" {
		t.Fatalf("want an Invalid *Error with a field, got %v", err)
	}
	var r struct {
		Valid  bool
		Errors []struct{ Code, Message, Path string }
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, report)
	}
	codes := map[string]bool{}
	for _, e := range r.Errors {
		codes[e.Code] = true
	}
	if r.Valid || !codes["cycle"] || !codes["unknown_dependency"] {
		t.Errorf("report = %s", report)
	}
}

func TestFunctionStepsCallGo(t *testing.T) {
	fns, err := NewFunctions()
	if err != nil {
		t.Fatal(err)
	}
	defer fns.Close()
	var attempts []int
	err = fns.Add("score", func(args string, attempt int, step string) (string, error) {
		attempts = append(attempts, attempt)
		if step != "score" {
			t.Errorf("step id %q", step)
		}
		if attempt == 1 {
			return "", errors.New("warming up")
		}
		return double(args, attempt, step)
	})
	if err != nil || fns.Len() != 1 {
		t.Fatalf("Add: %v, Len %d", err, fns.Len())
	}
	out, err := RunPipeline(scored, "", fns)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeRun(t, out)
	if r.Status != "completed" || !r.Done || r.Outputs["report"]["total"] != 20.0 {
		t.Errorf("status %q, outputs %v", r.Status, r.Outputs)
	}
	if !reflect.DeepEqual(attempts, []int{1, 2}) {
		t.Errorf("attempts %v, want [1 2]", attempts)
	}
	found := false
	for _, tr := range r.Transitions {
		found = found || (tr.Step == "score" && strings.HasPrefix(tr.Message, "warming up;"))
	}
	if !found {
		t.Errorf("the failed attempt's message is lost: %s", out)
	}
}

func TestPanickingFunctionFailsTheStep(t *testing.T) {
	fns, _ := NewFunctions()
	defer fns.Close()
	if err := fns.Add("score", func(string, int, string) (string, error) { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	out, err := RunPipeline(scored, "", fns)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeRun(t, out)
	if r.Status != "failed" || r.Messages["score"] != "function panicked: boom" {
		t.Errorf("status %q, messages %v", r.Status, r.Messages)
	}
}

func TestFunctionAbortsTheRun(t *testing.T) {
	fns, _ := NewFunctions()
	defer fns.Close()
	calls := 0
	if err := fns.Add("score", func(string, int, string) (string, error) {
		calls++
		return "", fmt.Errorf("operator pressed stop: %w", ErrAbortRun)
	}); err != nil {
		t.Fatal(err)
	}
	out, err := RunPipeline(scored, "", fns)
	var be *Error
	if !errors.As(err, &be) || be.Code != User || be.Field != "score" ||
		be.Message != "operator pressed stop: run aborted by a function" {
		t.Fatalf("want a User error at step score, got %v", err)
	}
	if out != "" || calls != 1 {
		t.Errorf("out %q, calls %d: an abort returns nothing and is not retried", out, calls)
	}
}

func TestRegistryAndOptionErrors(t *testing.T) {
	fns, _ := NewFunctions()
	defer fns.Close()
	if err := fns.Add("score", double); err != nil {
		t.Fatal(err)
	}
	var be *Error
	if err := fns.Add("score", double); !errors.As(err, &be) || be.Code != Exists {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := RunPipeline(scored, `{"bogus": 1}`, fns); !errors.As(err, &be) || be.Field != "options.bogus" {
		t.Errorf("unknown option: %v", err)
	}
	if _, err := RunPipeline(`{"pipeline": `, "", fns); !errors.Is(err, ErrInvalid) {
		t.Errorf("broken document: %v", err)
	}
	// Without functions the FUNCTION step cannot run; the run still reports.
	out, err := RunPipeline(scored, `{"params": {"base": 4}}`, nil)
	if err != nil || decodeRun(t, out).Status != "failed" {
		t.Errorf("run without functions: %v %s", err, out)
	}
	fns.Close()
	if _, err := RunPipeline(scored, "", fns); !errors.As(err, &be) || be.Field != "functions" {
		t.Errorf("closed functions: %v", err)
	}
}

func TestConcurrentRunsShareFunctions(t *testing.T) {
	fns, _ := NewFunctions()
	defer fns.Close()
	if err := fns.Add("score", double); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, err := RunPipeline(scored, fmt.Sprintf(`{"params": {"base": %d}}`, i), fns)
			if err != nil {
				t.Error(err)
				return
			}
			if got := decodeRun(t, out).Outputs["report"]["total"]; got != float64(2*i) {
				t.Errorf("run %d: total %v", i, got)
			}
		}(i)
	}
	wg.Wait()
}
