// SPDX-License-Identifier: GPL-2.0
/* Placeholder: being written (see mr.h). */
#include "vroce.h"

const struct ib_device_ops vroce_mr_ops = {
};
