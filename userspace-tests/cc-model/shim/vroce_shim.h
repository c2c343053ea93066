/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers for drivers/vroce/cc/dcqcn.c to
 * build in userspace: each header under shim/linux/ includes this file.
 * Not <errno.h>: glibc's includes <linux/errno.h>, which is ours here.
 */
#ifndef VROCE_SHIM_H
#define VROCE_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

#ifndef EINVAL
#define EINVAL		22
#endif

#define U32_MAX		((u32)~0U)
#define BIT(n)		(1UL << (n))

/* Single evaluation, like the kernel's; no type check here. */
#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a > _b ? _a : _b; })
#define min_t(t, a, b)	({ t _a = (a); t _b = (b); _a < _b ? _a : _b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	min_t(t, max((t)(v), (t)(lo)), hi)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The kernel's strscpy(), as far as its callers here need it. */
static inline long strscpy(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n && src[i]; i++)
		dst[i] = src[i];
	if (n)
		dst[i] = 0;
	return i;
}

static inline u64 div_u64(u64 n, u32 d)
{
	return n / d;
}

/* Truncates toward zero, as the kernel's does. */
static inline s64 div_s64(s64 n, s32 d)
{
	return n / d;
}

#endif
