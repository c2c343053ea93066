// SPDX-License-Identifier: GPL-2.0
/* Placeholder: being written (see qp.h). */
#include "vroce.h"

const struct ib_device_ops vroce_qp_ops = {
};
