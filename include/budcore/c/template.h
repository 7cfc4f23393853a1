/* budcore C ABI — Jinja2-compatible templates (strict undefined, sandboxed). */
#ifndef BUDCORE_C_TEMPLATE_H
#define BUDCORE_C_TEMPLATE_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Renders template `tmpl` (UTF-8, tmpl_len bytes) against the JSON object `context_json`
 * (context_json_len bytes; NULL with length 0 means an empty context) and writes the result to `out`,
 * which the caller releases with budcore_buf_dispose().
 * native == 0: the text Jinja2's Environment(undefined=StrictUndefined) would render.
 * native != 0: the JSON of the value Jinja2's NativeEnvironment would return
 *              ("{{ flag }}" gives `true`, "{{ cfg }}" an object, other text a JSON string).
 * Errors: BUDCORE_EINVALID for a bad context or a template error, BUDCORE_ESECURITY for a
 * sandbox limit. budcore_error_last()->message starts with the Jinja2 exception name
 * ("UndefinedError: 'x' is undefined (line 1, column 4)"); ->field is "template" or "context";
 * ->kind is the exception name and ->line, ->column its position in the template.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_template_render(budcore_buf *out, const char *tmpl, size_t tmpl_len,
                                        const char *context_json, size_t context_json_len, int native);

/* A compiled template: compile once, render many times (from any number of threads). Opaque;
 * release with budcore_template_free(). */
typedef struct budcore_template budcore_template;

/* Compiles `text` into *out (NULL on failure). Errors as for budcore_template_render
 * (TemplateSyntaxError, TemplateAssertionError, SecurityError for oversized text), with
 * budcore_error_last()->kind, ->line and ->column set. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_template_compile(budcore_template **out, const char *text, size_t text_len);

/* Renders a compiled template against `context_json` as budcore_template_render does.
 * Thread-safety: safe from any thread, also on one template at once (it is immutable). */
BUDCORE_API int budcore_template_render_compiled(budcore_buf *out, const budcore_template *tmpl,
                                                 const char *context_json, size_t context_json_len, int native);

/* Frees a compiled template. NULL is a no-op. Thread-safety: not while another call uses it. */
BUDCORE_API void budcore_template_free(budcore_template *tmpl);

/* The template details of this thread's last error. Deprecated with
 * budcore_template_error_last(): budcore_error carries the same kind, line and column. */
typedef struct budcore_template_error {
  const char *kind; /* Jinja2's exception name: "TemplateSyntaxError", "TemplateAssertionError",
                     * "UndefinedError", "TypeError", "ZeroDivisionError", "ValueError",
                     * "TemplateRuntimeError", "SecurityError"; "" when the last error is not a
                     * template error */
  int line;         /* 1-based position in the template text; 0 when unknown */
  int column;
} budcore_template_error;

/* Deprecated: read budcore_error_last()->kind, ->line and ->column, the same values on the one
 * error channel. Kept for programs built against earlier headers.
 * Never NULL; kind is "" unless this thread's last call failed in a template. Valid until the
 * next budcore call on this thread, like budcore_error_last(). Thread-safety: thread-local. */
BUDCORE_API const budcore_template_error *budcore_template_error_last(void)
    BUDCORE_DEPRECATED("use budcore_error_last()->kind / line / column");

BUDCORE_END_DECL

#endif
