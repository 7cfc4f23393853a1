// Forward declarations of the template layer.
#pragma once

namespace budcore::templates {

enum class ErrorKind : int;
struct Limits;
struct RenderOptions;
struct TemplateError;
class Template;

}  // namespace budcore::templates
