// The forms of a loop kernel (internal to the stage). Each plan_* fills the form's fields of `kp`
// and returns true when the kernel takes that form; kp's parallel fields are set before.
#pragma once

#include "analysis.h"

namespace stax::kernelplan::detail {

bool plan_tiled(const KernelContext& c, KernelPlan& kp);
bool plan_vector_rows(const KernelContext& c, KernelPlan& kp);
bool plan_columns(const KernelContext& c, KernelPlan& kp);
// Always applies: RowGroups, or Scalar when no loop is vectorized.
void plan_row_groups(const KernelContext& c, KernelPlan& kp);

}  // namespace stax::kernelplan::detail
