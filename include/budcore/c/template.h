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
 * ("UndefinedError: 'x' is undefined (line 1, column 4)"); ->field is "template" or "context".
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_template_render(budcore_buf *out, const char *tmpl, size_t tmpl_len,
                                        const char *context_json, size_t context_json_len, int native);

BUDCORE_END_DECL

#endif
