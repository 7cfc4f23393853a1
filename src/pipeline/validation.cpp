// validate_document: Facts from the Value, then the shared rules.
#include "budcore/pipeline/validation.hpp"

#include "pipeline/analyze.hpp"

namespace budcore::pipeline {

ValidationReport validate_document(const core::Value& document) {
  return detail::analyze(detail::extract_facts(document), false).report;
}

}  // namespace budcore::pipeline
