/* MACA bfloat16 (opemu), <common/maca_bfloat16.h>: the 16-bit storage type, raw bits (see maca_fp16.h). */
#ifndef OPEMU_MACA_BFLOAT16_H_
#define OPEMU_MACA_BFLOAT16_H_

typedef struct __maca_bfloat16 { unsigned short __x; } __maca_bfloat16;
typedef struct __maca_bfloat162 { __maca_bfloat16 x; __maca_bfloat16 y; } __maca_bfloat162;

#endif
