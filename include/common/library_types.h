/* MACA library types (opemu): the data-type enum and library property names shared by the MACA math
 * libraries (mcBLAS, mcSPARSE, mcDNN's mcdnnGetProperty).
 *
 * MACA spells CUDA's cudaDataType as macaDataType with MACA_R_* / MACA_C_* members and CUDA's values
 * (public MetaX code: MACA_R_16BF = 14 passed to libmcblas.so's mcblasGemmEx). The header's file name
 * is not public; like mcComplex.h and maca_fp16.h it sits in include/common. */
#ifndef OPEMU_MACA_LIBRARY_TYPES_H_
#define OPEMU_MACA_LIBRARY_TYPES_H_

typedef enum macaDataType_t {
    MACA_R_16F = 2,
    MACA_C_16F = 6,
    MACA_R_16BF = 14,
    MACA_C_16BF = 15,
    MACA_R_32F = 0,
    MACA_C_32F = 4,
    MACA_R_64F = 1,
    MACA_C_64F = 5,
    MACA_R_4I = 16,
    MACA_C_4I = 17,
    MACA_R_4U = 18,
    MACA_C_4U = 19,
    MACA_R_8I = 3,
    MACA_C_8I = 7,
    MACA_R_8U = 8,
    MACA_C_8U = 9,
    MACA_R_16I = 20,
    MACA_C_16I = 21,
    MACA_R_16U = 22,
    MACA_C_16U = 23,
    MACA_R_32I = 10,
    MACA_C_32I = 11,
    MACA_R_32U = 12,
    MACA_C_32U = 13,
    MACA_R_64I = 24,
    MACA_C_64I = 25,
    MACA_R_64U = 26,
    MACA_C_64U = 27,
    MACA_R_8F_E4M3 = 28,
    MACA_R_8F_E5M2 = 29
} macaDataType;
typedef enum macaDataType_t macaDataType_t;

typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
typedef enum libraryPropertyType_t libraryPropertyType_t;

#endif
