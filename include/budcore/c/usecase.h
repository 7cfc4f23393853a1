/* budcore C ABI — use-case templates: a registry of components and templates, and the
 * resolution of a template with parameters into its components and the pipeline that deploys
 * them (docs/cli.md contract 4, docs/usecases.md). JSON in, JSON out. */
#ifndef BUDCORE_C_USECASE_H
#define BUDCORE_C_USECASE_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Components and templates in memory. Opaque; release with budcore_usecase_registry_free(). */
typedef struct budcore_usecase_registry budcore_usecase_registry;

/* A new registry: empty (with_builtin == 0) or holding the system components and templates
 * that ship with budcore (simple-rag-v1, enterprise-rag-v1, simple-chatbot-v1,
 * chatbot-memory-v1, simple-agent-v1 and the components they use).
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_usecase_registry_new(budcore_usecase_registry **out, int with_builtin);

/* Releases the registry. NULL is a no-op.
 * Thread-safety: not while another call uses the registry. */
BUDCORE_API void budcore_usecase_registry_free(budcore_usecase_registry *registry);

/* Adds the components of `document` (YAML or JSON: one component or a list, the schema of
 * docs/usecases.md "Writing a component"). All or nothing: BUDCORE_EINVALID naming the field
 * ("[1].outputs[0]"), BUDCORE_EEXISTS when an id is already in the registry (field "id").
 * Thread-safety: not concurrently with any other call on the registry. */
BUDCORE_API int budcore_usecase_registry_add_components(budcore_usecase_registry *registry, const char *document,
                                                        size_t document_len);

/* Adds a template (YAML or JSON, the schema of docs/usecases.md "Writing a template"),
 * replacing one of the same id.
 * BUDCORE_EINVALID naming the field when it does not follow the schema.
 * Thread-safety: not concurrently with any other call on the registry. */
BUDCORE_API int budcore_usecase_registry_add_template(budcore_usecase_registry *registry, const char *document,
                                                      size_t document_len);

/* Adds the component files under `path` (a file or a directory, read recursively), then the
 * template files under `templates_path` (either may be NULL with length 0: none). All or
 * nothing; errors name the file. A path that cannot be read is BUDCORE_EIO with field "path",
 * value the path and message "cannot open file 'PATH': <reason>" (the one error every surface
 * gives for a file that cannot be read).
 * Thread-safety: not concurrently with any other call on the registry. */
BUDCORE_API int budcore_usecase_registry_load(budcore_usecase_registry *registry, const char *components_path,
                                              size_t components_path_len, const char *templates_path,
                                              size_t templates_path_len);

/* Writes {"templates": [{"id", "name", "version", "category", "complexity", "description",
 * "tags", "parameters", "components", "source_file"}, ...]} to `out`.
 * Thread-safety: concurrent read-only calls on one registry are safe. */
BUDCORE_API int budcore_usecase_list(budcore_buf *out, const budcore_usecase_registry *registry);

/* Writes the template `id` (its schema JSON) to `out`; BUDCORE_ENOTFOUND (field "id") when
 * the registry has none.
 * Thread-safety: concurrent read-only calls on one registry are safe. */
BUDCORE_API int budcore_usecase_show(budcore_buf *out, const budcore_usecase_registry *registry, const char *id,
                                     size_t id_len);

/* Writes {"components": [...]} (each in the component schema) to `out`.
 * Thread-safety: concurrent read-only calls on one registry are safe. */
BUDCORE_API int budcore_usecase_components(budcore_buf *out, const budcore_usecase_registry *registry);

/* Resolves the template `template_id` of the registry. request_json (NULL with length 0:
 * none) is {"parameters": {...}, "overrides": {"<instance>": {"config", "env", "resources",
 * "model_id", "gpu_type", "gpu_count"}}, "name": "..."}. On success writes contract 4's output
 * ({"valid": true, "template", "parameters", "components", "disabled", "pipeline", ...}) to
 * `out`. When the template or parameters are invalid returns BUDCORE_EINVALID with the first
 * problem in budcore_error_last() (field = its path), leaves `out` untouched and, when
 * `errors_out` is not NULL, writes {"valid": false, "errors": [{"code", "message", "path"}]}
 * listing every problem to it. BUDCORE_ENOTFOUND for an unknown template id.
 * Thread-safety: concurrent read-only calls on one registry are safe. */
BUDCORE_API int budcore_usecase_render(budcore_buf *out, budcore_buf *errors_out,
                                       const budcore_usecase_registry *registry, const char *template_id,
                                       size_t template_id_len, const char *request_json, size_t request_json_len);

BUDCORE_END_DECL

#endif
