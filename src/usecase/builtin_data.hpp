// The shipped use-case files (examples/usecases/**/*.yaml), compiled into the library by
// cmake/embed_usecases.cmake: paths relative to examples/usecases ("components/qdrant.yaml",
// "templates/rag/simple-rag-v1.yaml"), in path order.
#pragma once

#include <cstddef>
#include <string_view>

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::usecase::detail {

struct BuiltinFile {
  std::string_view path;
  std::string_view text;
};

extern const BuiltinFile kBuiltinFiles[];
extern const std::size_t kBuiltinFileCount;

}  // namespace budcore::usecase::detail

#pragma GCC visibility pop
