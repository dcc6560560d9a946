/* MACA half precision (opemu), <common/maca_fp16.h>: the 16-bit storage type host code passes to the
 * math libraries. Host code only moves these bits (opemu runs no device code): the type is a struct
 * of the raw IEEE binary16 pattern in C and in C++. */
#ifndef OPEMU_MACA_FP16_H_
#define OPEMU_MACA_FP16_H_

typedef struct __half { unsigned short __x; } __half;
typedef struct __half2 { __half x; __half y; } __half2;

#endif
