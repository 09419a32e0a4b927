/* ctorch/ops_families.h -- declarations of the op families added by the
 * ops work (reductions, linear algebra, shape ops, indexing, sorting), one
 * header each, so families can grow independently.  Same conventions as
 * ops.h. */
#ifndef CTORCH_OPS_FAMILIES_H
#define CTORCH_OPS_FAMILIES_H

#if __has_include("ops_reduce.h")
#include "ops_reduce.h"
#endif
#if __has_include("ops_linalg.h")
#include "ops_linalg.h"
#endif
#if __has_include("ops_shape.h")
#include "ops_shape.h"
#endif
#if __has_include("ops_index.h")
#include "ops_index.h"
#endif
#if __has_include("ops_sort.h")
#include "ops_sort.h"
#endif
#if __has_include("ops_pointwise_ternary.h")
#include "ops_pointwise_ternary.h"
#endif

#if __has_include("ops_activation.h")
#include "ops_activation.h"
#endif
#if __has_include("ops_linalg_qr.h")
#include "ops_linalg_qr.h"
#endif

#include "ops_nn.h"
#include "ops_conv.h"

#endif
