/*
 * ebb — backpropagation through long sequences in any memory budget.
 *
 * The umbrella header: include this one. See docs/ for the guide.
 */
#ifndef EBB_EBB_H
#define EBB_EBB_H

#include "ebb/version.h"
#include "ebb/error.h"
#include "ebb/vocabulary.h"
#include "ebb/schedule.h"
#include "ebb/chain.h"
#include "ebb/storage.h"
#include "ebb/codec.h"
#include "ebb/config.h"
#include "ebb/runtime.h"
#include "ebb/planner.h"
#include "ebb/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked at run time ("0.1.0"). Never NULL. */
EBB_API const char *ebb_version(void);

#ifdef __cplusplus
}
#endif

#endif
