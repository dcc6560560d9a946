/* Just enough of libc for pycparser to read our headers; cffi knows these names natively. */
#ifndef OPEMU_FAKE_TYPES_H
#define OPEMU_FAKE_TYPES_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef unsigned long uintptr_t;
typedef long intptr_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL 0
#endif
