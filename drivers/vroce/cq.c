// SPDX-License-Identifier: GPL-2.0
/* Placeholder: being written (see cq.h). */
#include "vroce.h"

const struct ib_device_ops vroce_cq_ops = {
};
