package budcore

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestRenderTemplate(t *testing.T) {
	if got, err := RenderTemplate("Hi {{ name }}", `{"name": "x"}`, false); err != nil || got != "Hi x" {
		t.Fatalf("got %q, %v", got, err)
	}
	if got, err := RenderTemplate("{{ cfg }}", `{"cfg": {"a": 1}}`, true); err != nil || got != `{"a":1}` {
		t.Fatalf("native: got %q, %v", got, err)
	}
}

func TestTemplateErrorsCarryKindLineAndColumn(t *testing.T) {
	_, err := RenderTemplate("line\n  {{ missing }}", "{}", false)
	var te *TemplateError
	if !errors.As(err, &te) || te.Kind != "UndefinedError" || te.Line != 2 || te.Column == 0 {
		t.Fatalf("want an UndefinedError at line 2, got %#v", err)
	}
	var be *Error
	if !errors.As(err, &be) || be.Code != Invalid || be.Field != "template" {
		t.Fatalf("the *Error inside: %v", err)
	}
	if _, err := CompileTemplate("{% if x %}"); !errors.As(err, &te) || te.Kind != "TemplateSyntaxError" {
		t.Fatalf("want a syntax error, got %v", err)
	}
	if _, err := RenderTemplate("{{ x }}", "[1]", false); !errors.As(err, &te) || te.Kind != "" || te.Err.Field != "context" {
		t.Fatalf("a bad context is not a template failure: %v", err)
	}
}

func TestCompiledTemplateServesGoroutines(t *testing.T) {
	tmpl, err := CompileTemplate("{{ name }}:{{ n * 2 }}")
	if err != nil {
		t.Fatal(err)
	}
	defer tmpl.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; n < 20; n++ {
				got, err := tmpl.Render(fmt.Sprintf(`{"name": "t%d", "n": %d}`, i, n), false)
				if want := fmt.Sprintf("t%d:%d", i, 2*n); err != nil || got != want {
					errs <- fmt.Errorf("got %q, %v; want %q", got, err, want)
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
