// SPDX-License-Identifier: GPL-2.0
/* Placeholder: being written (see ah.h). */
#include "vroce.h"

const struct ib_device_ops vroce_ah_ops = {
};
