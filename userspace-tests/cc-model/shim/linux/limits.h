/* SPDX-License-Identifier: GPL-2.0 */
#include "../vroce_shim.h"
