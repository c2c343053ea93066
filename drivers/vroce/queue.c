// SPDX-License-Identifier: GPL-2.0
/* Placeholder: being written (see queue.h). */
#include "vroce.h"
