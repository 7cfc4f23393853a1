#include "capi_internal.hpp"

extern "C" {

int budcore_version(int* major, int* minor, int* patch) {
  if (major != nullptr) *major = BUDCORE_VERSION_MAJOR;
  if (minor != nullptr) *minor = BUDCORE_VERSION_MINOR;
  if (patch != nullptr) *patch = BUDCORE_VERSION_PATCH;
  return BUDCORE_OK;
}

const char* budcore_version_string(void) { return BUDCORE_VERSION_STRING; }

}  // extern "C"
