/* budcore — the C ABI umbrella header. Only this header and budcore/c/\*.h carry an ABI
 * promise. Threading: handles are single-thread unless a function says otherwise; errors are
 * thread-local. */
#ifndef BUDCORE_BUDCORE_H
#define BUDCORE_BUDCORE_H

#include "budcore/export.h"
#include "budcore/c/common.h"
#include "budcore/c/error.h"
#include "budcore/c/version.h"
#include "budcore/c/job.h"
#include "budcore/c/pipeline.h"
#include "budcore/c/quota.h"
#include "budcore/c/template.h"
#include "budcore/c/store.h"
#include "budcore/c/schedule.h"
#include "budcore/c/platform.h"
#include "budcore/c/cost.h"
#include "budcore/c/usecase.h"
#include "budcore/c/gpu.h"
#include "budcore/c/serverless.h"
#include "budcore/c/kueue.h"

#endif
